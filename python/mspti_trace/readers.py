"""One reader per trace format (docs/trace.md), each filling a :class:`model.Process`.

Rows are named the same whatever the format: ``device D · stream S``, ``comm NAME`` and
``thread NAME`` (overlap lanes folded onto their track's row).
"""

import sqlite3

from . import pftrace_reader
from .model import (API_CATEGORIES, COLLECTIVE_CATEGORIES, MARKER, Process, Slice, base_row,
                    parse_name)

STATS_EVENT = "mspti-trace stats"
NO_END = " (no end)"
_SYNC_STREAM = 0xFFFFFFFF
_MEMCPY_NAMES = {0: "Memcpy Unknown", 1: "Memcpy HtoH", 2: "Memcpy HtoD", 3: "Memcpy DtoH",
                 4: "Memcpy DtoD", 5: "Memcpy Default"}
_API_KINDS = {3: "api", 10: "acl_api", 11: "node_api", 12: "runtime_api"}


def read(path):
    parsed = parse_name(path)
    if parsed is None:
        raise ValueError(f"{path}: not a trace.[rankR.]pidP.<pftrace|json|json.gz|sqlite> file")
    rank, pid, fmt = parsed
    proc = Process(path, fmt, pid, rank)
    if fmt == "pftrace":
        read_pftrace(path, proc)
    elif fmt in ("json", "json.gz"):
        read_json(path, proc)
    else:
        read_sqlite(path, proc)
    return proc


def _stats(proc, args):
    """The final 'mspti-trace stats' arguments: dropped.K, produced.K, delivered.K, filtered."""
    for key, value in args.items():
        if key == "filtered":
            proc.filtered = int(value)
            continue
        what, _, kind = key.partition(".")
        if what in ("dropped", "produced", "delivered") and kind:
            proc.stats.setdefault(kind, {"produced": 0, "delivered": 0, "dropped": 0})[what] = int(value)


def _slice(proc, name, cat, start, end, row, args):
    comm = None
    if cat in COLLECTIVE_CATEGORIES:
        comm = args.get("comm")
        if comm is None and row.startswith("comm "):
            comm = row[5:]
    bw = args.get("bandwidth_gbps") if cat in COLLECTIVE_CATEGORIES else None
    proc.slices.append(Slice(name, cat, start, end, row, int(args.get("bytes", 0) or 0),
                             float(bw) if bw is not None else None, comm))


def _instant(proc, name, cat, args):
    if name == STATS_EVENT:
        proc.stats.clear()
        _stats(proc, args)
    elif cat == MARKER:
        if name and name.endswith(NO_END):
            proc.unended_ranges += 1
        else:
            proc.marks += 1


# --- pftrace -------------------------------------------------------------------------------

def _pftrace_rows(trace):
    rows = {}
    for uuid, t in trace.tracks.items():
        name = base_row(t["name"] or "")
        if t["kind"] == "thread":
            rows[uuid] = f"thread {name}"
            continue
        parent = trace.tracks.get(t["parent"]) if t["parent"] is not None else None
        if parent is not None and parent["kind"] == "track" and parent["name"]:
            name = f"{parent['name']} \u00b7 {name}"
        rows[uuid] = name
    return rows


def read_pftrace(path, proc):
    trace = pftrace_reader.load_pftrace(path)
    rows = _pftrace_rows(trace)
    for t in trace.tracks.values():
        if t["kind"] == "process" and t["name"] and proc.rank is None and t["name"].startswith("rank "):
            proc.rank = int(t["name"].split()[1])
    slices, _errors = pftrace_reader.slices(trace)  # a cut file leaves open slices: skipped below
    for s in slices:
        if s["end"] is None:
            continue
        cat = s["categories"][0] if s["categories"] else ""
        _slice(proc, s["name"], cat, s["start"], s["end"], rows.get(s["track"], "?"), s["args"])
    dropped_track = {u for u, t in trace.tracks.items() if t["name"] == "dropped records"}
    last_drop = None
    for ev in trace.events:
        if ev["type"] == pftrace_reader.INSTANT:
            _instant(proc, ev["name"], ev["categories"][0] if ev["categories"] else "", ev["args"])
        elif ev["type"] == pftrace_reader.COUNTER and ev["track"] in dropped_track:
            if last_drop is None or ev["ts"] >= last_drop[0]:
                last_drop = (ev["ts"], ev["counter"])
    if last_drop is not None:
        proc.dropped_total = int(last_drop[1])


# --- Chrome JSON ---------------------------------------------------------------------------

