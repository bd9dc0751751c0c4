"""``mspti-trace merge DIR [DIR...] -o FILE``: one trace holding every process of a run, on one
clock (docs/trace.md, "Merge").

- pftrace files merge into one ``.pftrace`` (packets copied, timestamps shifted),
- JSON files into one Chrome JSON (``.json``, or ``.json.gz``),
- SQLite databases into one Chrome JSON built from their records.

Processes of one host share the epoch clock and are not shifted. Hosts are aligned on the end
of the first collective of each communicator they share (see :func:`host_offsets`).
"""

import argparse
import gzip
import json
import os
import statistics
import sys
import zlib
from collections import defaultdict, deque

from . import pftrace_reader as pr
from . import wire
from .model import NoTraceError, load_dir, read_meta

_PID_BASE = 1 << 22  # above Linux's largest pid: ids given to a pid that two hosts both used


# --- alignment -----------------------------------------------------------------------------

def host_groups(runs):
    """{host key: [Process]}: the host a file names (SQLite), else its DIR's meta.json "host",
    else the DIR itself (each DIR given without a host is taken as a host of its own)."""
    groups = defaultdict(list)
    for run in runs:
        meta_host = read_meta(run.directories[0]).get("host")
        for p in run.processes:
            groups[p.host or meta_host or f"dir:{os.path.abspath(run.directories[0])}"].append(p)
    return dict(groups)


def host_offsets(groups):
    """{host: ns to add to its timestamps} and warnings.

    Within one host, all processes share the epoch clock. A collective ends at the same instant
    on every rank of its communicator (no rank can finish before the last one has joined), while
    its start differs by each rank's arrival. So per host and communicator E = the median over
    the host's processes of the end of their first collective on it; for two hosts that share
    communicators, the offset is the median over those of E(reference) - E(other). Offsets
    propagate from the host of the lowest rank through hosts that share communicators."""
    if len(groups) <= 1:
        return {h: 0 for h in groups}, []
    ends = {}
    for host, procs in groups.items():
        per_comm = defaultdict(list)
        for p in procs:
            for comm, end in p.first_collective_end().items():
                per_comm[comm].append(end)
        ends[host] = {c: statistics.median(v) for c, v in per_comm.items()}

    def rank_key(host):
        ranks = [p.rank for p in groups[host] if p.rank is not None]
        return (min(ranks) if ranks else float("inf"), host)

    ref = min(groups, key=rank_key)
    offsets = {ref: 0}
    queue = deque([ref])
    while queue:
        a = queue.popleft()
        for b in sorted(groups, key=rank_key):
            if b in offsets:
                continue
            shared = set(ends[a]) & set(ends[b])
            if not shared:
                continue
            delta = statistics.median(ends[a][c] - ends[b][c] for c in shared)
            offsets[b] = offsets[a] + int(round(delta))
            queue.append(b)
    warnings = []
    for h in groups:
        if h not in offsets:
            offsets[h] = 0
            warnings.append(f"host {h} shares no communicator with the others: left unshifted")
    return offsets, warnings


# --- protobuf rewriting --------------------------------------------------------------------

_field = wire.encode_field


def _rewrite(buf, edits):
    """A message with some fields rewritten: edits = {field: fn(value) -> value}."""
    out = bytearray()
    for num, wt, v in pr.fields(buf):
        fn = edits.get(num)
        out += _field(num, wt, fn(v) if fn else v)
    return bytes(out)


class _PacketMapper:
    """Shifts timestamps by `delta` and, when `new_pid` is set, renames the process's sequence,
    track uuids (pid << 32 | n), pids and flow ids (pid << 40 | correlation id)."""

    def __init__(self, delta, old_pid=None, new_pid=None):
        self.delta = delta
        self.old, self.new = old_pid, new_pid

    def uuid(self, u):
        return (self.new << 32) | (u & 0xFFFFFFFF) if self.new is not None and u >> 32 == self.old else u

    def flow(self, f):
        return (self.new << 40) | (f & ((1 << 40) - 1)) if self.new is not None and f >> 40 == self.old else f

    def pid(self, p):
        return self.new if self.new is not None and p == self.old else p

    def packet(self, raw):
        edits = {}
        if self.delta:
            edits[8] = lambda ts: ts + self.delta
        if self.new is not None:
            edits[10] = self.pid
            edits[60] = lambda b: _rewrite(b, {1: self.uuid, 5: self.uuid,
                                               3: lambda m: _rewrite(m, {1: self.pid}),
                                               4: lambda m: _rewrite(m, {1: self.pid})})
            edits[11] = lambda b: _rewrite(b, {11: self.uuid, 47: self.flow, 48: self.flow})
        return _rewrite(raw, edits) if edits else raw


