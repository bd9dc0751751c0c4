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


# --- the same on numpy arrays (the analysis of large traces): a set is (starts, ends), sorted
# and disjoint, int64 ns.

def np_union(starts, ends, sel=None, native=None):
    """The set covering the given [start, end) pairs (empty ones left out), as union() does; sel:
    a boolean array choosing the pairs (None: all). In C++ where the decoder's library is found
    (native None or True; on large traces numpy's fancy indexing and sort cost far more), else
    with numpy (the reference). native=False also suits pairs that come in long runs already
    sorted by start (a rank's API calls in file order): numpy's stable sort (timsort) merges the
    runs, where the C++ way sorts them all (450,000 API calls: 9.8 ms against 31.3, best of 15)."""
    import numpy as np
    starts, ends = np.ascontiguousarray(starts, np.int64), np.ascontiguousarray(ends, np.int64)
    if native is not False:
        from . import reader_native
        lib = reader_native.library()
        if lib is not None:
            mask = None if sel is None else np.ascontiguousarray(sel, np.bool_)
            room = len(starts) if mask is None else int(np.count_nonzero(mask))
            out_s, out_e = np.empty(room, np.int64), np.empty(room, np.int64)
            got = lib.mspti_pft_union(len(starts), starts.ctypes.data, ends.ctypes.data,
                                      None if mask is None else mask.ctypes.data, out_s.ctypes.data,
                                      out_e.ctypes.data) if room else 0
            if got >= 0:
                return out_s[:got].copy(), out_e[:got].copy()
    if sel is not None:
        starts, ends = starts[sel], ends[sel]
    keep = ends > starts
    return _np_sweep(starts[keep], ends[keep])


def _np_sweep(starts, ends):
    """The set covering non-empty [start, end) pairs: a stable sort by start (timsort, which
    merges runs already in order in linear time) and one sweep joining what overlaps or touches."""
    import numpy as np
    if not len(starts):
        return starts, ends
    order = np.argsort(starts, kind="stable")
    starts, ends = starts[order], ends[order]
    reach = np.maximum.accumulate(ends)
    first = np.flatnonzero(np.concatenate(([True], starts[1:] > reach[:-1])))  # a gap before: a new interval
    return starts[first], np.maximum.reduceat(ends, first)


def np_length_before(span, xs):
    """The length of the set before each x of xs (an array): |span & (-inf, x)|."""
    import numpy as np
    s, e = span
    if not len(s):
        return np.zeros(len(xs), np.int64)
    cum = np.concatenate(([0], np.cumsum(e - s)))
    j = np.searchsorted(s, xs, "left")  # the intervals that start before x
    last_end = e[np.maximum(j - 1, 0)]
    return cum[j] - np.where(j > 0, np.maximum(last_end - xs, 0), 0)  # the last may run past x


def np_join(*spans):
    """The union of sets. Each set is already sorted and disjoint, so _np_sweep's stable sort only
    merges their runs: 2.7 times faster than np_union's full sort in C++ on the 300,000 intervals
    of a rank's host and device sets."""
    import numpy as np
    return _np_sweep(np.concatenate([s for s, _ in spans]).astype(np.int64, copy=False),
                     np.concatenate([e for _, e in spans]).astype(np.int64, copy=False))
