"""Hosts onto one clock for ``analyze`` (several DIRs, one per host).

Like ``merge``, it uses the fact that a collective ends at the same instant on every rank of its
communicator. But a slow link ends its own collectives late, and analyze is there to find it: so
per collective instance (matched by order, which needs no clock) a host's end is the earliest of
its ranks' ends, and the offset between two hosts is the median over every shared instance, not
the first collective alone."""

import statistics
from collections import defaultdict, deque

from . import waits
from .model import Run


def host_offsets(groups, cat):
    """({host: ns to add}, warnings) for {host: [Process]}; the host of the lowest rank is the reference."""
    if len(groups) <= 1 or cat is None:
        return {h: 0 for h in groups}, []
    host_of = {p.label: h for h, procs in groups.items() for p in procs}
    insts, _ = waits.collective_instances(Run([p for procs in groups.values() for p in procs], []), cat)
    ends = defaultdict(dict)  # host -> {(comm, k): earliest end among its ranks}
    for comm, m in insts.items():
        for r, label in enumerate(m.labels):
            mine = ends[host_of[label]]
            for k, end in enumerate(m.end[r].tolist()):
                mine[(comm, k)] = min(mine.get((comm, k), end), end)

    def rank_key(host):
        ranks = [p.rank for p in groups[host] if p.rank is not None]
        return (min(ranks) if ranks else float("inf"), host)

    order = sorted(groups, key=rank_key)
    offsets = {order[0]: 0}
    queue = deque([order[0]])
    while queue:
        a = queue.popleft()
        for b in order:
            shared = set(ends[a]) & set(ends[b]) if b not in offsets else ()
            if shared:
                offsets[b] = offsets[a] + int(round(statistics.median(ends[a][k] - ends[b][k] for k in shared)))
                queue.append(b)
    warnings = [f"host {h} shares no collective with the others: left unshifted" for h in groups if h not in offsets]
    return {h: offsets.get(h, 0) for h in groups}, warnings
