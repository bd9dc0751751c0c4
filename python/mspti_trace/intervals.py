"""Interval arithmetic on [start, end) pairs in ns, for the time breakdowns of ``analyze`` and
``report``: unions, clipping to a window, and the length of an intersection or a difference."""


def union(intervals):
    """Sorted, disjoint [start, end] lists covering the given (start, end) pairs."""
    out = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            if b > out[-1][1]:
                out[-1][1] = b
        elif b > a:
            out.append([a, b])
    return out


def length(iv):
    return sum(b - a for a, b in iv)


def clip(iv, lo, hi):
    """The parts of disjoint sorted intervals that lie in [lo, hi)."""
    out = []
    for a, b in iv:
        if b <= lo:
            continue
        if a >= hi:
            break
        out.append([max(a, lo), min(b, hi)])
    return out


def intersection(x, y):
    """Disjoint sorted intervals covered by both disjoint sorted lists."""
    out, i, j = [], 0, 0
    while i < len(x) and j < len(y):
        a, b = max(x[i][0], y[j][0]), min(x[i][1], y[j][1])
        if a < b:
            out.append([a, b])
        if x[i][1] < y[j][1]:
            i += 1
        else:
            j += 1
    return out


def minus_length(iv, cut):
    """Length of the disjoint sorted intervals iv not covered by the disjoint sorted intervals cut."""
    return length(iv) - length(intersection(iv, cut))