def _pid_plan(processes):
    """{path: (old pid, new pid or None)}: the first file with a pid keeps it."""
    seen, plan, n = set(), {}, 0
    for p in processes:
        if p.pid in seen:
            plan[p.path] = (p.pid, _PID_BASE + n)
            n += 1
        else:
            seen.add(p.pid)
            plan[p.path] = (p.pid, None)
    return plan


_CHUNK = 1 << 22  # bytes read at a time: merge holds a chunk or so per file, whatever the files' size


def _whole_packets(buf, end):
    """(payload spans, where the whole packets end, damaged) of the Trace.packet fields at the
    start of buf[:end]. A packet cut by the end of buf ends the scan (more may follow); a field
    that is not a packet (a damaged file) ends it too, with damaged set."""
    spans = []
    append = spans.append
    pos = 0
    while pos < end:
        if buf[pos] != wire.PACKET_KEY:  # Trace.packet, length-delimited
            return spans, pos, True
        n, p = buf[pos + 1] if pos + 1 < end else 0x80, pos + 2
        if n >= 0x80:  # a packet of 128 bytes or more (or the buffer ends in its length)
            try:
                n, p = wire.varint(buf, pos + 1)
            except wire.TruncatedError:
                return spans, pos, False
            except ValueError:  # longer than 10 bytes
                return spans, pos, True
        if p + n > end:
            return spans, pos, False
        append((p, p + n))
        pos = p + n
    return spans, pos, False


def _copy_packets(src, out, mapper, path, log):
    """Streams src's whole packets to out, rewritten by mapper (copied as they are when it changes
    nothing); stops at a packet cut short or at damage, with a warning. Returns the packet count."""
    identity = not mapper.delta and mapper.new is None
    buf = bytearray()
    done = total = 0
    while True:
        data = src.read(_CHUNK)
        buf += data
        spans, pos, damaged = _whole_packets(buf, len(buf))
        if identity:
            with memoryview(buf) as view:
                out.write(view[:pos])
        else:
            for s, e in spans:
                out.write(_field(1, 2, mapper.packet(bytes(buf[s:e]))))
        total += len(spans)
        done += pos
        del buf[:pos]
        if damaged or not data:
            if buf:
                print(f"mspti-trace merge: warning: {path}: {'damaged' if damaged else 'cut short'} at offset "
                      f"{done}; merged the {total} whole packets before it", file=log)
            return total


def merge_pftrace(processes, shift, out_path, log=sys.stderr):
    """Packets copied file by file, streamed: memory stays a few chunks whatever the sizes."""
    plan = _pid_plan(processes)
    total = 0
    with open(out_path, "wb") as out:
        for p in processes:
            old, new = plan[p.path]
            with open(p.path, "rb") as f:
                total += _copy_packets(f, out, _PacketMapper(shift[p.path], old, new), p.path, log)
    return total


# --- JSON ----------------------------------------------------------------------------------

def _json_events(processes, shift):
    """Every JSON file's events with ts relative to one base (the earliest shifted start)."""
    docs = [(p, pr.load_json(p.path)) for p in processes]
    starts = {p.path: int(d.get("otherData", {}).get("start_ns", 0)) + shift[p.path] for p, d in docs}
    base = min(starts.values())
    plan = _pid_plan(processes)
    events = []
    for p, doc in docs:
        old, new = plan[p.path]
        off_us = (starts[p.path] - base) / 1000.0
        mapper = _PacketMapper(0, old, new)
        for e in doc.get("traceEvents", []):
            e = dict(e)
            if "ts" in e:
                e["ts"] = round(e["ts"] + off_us, 3)
            if new is not None and e.get("pid") == old:
                e["pid"] = new
                if "id" in e and isinstance(e["id"], int):
                    e["id"] = mapper.flow(e["id"])
            events.append(e)
    return base, events