def read_json(path, proc):
    doc = pftrace_reader.load_json(path)
    other = doc.get("otherData", {})
    dist = doc.get("distributedInfo", {})
    start_ns = int(other.get("start_ns", 0))
    if proc.rank is None and isinstance(dist.get("rank"), int) and dist["rank"] >= 0:
        proc.rank = dist["rank"]
    proc.world_size = dist.get("world_size")
    events = doc.get("traceEvents", [])
    names = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[e.get("tid")] = e.get("args", {}).get("name", "")
    synthetic = 1 << 30  # stream, communicator and lane tids start here; host threads are below
    last_drop = None
    for e in events:
        ph = e.get("ph")
        if ph == "X":
            tid = e.get("tid")
            name = base_row(names.get(tid, str(tid)))
            row = name if isinstance(tid, int) and tid >= synthetic else f"thread {name}"
            start = start_ns + round(e["ts"] * 1000)
            end = start + round(e.get("dur", 0) * 1000)
            _slice(proc, e.get("name"), e.get("cat", ""), start, end, row, e.get("args", {}))
        elif ph in ("i", "I"):
            _instant(proc, e.get("name"), e.get("cat", ""), e.get("args", {}))
        elif ph == "C" and e.get("name") == "dropped records":
            ts = e.get("ts", 0)
            if last_drop is None or ts >= last_drop[0]:
                last_drop = (ts, e.get("args", {}).get("total", 0))
    if last_drop is not None:
        proc.dropped_total = int(last_drop[1])


# --- SQLite --------------------------------------------------------------------------------

def _stream_row(device, stream):
    s = "sync" if stream == _SYNC_STREAM else stream
    return f"device {device} \u00b7 stream {s}"


def read_sqlite(path, proc):
    db = pftrace_reader.open_sqlite(path)
    try:
        _read_sqlite(db, proc)
    except sqlite3.DatabaseError as e:
        raise ValueError(f"{path}: {e}") from e
    finally:
        db.close()


def _read_sqlite(db, proc):
    meta = dict(db.execute("SELECT key, value FROM meta"))
    if proc.rank is None and meta.get("rank", "") not in ("", "-1"):
        proc.rank = int(meta["rank"])
    proc.host = meta.get("host") or None
    if meta.get("world_size") not in (None, ""):
        proc.world_size = int(meta["world_size"])
    strings = dict(db.execute("SELECT id, value FROM strings"))
    add = proc.slices.append
    for start, end, device, stream, name in db.execute(
            "SELECT start, end, device_id, stream_id, name_id FROM kernel"):
        add(Slice(strings.get(name, "?"), "kernel", start, end, _stream_row(device, stream)))
    for start, end, kind, nbytes, device, stream in db.execute(
            "SELECT start, end, copy_kind, bytes, device_id, stream_id FROM memcpy"):
        add(Slice(_MEMCPY_NAMES.get(kind, "Memcpy Unknown"), "memcpy", start, end, _stream_row(device, stream),
                  nbytes))
    for start, end, nbytes, device, stream in db.execute(
            "SELECT start, end, bytes, device_id, stream_id FROM memset"):
        add(Slice("Memset", "memset", start, end, _stream_row(device, stream), nbytes))
    for start, end, bw, nbytes, name, comm in db.execute(
            "SELECT start, end, bandwidth_gbps, bytes, name_id, comm_id FROM hccl"):
        c = strings.get(comm, "?")
        add(Slice(strings.get(name, "?"), "hccl", start, end, f"comm {c}", nbytes, bw, c))
    for start, end, nbytes, name, comm in db.execute(
            "SELECT start, end, bytes, name_id, comm_id FROM communication"):
        c = strings.get(comm, "?")
        add(Slice(strings.get(name, "?"), "communication", start, end, f"comm {c}", nbytes, None, c))
    for start, end, kind, tid, name in db.execute("SELECT start, end, kind, tid, name_id FROM api"):
        add(Slice(strings.get(name, "?"), _API_KINDS.get(kind, "api"), start, end, f"thread {tid}"))
    for start, end, source, where, stream, name in db.execute(
            "SELECT start, end, source_kind, pid_or_device, tid_or_stream, name_id FROM range"):
        row = _stream_row(where, stream) if source == 1 else f"thread {stream}"
        if end is None:
            proc.unended_ranges += 1
        else:
            add(Slice(strings.get(name, "?"), MARKER, start, end, row))
    # Marks: marker rows that are neither a range's start nor its end (flag 1 = instant).
    proc.marks = db.execute("SELECT COUNT(*) FROM marker WHERE flag IN (1, 8)").fetchone()[0]
    for kind, produced, delivered, dropped in db.execute(
            "SELECT kind, produced, delivered, dropped FROM stats"):
        if kind == "filtered":
            proc.filtered = int(dropped or 0)
        elif kind == "unmatched_ranges":
            proc.unended_ranges = int(dropped or 0)
        else:
            proc.stats[kind] = {"produced": int(produced or 0), "delivered": int(delivered or 0),
                                "dropped": int(dropped or 0)}


__all__ = ["read", "read_pftrace", "read_json", "read_sqlite", "API_CATEGORIES"]
