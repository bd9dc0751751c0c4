"""Training steps and where their time went, per rank (``mspti-trace analyze``, docs/trace.md).

A step is one instance of an mstx host range: the one named by ``--step``, else the outermost
range repeated on every rank. Per rank and step: device compute (kernels), communication
(collectives), their overlap, exposed communication, device idle, and host time outside any
device work (API calls and inner ranges while the device does nothing).
"""

import statistics

from . import intervals as iv
from .model import API_CATEGORIES, COLLECTIVE_CATEGORIES, KERNEL, MARKER, host_row

COPY_CATEGORIES = ("memcpy", "memset")


def host_ranges(proc):
    """The process's named mstx ranges on host threads (device halves carry no name of their own)."""
    return [s for s in proc.slices if s.cat == MARKER and host_row(s.row) and s.name]


def collective_category(run):
    """HCCL records when there are any, else COMMUNICATION records (one of the two, never both:
    each collective is reported as both)."""
    if any(s.cat == "hccl" for p in run.processes for s in p.slices):
        return "hccl"
    return "communication" if any(s.cat == "communication" for p in run.processes for s in p.slices) else None


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
    """The outermost instances of range `name` on the process, in time order."""
    out = []
    for r in sorted((r for r in host_ranges(proc) if r.name == name), key=lambda r: (r.start, -r.end)):
        if out and r.start >= out[-1].start and r.end <= out[-1].end:
            continue  # nested in a previous instance of the same name
        out.append(r)
    return out


class DeviceSets:
    """A process's busy intervals by kind (sorted, disjoint)."""

    def __init__(self, proc, coll_cat):
        self.kernel = iv.union((s.start, s.end) for s in proc.slices if s.cat == KERNEL)
        cats = (coll_cat,) if coll_cat else COLLECTIVE_CATEGORIES
        self.comm = iv.union((s.start, s.end) for s in proc.slices if s.cat in cats)
        copies = iv.union((s.start, s.end) for s in proc.slices if s.cat in COPY_CATEGORIES)
        self.busy = iv.union([tuple(x) for x in self.kernel + self.comm + copies])

    def host(self, proc, step_name):
        """API calls and inner ranges on host threads: where the host was doing something."""
        return iv.union((s.start, s.end) for s in proc.slices
                        if s.cat in API_CATEGORIES or (s.cat == MARKER and host_row(s.row)
                                                       and s.name and s.name != step_name))


def breakdown(proc, window, sets, host):
    """The step breakdown of one process over window (start, end), in ns."""
    lo, hi = window
    k, c, busy = iv.clip(sets.kernel, lo, hi), iv.clip(sets.comm, lo, hi), iv.clip(sets.busy, lo, hi)
    compute, comm = iv.length(k), iv.length(c)
    overlap = iv.length(iv.intersection(k, c))
    return {"duration": hi - lo, "compute": compute, "communication": comm, "overlap": overlap,
            "exposed_communication": comm - overlap, "idle": (hi - lo) - iv.length(busy),
            "host_only": iv.minus_length(iv.clip(host, lo, hi), busy)}


def step_breakdowns(run, step_name, coll_cat):
    """[{rank, step, start, end, ...breakdown}] per process and step (one step per process over
    its own first-to-last record when there is no step range)."""
    rows = []
    for p in run.processes:
        sets = DeviceSets(p, coll_cat)
        host = sets.host(p, step_name)
        if step_name is not None:
            windows = [(r.start, r.end) for r in instances(p, step_name)]
        else:
            windows = [(min(s.start for s in p.slices), max(s.end for s in p.slices))] if p.slices else []
        for n, w in enumerate(windows):
            rows.append({"rank": p.label, "step": n, "start": w[0], "end": w[1], **breakdown(p, w, sets, host)})
    return rows