def _model_events(processes, shift):
    """Chrome JSON events built from the model (for SQLite inputs): one pid per process, one tid
    per row, every slice a complete event."""
    base = min((s.start + shift[p.path] for p in processes for s in p.slices), default=0)
    plan = _pid_plan(processes)
    events = []
    for p in processes:
        pid = plan[p.path][1] or p.pid
        events.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                       "args": {"name": f"{p.label} \u00b7 pid {p.pid}"}})
        if p.rank is not None:
            events.append({"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0,
                           "args": {"sort_index": p.rank}})
        tids = {}
        for s in sorted(p.slices, key=lambda s: (s.start, -s.end)):
            tid = tids.get(s.row)
            if tid is None:
                tid = tids[s.row] = len(tids) + 1
                events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": s.row}})
            args = {"bytes": s.bytes} if s.bytes else {}
            if s.comm is not None:
                args.update(comm=s.comm, bandwidth_gbps=round(s.gbps(), 6))
            events.append({"ph": "X", "name": s.name, "cat": s.cat, "pid": pid, "tid": tid,
                           "ts": round((s.start + shift[p.path] - base) / 1000.0, 3),
                           "dur": round(s.dur / 1000.0, 3), "args": args})
    return base, events


def write_json(out_path, base, events, offsets):
    doc = {"displayTimeUnit": "ns",
           "otherData": {"start_ns": base, "format": "mspti-trace merge 1",
                         "host_offsets_ns": offsets},
           "traceEvents": events}
    opener = gzip.open if out_path.endswith(".gz") else open
    with opener(out_path, "wt", encoding="utf-8") as f:
        json.dump(doc, f, separators=(",", ":"))


# --- command -------------------------------------------------------------------------------

def merge(directories, out_path, align=True, log=sys.stderr):
    """Merges the trace files of DIRs into out_path; returns {host: offset ns}."""
    # The records are read only where hosts must be aligned (and for SQLite, merged from them).
    runs = [load_dir(d, records=False) for d in directories]
    for r in runs:
        for w in r.warnings:
            print(f"mspti-trace merge: warning: {w}", file=log)
    formats = {p.format.replace("json.gz", "json") for r in runs for p in r.processes}
    if len(formats) > 1:
        raise ValueError(f"the directories hold different formats ({', '.join(sorted(formats))}); merge one at a time")
    fmt = formats.pop()
    want = {"pftrace": (".pftrace",), "json": (".json", ".json.gz"), "sqlite": (".json", ".json.gz")}[fmt]
    if not out_path.endswith(want):
        raise ValueError(f"{fmt} files merge into a {' or '.join(want)} file, not {out_path}")
    groups = host_groups(runs)
    if align and len(groups) > 1 and fmt != "sqlite":
        runs = [load_dir(d) for d in directories]
        groups = host_groups(runs)
    offsets, warnings = host_offsets(groups) if align else ({h: 0 for h in groups}, [])
    for w in warnings:
        print(f"mspti-trace merge: warning: {w}", file=log)
    shift = {p.path: offsets[h] for h, procs in groups.items() for p in procs}
    processes = sorted((p for procs in groups.values() for p in procs), key=lambda p: p.sort_key())
    if fmt == "pftrace":
        merge_pftrace(processes, shift, out_path, log)
    else:
        base, events = (_json_events if fmt == "json" else _model_events)(processes, shift)
        write_json(out_path, base, events, offsets)
    return offsets


def main(argv):
    p = argparse.ArgumentParser(prog="mspti-trace merge",
                                description="One trace holding every rank of a run, on one clock.")
    p.add_argument("dirs", nargs="+", metavar="DIR", help="trace directories (one per host for multi-host runs)")
    p.add_argument("-o", "--output", required=True, metavar="FILE",
                   help=".pftrace for pftrace files, .json or .json.gz for JSON or SQLite files")
    p.add_argument("--no-align", action="store_true", help="do not shift hosts onto one clock")
    ns = p.parse_args(argv)
    try:
        offsets = merge(ns.dirs, ns.output, align=not ns.no_align)
    except (NoTraceError, ValueError, OSError, EOFError, zlib.error, RecursionError) as e:  # damaged input files
        print(f"mspti-trace merge: {e}", file=sys.stderr)
        return 1
    if len(offsets) > 1:
        for h, off in sorted(offsets.items()):
            print(f"mspti-trace merge: host {h}: shifted by {off} ns", file=sys.stderr)
    print(f"mspti-trace merge: wrote {ns.output}", file=sys.stderr)
    return 0
