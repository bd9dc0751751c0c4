"""Who waits for whom at the collectives, and which link is slow (``mspti-trace analyze``).

A collective ends on every rank of its communicator only once the last rank has arrived and the
data has moved. So, per collective instance (the k-th collective of a communicator on each of its
ranks), each rank's start is its arrival, the last arrival is when the exchange can begin, each
other rank waits from its arrival to the last one, and what follows the last arrival is transit.
The slow rank is the one the others wait for; a slow link is a rank whose transit is far longer
than its communicator's.
"""

import statistics
from collections import defaultdict

import numpy as np


def percentile(values, q):
    """The q-th percentile (0..100) of values, nearest rank (robust for small counts)."""
    v = sorted(values)
    if not v:
        return 0
    return v[min(len(v) - 1, max(0, int(-(-q * len(v) // 100)) - 1))]


class Matched:
    """The matched collectives of one communicator: the k-th of each of its ranks is instance k.
    start, end and nbytes are arrays [rank, k], the ranks in `labels` order; names[k] is the
    instance's name. Treat as read-only."""

    def __init__(self, comm, labels, names, start, end, nbytes):
        self.comm, self.labels, self.names = comm, labels, names
        self.start, self.end, self.nbytes = _exact(start, end), _exact(end, start), nbytes
        self._waits = None

    def __len__(self):
        return len(self.names)

    def waits(self):
        """Per instance: the late rank (its row in labels; of equal last arrivals, the last label)
        and the wait it caused (last minus second-last arrival); per rank and instance its wait
        and its transit (end minus last arrival, at least 0). Worked out once, as arrays."""
        if self._waits is None:
            by_label = sorted(range(len(self.labels)), key=self.labels.__getitem__)
            starts = self.start[by_label][::-1]  # labels last to first: argmax takes the last label
            late = [by_label[len(by_label) - 1 - i] for i in np.argmax(starts, axis=0).tolist()]
            last = self.start.max(axis=0)
            second = np.sort(self.start, axis=0)[-2]
            self._waits = {"late": np.array(late, np.int64), "caused": last - second, "wait": last - self.start,
                           "transit": np.maximum(self.end - last, 0)}
        return self._waits


def _exact(a, b):
    """a as int64 where the differences of a's and b's values fit in it, else as Python ints (an
    object array): the waits are differences of times, exact whatever a damaged file holds."""
    if not a.size or max(int(a.max()), int(b.max())) - min(int(a.min()), int(b.min())) < 1 << 63:
        return a
    return a.astype(object)


def _by_comm(proc, cat):
    """[(comm, (start, end, bytes, names))] of a process's collectives of category cat, each
    communicator's in start order (equal starts in file order); communicators in the order of
    their first record."""
    c = proc.cols
    idx = np.flatnonzero(c.mask(cat) & (c.comm >= 0))
    codes, first = np.unique(c.comm[idx], return_index=True)
    comms = {}  # comm -> its codes (two codes may read as one name)
    for code in codes[np.argsort(first)].tolist():
        comms.setdefault(c.strings[code], []).append(code)
    idx = idx[np.argsort(c.start[idx], kind="stable")]
    out = []
    for comm, mine in comms.items():
        at = idx[np.isin(c.comm[idx], mine)]
        out.append((comm, (c.start[at], c.end[at], c.bytes[at], [c.strings[n] for n in c.name[at].tolist()])))
    return out


def collective_instances(run, cat):
    """({comm: Matched}, warnings): each communicator's collectives matched by order across its
    ranks."""
    per_comm = defaultdict(dict)  # comm -> label -> (start, end, bytes, names)
    for p in run.processes:
        for comm, cols in _by_comm(p, cat):
            per_comm[comm][p.label] = cols
    out, warnings = {}, []
    for comm, ranks in per_comm.items():
        if len(ranks) < 2:
            continue  # a one-rank communicator (or one rank of it traced): nobody to wait for
        counts = {len(v[3]) for v in ranks.values()}
        n = min(counts)
        if len(counts) > 1:
            warnings.append(f"comm {comm}: the ranks recorded {min(counts)} to {max(counts)} collectives; "
                            f"the first {n} are matched")
        names = [v[3] for v in ranks.values()]
        differ = next((k for k, at in enumerate(zip(*names)) if len(set(at)) > 1), None)  # zip: the first n
        if differ is not None:
            warnings.append(f"comm {comm}: collective #{differ} differs across ranks "
                            f"({', '.join(sorted({nm[differ] for nm in names}))}); later ones are not matched")
            n = differ
        cols = [np.stack([v[i][:n] for v in ranks.values()]) for i in range(3)]
        out[comm] = Matched(comm, list(ranks), names[0][:n], *cols)
    return out, warnings


def rank_waits(matched):
    """Per rank: instances, times last, the waits it caused, the waits it suffered."""
    out = defaultdict(lambda: {"instances": 0, "last": 0, "caused": [], "waited": []})
    for m in matched.values():
        if not len(m):
            continue
        w = m.waits()
        for r, label in enumerate(m.labels):
            got = out[label]
            got["instances"] += len(m)
            got["waited"] += w["wait"][r].tolist()
            late = w["late"] == r
            got["last"] += int(late.sum())
            got["caused"] += w["caused"][late].tolist()
    return out


# The share of its collectives at which a slow rank is the last to arrive. A loaded machine makes
# some rank of a balanced run last at half of them (5 of 10, causing a median 6.8 ms wait at load
# 8-12); a rank slowed on purpose is last at all of them (10 of 10).
LAST_SHARE = 0.75

def slow_rank(waits, threshold_ns):
    """The rank the others wait for, or None: last at at least LAST_SHARE of its collectives, with a
    median wait caused of at least threshold_ns. Returns (label, stats) of the rank that caused
    the most wait in total when it qualifies."""
    best = None
    for label, r in waits.items():
        if not r["caused"]:
            continue
        total = sum(r["caused"])
        if best is None or total > best[1]:
            best = (label, total)
    if best is None:
        return None
    r = waits[best[0]]
    med = statistics.median(r["caused"])
    if r["last"] < LAST_SHARE * r["instances"] or med < threshold_ns:
        return None
    return best[0], {"last": r["last"], "instances": r["instances"], "caused_median_ns": med,
                     "caused_p95_ns": percentile(r["caused"], 95), "caused_total_ns": best[1]}


def links(matched):
    """Per communicator and rank: median transit after the last arrival, bandwidth (bytes over
    transit) and both against the median of the communicator's other ranks."""
    rows = []
    for comm, m in matched.items():
        if not len(m):
            continue
        w = m.waits()
        transit = {label: w["transit"][r].tolist() for r, label in enumerate(m.labels)}
        nbytes = {label: sum(m.nbytes[r].tolist()) for r, label in enumerate(m.labels)}
        med = {label: statistics.median(v) for label, v in transit.items()}
        bw = {label: nbytes[label] / sum(v) if sum(v) > 0 else 0.0 for label, v in transit.items()}
        for label in sorted(med):
            # Against the other ranks: with two ranks, a median including the slow one would halve the gap.
            others = [x for x in med if x != label]
            rows.append({"comm": comm, "rank": label, "collectives": len(transit[label]),
                         "transit_median_ns": med[label], "transit_p95_ns": percentile(transit[label], 95),
                         "others_transit_median_ns": statistics.median(med[x] for x in others),
                         "gbps": bw[label], "others_gbps_median": statistics.median(bw[x] for x in others)})
    return rows


# How many times the other ranks' median transit a link's must be to be slow. A loaded machine
# stretches one rank's transit by up to 2.3 times (a 4-rank run at load 19: 6.1 ms against 2.7 ms);
# a slowed link is far beyond (22.5 ms against 0.8 ms with VNPU_FAULT_COLLECTIVE_US=20000).
LINK_FACTOR = 3

def slow_links(link_rows, threshold_ns):
    """Links whose median transit is at least LINK_FACTOR times the other ranks' and longer by threshold_ns."""
    return [r for r in link_rows
            if r["transit_median_ns"] >= LINK_FACTOR * r["others_transit_median_ns"]
            and r["transit_median_ns"] - r["others_transit_median_ns"] >= threshold_ns]
