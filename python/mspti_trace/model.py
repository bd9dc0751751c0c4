"""The in-memory model that ``summary``, ``merge`` and ``report`` work on, whatever format the
trace files were written in (docs/trace.md): one :class:`Process` per file, holding its slices
(kernels, copies, collectives, ranges, API calls), its mark count and msPTI's record counters.

Readers for the three formats are in :mod:`mspti_trace.readers`; :func:`load_dir` picks the
right one per file.
"""

import glob
import json
import os
import re
import sys

# Slice categories as the writer names them (docs/trace.md, "Events").
KERNEL, MEMCPY, MEMSET = "kernel", "memcpy", "memset"
HCCL, COMMUNICATION, MARKER = "hccl", "communication", "marker"
API_CATEGORIES = ("api", "acl_api", "node_api", "runtime_api")
DEVICE_CATEGORIES = (KERNEL, MEMCPY, MEMSET)
COLLECTIVE_CATEGORIES = (HCCL, COMMUNICATION)
# msPTI kind names, in the order the writer lists them.
KIND_NAMES = ("marker", "kernel", "api", "hccl", "memory", "memset", "memcpy", "communication",
              "acl_api", "node_api", "runtime_api")

FORMATS = ("pftrace", "json", "json.gz", "sqlite")
_FILE_RE = re.compile(r"^trace\.(?:rank(\d+)\.)?pid(\d+)\.(pftrace|json\.gz|json|sqlite)$")
_LANE_RE = re.compile(r" \u00b7 lane \d+$")


class Slice:
    """One timed record: [start, end) in epoch ns on a row (a stream, communicator or thread)."""
    __slots__ = ("name", "cat", "start", "end", "row", "bytes", "bandwidth", "comm")

    def __init__(self, name, cat, start, end, row, nbytes=0, bandwidth=None, comm=None):
        self.name, self.cat, self.start, self.end, self.row = name, cat, start, end, row
        self.bytes, self.bandwidth, self.comm = nbytes, bandwidth, comm

    @property
    def dur(self):
        return self.end - self.start

    def gbps(self):
        """Bytes per ns (= GB/s): the recorded bandwidth, else bytes over the duration."""
        if self.bandwidth is not None:
            return self.bandwidth
        return self.bytes / self.dur if self.dur > 0 else 0.0


class Process:
    """What one traced process wrote (one file).

    Its slices are held as :class:`columns.Columns` (``cols``, what the analysis reads) and, when
    asked for, as :class:`Slice` objects (``slices``, made from the columns on first use). A reader
    may fill ``slices`` instead; the columns are then made from them on first use. Either way,
    treat them as read-only once read: :meth:`shift` is the one change that keeps both in step."""

    def __init__(self, path, fmt, pid, rank=None):
        self.path, self.format, self.pid, self.rank = path, fmt, pid, rank
        self.host = None
        self.world_size = None
        self._slices = []         # every Slice, any order (None: made from _cols when asked for)
        self._cols = None         # the same as columns (None: made from _slices when asked for)
        self._of = {}             # categories -> [Slice] made from the columns
        self.marks = 0            # mstx marks (instants)
        self.unended_ranges = 0   # "<message> (no end)" instants
        self.stats = {}           # kind -> {"produced", "delivered", "dropped"}
        self.stats_unavailable = False  # final stats came, but libmspti keeps no per-kind counts
        self.filtered = 0
        self.dropped_total = None  # last value of the "dropped records" counter, when present
        self.warnings = []        # damage met while reading (with the offset), the rest was read

    @property
    def slices(self):
        if self._slices is None:
            self._slices = self._cols.to_slices()
        return self._slices

    @slices.setter
    def slices(self, slices):
        self._slices, self._cols, self._of = slices, None, {}

    @property
    def cols(self):
        from .columns import Columns
        if self._cols is None:
            self._cols = Columns.from_slices(self._slices or [])
        return self._cols

    def set_columns(self, cols):
        """The slices, as columns (a reader that decodes straight into columns)."""
        self._cols, self._slices, self._of = cols, None, {}

    def has_objects(self):
        """Whether the slices exist as Slice objects now (a reader filled them, or they were asked for)."""
        return self._slices is not None

    def freeze(self):
        """Keeps the columns only (after reading: cheap to pass between processes)."""
        self.cols  # noqa: B018 -- made from the objects if need be
        self._slices, self._of = None, {}

    @property
    def label(self):
        return f"rank {self.rank}" if self.rank is not None else f"pid {self.pid}"

    def sort_key(self):
        return (self.rank is None, self.rank if self.rank is not None else 0, self.pid)

    def of(self, *cats):
        """The slices of the given categories, as Slice objects (made once per set of categories)."""
        if self._slices is not None:
            return [s for s in self._slices if s.cat in cats]
        key = frozenset(cats)
        if key not in self._of:
            self._of[key] = self._cols.take(self._cols.mask(*cats)).to_slices()
        return list(self._of[key])

    def count(self, *cats):
        """How many slices have one of the given categories."""
        return int(self.cols.mask(*cats).sum())

    def dropped(self):
        """kind -> records dropped by msPTI (the final stats, else the total counter under 'all')."""
        if self.stats:
            return {k: v.get("dropped", 0) for k, v in self.stats.items()}
        if self.dropped_total is not None:
            return {"all": self.dropped_total}
        return {}

    def first_collective_end(self):
        """comm name -> end of the first (earliest-starting) collective on it, HCCL records
        first and COMMUNICATION records where a communicator has no HCCL record."""
        out = {}
        for cat in COLLECTIVE_CATEGORIES:
            first = {}
            for s in self.of(cat):
                if s.comm is not None:
                    f = first.get(s.comm)
                    if f is None or s.start < f.start:
                        first[s.comm] = s
            for comm, s in first.items():
                out.setdefault(comm, s.end)
        return out

    def shift(self, delta_ns):
        if self._cols is not None:
            self._cols.shift(delta_ns)
        if self._slices is not None:
            for s in self._slices:
                s.start += delta_ns
                s.end += delta_ns
        self._of = {}

    def __getstate__(self):  # between processes: the columns only
        state = dict(self.__dict__)
        if state["_cols"] is not None:
            state["_slices"] = None
        state["_of"] = {}
        return state


