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


def percentile(values, q):
    """The q-th percentile (0..100) of values, nearest rank (robust for small counts)."""
    v = sorted(values)
    if not v:
        return 0
    return v[min(len(v) - 1, max(0, int(-(-q * len(v) // 100)) - 1))]


def collective_instances(run, cat):
    """({comm: [instance]}, warnings). An instance is {"comm", "index", "name", "ranks":
    {label: slice}}, matched by order across the ranks of the communicator."""
    per_comm = defaultdict(dict)  # comm -> label -> [slices in start order]
    for p in run.processes:
        mine = defaultdict(list)
        for s in p.of(cat):
            if s.comm is not None:
                mine[s.comm].append(s)
        for comm, ss in mine.items():
            ss.sort(key=lambda s: s.start)
            per_comm[comm][p.label] = ss
    out, warnings = {}, []
    for comm, ranks in per_comm.items():
        if len(ranks) < 2:
            continue  # a one-rank communicator (or one rank of it traced): nobody to wait for
        counts = {len(v) for v in ranks.values()}
        n = min(counts)
        if len(counts) > 1:
            warnings.append(f"comm {comm}: the ranks recorded {min(counts)} to {max(counts)} collectives; "
                            f"the first {n} are matched")
        inst = []
        for k in range(n):
            at = {label: ss[k] for label, ss in ranks.items()}
            names = {s.name for s in at.values()}
            if len(names) > 1:
                warnings.append(f"comm {comm}: collective #{k} differs across ranks ({', '.join(sorted(names))}); "
                                "later ones are not matched")
                break
            inst.append({"comm": comm, "index": k, "name": names.pop(), "ranks": at})
        out[comm] = inst
    return out, warnings


def instance_waits(inst):
    """Per instance: last arrival, the late rank, the wait it caused (last minus second-last
    arrival), and per rank its wait and its transit (end minus last arrival). Worked out once per
    instance (analyze asks four times): treat the result as read-only."""
    got = inst.get("_waits")
    if got is not None:
        return got
    starts = sorted((s.start, label) for label, s in inst["ranks"].items())
    last, late = starts[-1]
    second = starts[-2][0]
    got = inst["_waits"] = {
        "last_arrival": last, "late": late, "caused": last - second,
        "wait": {label: last - s.start for label, s in inst["ranks"].items()},
        "transit": {label: max(s.end - last, 0) for label, s in inst["ranks"].items()},
        "bytes": {label: s.bytes for label, s in inst["ranks"].items()}}
    return got


def rank_waits(instances_by_comm):
    """Per rank: instances, times last, the waits it caused, the waits it suffered."""
    out = defaultdict(lambda: {"instances": 0, "last": 0, "caused": [], "waited": []})
    for insts in instances_by_comm.values():
        for inst in insts:
            w = instance_waits(inst)
            for label in inst["ranks"]:
                r = out[label]
                r["instances"] += 1
                r["waited"].append(w["wait"][label])
            out[w["late"]]["last"] += 1
            out[w["late"]]["caused"].append(w["caused"])
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


def links(instances_by_comm):
    """Per communicator and rank: median transit after the last arrival, bandwidth (bytes over
    transit) and both against the median of the communicator's other ranks."""
    rows = []
    for comm, insts in instances_by_comm.items():
        transit, nbytes = defaultdict(list), defaultdict(int)
        for inst in insts:
            w = instance_waits(inst)
            for label, t in w["transit"].items():
                transit[label].append(t)
                nbytes[label] += w["bytes"][label]
        if not transit:
            continue
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
