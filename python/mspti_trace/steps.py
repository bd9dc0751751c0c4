"""Training steps and where their time went, per rank (``mspti-trace analyze``, docs/trace.md).

A step is one instance of an mstx host range: the one named by ``--step``, else the outermost
range repeated on every rank. Per rank and step: device compute (kernels), communication
(collectives), their overlap, exposed communication, device idle, and host time outside any
device work (API calls and inner ranges while the device does nothing).
"""

import os
import statistics

import numpy as np

from . import intervals as iv
from .model import API_CATEGORIES, COLLECTIVE_CATEGORIES, KERNEL, MARKER, host_row

COPY_CATEGORIES = ("memcpy", "memset")


def host_ranges(proc):
    """The process's named mstx ranges on host threads (device halves carry no name of their own).
    Made once per process (until shift(), which clears the cache it is kept in)."""
    got = proc._of.get("host ranges")
    if got is None:
        got = proc._of["host ranges"] = [s for s in proc.of(MARKER) if host_row(s.row) and s.name]
    return list(got)


def collective_category(run):
    """HCCL records when there are any, else COMMUNICATION records (one of the two, never both:
    each collective is reported as both)."""
    if any(p.count("hccl") for p in run.processes):
        return "hccl"
    return "communication" if any(p.count("communication") for p in run.processes) else None


def choose_step(run, wanted=None):
    """(range name or None, why). The default: among the range names every process has, those
    repeated (at least twice on every process) first, the one with the longest median instance."""
    per_proc = [host_ranges(p) for p in run.processes]
    if wanted is not None:
        missing = [p.label for p, rs in zip(run.processes, per_proc) if not any(r.name == wanted for r in rs)]
        if len(missing) == len(run.processes):
            raise ValueError(f"--step {wanted}: no process has an mstx range of that name")
        return wanted, ("missing on " + ", ".join(missing)) if missing else ""
    if not per_proc or not all(per_proc):
        return None, "no mstx ranges on every process: the whole run is one step"
    common = set.intersection(*({r.name for r in rs} for rs in per_proc))
    if not common:
        return None, "no mstx range name on every process: the whole run is one step"

    def key(name):
        counts = [sum(1 for r in rs if r.name == name) for rs in per_proc]
        durs = [r.dur for rs in per_proc for r in rs if r.name == name]
        return (min(counts) >= 2, statistics.median(durs), name)

    return max(common, key=key), ""


def instances(proc, name):
    """The outermost instances of range `name` on the process, in time order. Made once per
    process and name (analyze asks twice)."""
    got = proc._of.get(("instances", name))
    if got is None:
        got = proc._of[("instances", name)] = []
        for r in sorted((r for r in host_ranges(proc) if r.name == name), key=lambda r: (r.start, -r.end)):
            if got and r.start >= got[-1].start and r.end <= got[-1].end:
                continue  # nested in a previous instance of the same name
            got.append(r)
    return list(got)


class DeviceSets:
    """A process's busy intervals by kind (numpy sets of intervals: sorted, disjoint)."""

    def __init__(self, proc, coll_cat):
        c = proc.cols
        k, m = c.mask(KERNEL), c.mask(*((coll_cat,) if coll_cat else COLLECTIVE_CATEGORIES))
        self.kernel = iv.np_union(c.start, c.end, k)
        self.comm = iv.np_union(c.start, c.end, m)
        busy = k | m | c.mask(*COPY_CATEGORIES)
        self.busy = iv.np_union(c.start, c.end, busy)
        self.kernel_or_comm = iv.np_join(self.kernel, self.comm)

    def host(self, proc, step_name):
        """API calls and inner ranges on host threads: where the host was doing something."""
        c = proc.cols
        api = c.mask(*API_CATEGORIES)  # in file order: long runs already sorted by start
        ranges = [s for s in host_ranges(proc) if s.name != step_name]
        return iv.np_union(np.concatenate((c.start[api], np.array([s.start for s in ranges], np.int64))),
                           np.concatenate((c.end[api], np.array([s.end for s in ranges], np.int64))),
                           native=False)  # sorted runs: numpy's stable sort merges them (np_union)


def breakdowns(sets, host, windows, rank):
    """The rows {rank, step, start, end, duration, compute, ...} of one rank's steps, in ns, over
    each window (start, end): every window at once, from the length of each set before each
    window's ends. Overlap is |K| + |C| - |K or C|, host time outside device work |H or B| - |B|."""
    lo = np.array([w[0] for w in windows], np.int64)
    hi = np.array([w[1] for w in windows], np.int64)

    def within(span):  # as Python ints (an object array): the sums and differences below are exact
        return (iv.np_length_before(span, hi) - iv.np_length_before(span, lo)).astype(object)

    compute, comm, busy = within(sets.kernel), within(sets.comm), within(sets.busy)
    either, host_or_busy = within(sets.kernel_or_comm), within(iv.np_join(host, sets.busy))
    duration = hi.astype(object) - lo.astype(object)
    overlap = compute + comm - either
    cols = [x.tolist() for x in (lo, hi, duration, compute, comm, overlap, comm - overlap, duration - busy,
                                 host_or_busy - busy)]
    return [{"rank": rank, "step": n, "start": a, "end": b, "duration": d, "compute": k, "communication": c,
             "overlap": o, "exposed_communication": e, "idle": i, "host_only": h}
            for n, (a, b, d, k, c, o, e, i, h) in enumerate(zip(*cols))]


def step_breakdowns(run, step_name, coll_cat):
    """[{rank, step, start, end, ...breakdown}] per process and step (one step per process over
    its own first-to-last record when there is no step range). The processes on threads (one per
    CPU at most): most of the work is numpy's and C++'s, which run without the GIL (the bench's
    2-rank trace on 2 CPUs: 124 -> 96 ms, best of 15)."""
    def one(p):
        sets = DeviceSets(p, coll_cat)
        host = sets.host(p, step_name)
        if step_name is not None:
            windows = [(r.start, r.end) for r in instances(p, step_name)]
        else:
            c = p.cols
            windows = [(int(c.start.min()), int(c.end.max()))] if len(c) else []
        return breakdowns(sets, host, windows, p.label)

    import concurrent.futures
    with concurrent.futures.ThreadPoolExecutor(max(1, min(len(run.processes), os.cpu_count() or 1))) as ex:
        return [r for rows in ex.map(one, run.processes) for r in rows]