def host_row(row):
    """Whether a slice's row is a host thread's, its overlap lanes included (a range that does not
    nest with the thread's other slices goes to a lane named without the "thread " prefix)."""
    return not row.startswith(("device ", "comm "))

def base_row(name):
    """A track name without its overlap-lane suffix: lanes are drawn on their track's row."""
    return _LANE_RE.sub("", name) if name else name


def parse_name(path):
    """(rank or None, pid, format) of a trace file name, or None when it is not one."""
    m = _FILE_RE.match(os.path.basename(path))
    if not m:
        return None
    return (int(m.group(1)) if m.group(1) is not None else None, int(m.group(2)), m.group(3))


def trace_files(directory):
    """The trace files in DIR grouped by format: {fmt: [paths]} (json.gz counted as json)."""
    out = {}
    for path in sorted(glob.glob(os.path.join(directory, "trace.*"))):
        parsed = parse_name(path)
        if parsed is None:
            continue
        fmt = "json" if parsed[2] == "json.gz" else parsed[2]
        out.setdefault(fmt, []).append(path)
    return out


def read_meta(directory):
    path = os.path.join(directory, "meta.json")
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            meta = json.load(f)
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(meta, dict):
        return {}
    if not (isinstance(meta.get("command"), list) and all(isinstance(c, str) for c in meta["command"])):
        meta.pop("command", None)
    if not isinstance(meta.get("host"), str):
        meta.pop("host", None)
    return meta


class Run:
    """Every process of one or more trace directories."""

    def __init__(self, processes, directories, warnings=()):
        self.processes = sorted(processes, key=Process.sort_key)
        self.directories = list(directories)
        self.warnings = list(warnings)

    def span(self, cats=None):
        """(first start, last end) over the slices of the given categories (all when None)."""
        lo = hi = None
        for p in self.processes:
            c = p.cols
            m = c.mask(*cats) if cats is not None else slice(None)
            starts, ends = c.start[m], c.end[m]
            if len(starts):
                a, b = int(starts.min()), int(ends.max())
                lo = a if lo is None or a < lo else lo
                hi = b if hi is None or b > hi else hi
        return lo, hi


class NoTraceError(Exception):
    """A directory holds no trace file."""


def load_dir(directory, fmt=None, records=True):
    """Reads every trace file in DIR into a :class:`Run`. With several formats in one DIR (two
    runs into one folder) the first of pftrace, sqlite, json is read, and a warning says so.
    With records=False, pftrace and JSON files are only listed (rank and pid from their names)."""
    from . import readers
    found = trace_files(directory)
    if not os.path.isdir(directory):
        raise NoTraceError(f"{directory}: not a directory")
    if fmt is not None:
        fmt = "json" if fmt == "json.gz" else fmt
        found = {fmt: found.get(fmt, [])}
    chosen = next((f for f in ("pftrace", "sqlite", "json") if found.get(f)), None)
    if chosen is None:
        raise NoTraceError(f"{directory}: no trace.*.pftrace, .json, .json.gz or .sqlite file")
    warnings = []
    others = [f for f in found if f != chosen and found[f]]
    if others:
        warnings.append(f"{directory}: also holds {', '.join(others)} files; reading the {chosen} files only")
    meta = read_meta(directory)
    if records or chosen == "sqlite":
        processes = _read_all(readers.read, found[chosen], threads=chosen == "pftrace" and readers.native())
    else:
        processes = [Process(p, parse_name(p)[2], parse_name(p)[1], parse_name(p)[0]) for p in found[chosen]]
    for p in processes:
        if p.host is None:
            p.host = meta.get("host")
        for w in p.warnings:  # damaged files: said once on stderr, and kept for the reports
            print(f"mspti-trace: warning: {w}", file=sys.stderr)
            warnings.append(w)
    return Run(processes, [directory], warnings)


def _read_all(read, paths, threads=False):
    """Reads the files in parallel (one worker per CPU) when there are several: threads for the
    native pftrace decoder (it runs without the GIL, and its columns need no copying back),
    processes for the Python readers; serially where a pool cannot be made."""
    workers = min(len(paths), os.cpu_count() or 1)
    if workers > 1:
        import concurrent.futures
        if threads:
            with concurrent.futures.ThreadPoolExecutor(workers) as ex:
                return list(ex.map(read, paths))
        import multiprocessing
        try:
            with concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as ex:
                return list(ex.map(read, paths))
        except (OSError, concurrent.futures.process.BrokenProcessPool):
            pass
    return [read(p) for p in paths]
