"""One reader per trace format (docs/trace.md), each filling a :class:`model.Process`.

Rows are named the same whatever the format: ``device D · stream S``, ``comm NAME`` and
``thread NAME`` (overlap lanes folded onto their track's row).
"""

import operator
import re
import sqlite3
import struct

from . import pftrace_reader
from ._trace_schema import select as _select
from .text import text as _text
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
        if key == "per_kind_stats_unavailable":  # libmspti has no msptiExtActivityGetStats
            proc.stats_unavailable = bool(int(value))
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
# A decoder for the analysis only (pftrace_reader is the general one): fields are read in one
# flat loop, and debug annotations are decoded only where the model uses them (collectives,
# stats), which makes reading several times faster.

def _slow_varint(buf, pos):
    result = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def _msg(buf):
    """[(field, value)] of one message: ints for varint/fixed fields, bytes for the others."""
    out = []
    pos, n = 0, len(buf)
    try:
        while pos < n:
            key = buf[pos]
            pos += 1
            if key >= 0x80:
                key, pos = _slow_varint(buf, pos - 1)
            wt = key & 7
            if wt == 0:
                v = buf[pos]
                pos += 1
                if v >= 0x80:
                    v, pos = _slow_varint(buf, pos - 1)
            elif wt == 2:
                ln = buf[pos]
                pos += 1
                if ln >= 0x80:
                    ln, pos = _slow_varint(buf, pos - 1)
                if pos + ln > n:
                    raise ValueError("length-delimited field runs past the end")
                v = buf[pos:pos + ln]
                pos += ln
            elif wt == 1:
                v = int.from_bytes(buf[pos:pos + 8], "little")
                pos += 8
            elif wt == 5:
                v = int.from_bytes(buf[pos:pos + 4], "little")
                pos += 4
            else:
                raise ValueError(f"wire type {wt} not supported")
            out.append((key >> 3, v))
    except IndexError:
        raise ValueError("field runs past the end of its message") from None
    return out


def _annotations(blobs, names):
    args = {}
    for blob in blobs:
        name = value = None
        for num, v in _msg(blob):
            if num == 1:
                name = names.get(v)
            elif num == 10:
                name = _text(v)
            elif num in (3, 4):
                value = v - (1 << 64) if num == 4 and v >= 1 << 63 else v
            elif num == 5:
                value = struct.unpack("<d", struct.pack("<Q", v))[0]
            elif num == 6:
                value = _text(v)
        if name is not None:
            args[name] = value
    return args


_DETAILED = set(COLLECTIVE_CATEGORIES) | {MARKER, "mspti-trace"}


def _pftrace_tracks(desc, tracks):
    t = {"parent": None, "name": None, "kind": "track"}
    uuid = None
    for num, v in _msg(desc):
        if num == 1:
            uuid = v
        elif num == 5:
            t["parent"] = v
        elif num == 2:
            t["name"] = _text(v)
        elif num in (3, 4):  # process (name 6) or thread (name 5) descriptor
            t["kind"] = "process" if num == 3 else "thread"
            for n2, v2 in _msg(v):
                if (num == 3 and n2 == 6) or (num == 4 and n2 == 5):
                    t["name"] = _text(v2)
    if uuid is not None:
        tracks[uuid] = t


def _pftrace_rows(tracks):
    rows = {}
    for uuid, t in tracks.items():
        name = base_row(t["name"] or "")
        if t["kind"] == "thread":
            rows[uuid] = f"thread {name}"
            continue
        parent = tracks.get(t["parent"]) if t["parent"] is not None else None
        if parent is not None and parent["kind"] == "track" and parent["name"]:
            name = f"{parent['name']} \u00b7 {name}"
        rows[uuid] = name
    return rows


def read_pftrace(path, proc):
    with open(path, "rb") as f:
        data = f.read()
    tracks, events = _scan_pftrace(data)
    _pftrace_model(proc, tracks, events)


_VARINT = re.compile(rb"[\x80-\xff]{0,9}[\x00-\x7f]")
# The head of the packets the writer writes most: TracePacket {timestamp, sequence id, flags,
# track_event {type, track_uuid, ...}}, each group a varint (lengths of at most two bytes).
_FAST_PACKET = re.compile(
    rb"\x0a([\x80-\xff]?[\x00-\x7f])"  # Trace.packet, its length
    rb"\x40([\x80-\xff]{0,9}[\x00-\x7f])"  # timestamp
    rb"\x50([\x80-\xff]{0,4}[\x00-\x7f])"  # trusted_packet_sequence_id
    rb"\x68([\x00-\x7f])"  # sequence_flags
    rb"\x5a([\x80-\xff]?[\x00-\x7f])"  # track_event, its length
    rb"\x48([\x00-\x7f])"  # type
    rb"\x58([\x80-\xff]{0,9}[\x00-\x7f])"  # track_uuid
    rb"(?:\x50([\x00-\x7f]))?(?:\x18([\x00-\x7f]))?")  # name_iid, category_iids, when under 128


def _event_fields(data, p, te_end, st, uuids, kind, track, name, cat):
    """(kind, track, name, cat, counter, annotations) of the TrackEvent in data[p:te_end], given
    what the packet's head already read. The writer's common fields come first, read without a
    call; annotations are kept as bytes for _annotations."""
    slow = _slow_varint
    counter = None
    anns = []
    while p < te_end:
        key = data[p]
        p += 1
        if key == 0x22 and data[p] < 0x80:  # a debug annotation under 128 bytes
            q = p + 1 + data[p]
            if q > te_end:
                raise ValueError("length-delimited field runs past the end")
            anns.append(data[p + 1:q])
            p = q
            continue
        if key == 0xF9 and data[p] == 0x02:  # flow_ids (47), a fixed64: skipped
            p += 9
            continue
        if key >= 0x80:
            key, p = slow(data, p - 1)
        wt = key & 7
        if key == 0x58:  # track_uuid: a long varint, one of a few: decoded once each
            m = _VARINT.match(data, p)
            q = m.end() if m is not None else p  # no end in 10 bytes: slow() says why
            v = uuids.get(data[p:q])
            if v is None:
                v, q = slow(data, p)
                uuids[data[p:q]] = v
            p = q
            track = v
        elif wt == 0:
            v = data[p]
            p += 1
            if v >= 0x80:
                v, p = slow(data, p - 1)
            key >>= 3
            if key == 10:
                name = st[0].get(v)
            elif key == 3:
                if not cat:
                    cat = st[1].get(v)
            elif key == 9:
                kind = v
            elif key == 11:
                track = v
            elif key == 30:
                counter = v - (1 << 64) if v >= 1 << 63 else v
        elif wt == 2:
            ln = data[p]
            p += 1
            if ln >= 0x80:
                ln, p = slow(data, p - 1)
            q = p + ln
            if q > te_end:
                raise ValueError("length-delimited field runs past the end")
            key >>= 3
            if key == 4:
                anns.append(data[p:q])
            elif key == 23:
                name = _text(data[p:q])
            elif key == 22:
                if not cat:
                    cat = _text(data[p:q])
            p = q
        elif wt == 1:
            p += 8
        elif wt == 5:
            p += 4
        else:
            raise ValueError(f"wire type {wt} not supported")
    if p > te_end:
        raise ValueError("field runs past the end of its message")
    return kind, track, name, cat, counter, anns


def _scan_pftrace(data):
    """(tracks, events) of a .pftrace in one pass over the file, by offsets into it: packets and
    track events are never copied out, and annotations are kept as bytes for _annotations.
    A file cut short ends at its last whole packet."""
    tracks, events, states, uuids, seqs = {}, [], {}, {}, {}
    append = events.append
    slow = _slow_varint
    fast = _FAST_PACKET.match
    pos, end = 0, len(data)
    try:
        while pos < end:
            m = fast(data, pos)
            if m is not None:
                # The writer's common packet, its head read by one match: the track event is the
                # packet's last field, and nothing is interned or described in it.
                n_b, ts_b, seq_b, flags_b, te_b, type_b, uuid_b, name_b, cat_b = m.groups()
                n = n_b[0] if len(n_b) == 1 else (n_b[0] & 0x7F) | (n_b[1] << 7)
                te_n = te_b[0] if len(te_b) == 1 else (te_b[0] & 0x7F) | (te_b[1] << 7)
                pend = pos + 1 + len(n_b) + n
                te_end = m.end(5) + te_n
                if te_end == pend:
                    if pend > end:
                        break
                    pos = pend
                    ts = 0
                    shift = 0
                    for b in ts_b:
                        ts |= (b & 0x7F) << shift
                        shift += 7
                    seq = seqs.get(seq_b)
                    if seq is None:
                        seq = seqs[seq_b] = slow(seq_b, 0)[0]
                    flags = flags_b[0]
                    track = uuids.get(uuid_b)
                    if track is None:
                        track = uuids[uuid_b] = slow(uuid_b, 0)[0]
                    kind = type_b[0]
                    st = states.get(seq)
                    if st is None or flags & 1:
                        st = states[seq] = ({}, {}, {})  # names, categories, annotation names
                    name = st[0].get(name_b[0]) if name_b is not None else None
                    cat = st[1].get(cat_b[0]) if cat_b is not None else None
                    kind, track, name, cat, counter, anns = _event_fields(
                        data, m.end(), te_end, st, uuids, kind, track, name, cat)
                    append((ts, len(events), kind, track, name, cat or "", anns, st[2], counter))
                    continue
            p = pos
            try:  # Trace.packet: its key and length
                key = data[p]
                p += 1
                if key >= 0x80:
                    key, p = slow(data, p - 1)
                n = data[p]
                p += 1
                if n >= 0x80:
                    n, p = slow(data, p - 1)
            except IndexError:
                break
            if key != 0x0A:
                raise ValueError(f"offset {pos}: not a Trace.packet field (key {key})")
            pend = p + n
            if pend > end:
                break
            pos = pend
            ts = None
            seq = flags = 0
            te = -1
            interned = desc = None
            while p < pend:
                key = data[p]
                p += 1
                if key >= 0x80:
                    key, p = slow(data, p - 1)
                wt = key & 7
                if key == 0x40:  # timestamp: a long varint in every packet, decoded here
                    v = data[p]
                    p += 1
                    if v >= 0x80:
                        v &= 0x7F
                        shift = 7
                        while True:
                            b = data[p]
                            p += 1
                            v |= (b & 0x7F) << shift
                            if b < 0x80:
                                break
                            shift += 7
                    ts = v
                elif wt == 0:
                    v = data[p]
                    p += 1
                    if v >= 0x80:
                        v, p = slow(data, p - 1)
                    key >>= 3
                    if key == 10:
                        seq = v
                    elif key == 13:
                        flags = v
                elif wt == 2:
                    ln = data[p]
                    p += 1
                    if ln >= 0x80:
                        ln, p = slow(data, p - 1)
                    q = p + ln
                    if q > pend:
                        raise ValueError("length-delimited field runs past the end")
                    key >>= 3
                    if key == 11:
                        te, te_end = p, q
                    elif key == 12:
                        interned = (interned or []) + [data[p:q]]
                    elif key == 60:
                        desc = data[p:q]
                    p = q
                elif wt == 1:
                    p += 8
                elif wt == 5:
                    p += 4
                else:
                    raise ValueError(f"wire type {wt} not supported")
            if p > pend:
                raise ValueError("field runs past the end of its message")
            st = states.get(seq)
            if st is None or flags & 1:
                st = states[seq] = ({}, {}, {})  # names, categories, annotation names
            if interned is not None:
                for blob in interned:
                    for num, entry in _msg(blob):
                        if num in (1, 2, 3):
                            iid = name = None
                            for n2, v2 in _msg(entry):
                                if n2 == 1:
                                    iid = v2
                                elif n2 == 2:
                                    name = _text(v2)
                            st[{2: 0, 1: 1, 3: 2}[num]][iid] = name
            if desc is not None:
                _pftrace_tracks(desc, tracks)
            if te < 0:
                continue
            kind, track, name, cat, counter, anns = _event_fields(
                data, te, te_end, st, uuids, None, None, None, None)
            append((ts, len(events), kind, track, name, cat or "", anns, st[2], counter))
    except IndexError:
        raise ValueError("field runs past the end of its message") from None
    return tracks, events


_first = operator.itemgetter(0)


def _pftrace_model(proc, tracks, events):
    rows = _pftrace_rows(tracks)
    for t in tracks.values():
        if t["kind"] == "process" and t["name"] and proc.rank is None and t["name"].startswith("rank "):
            proc.rank = int(t["name"].split()[1])
    # BEGIN/END paired per track as Perfetto does: by timestamp, file order for equal ones.
    by_track = {}
    last_drop = None
    dropped_tracks = {u for u, t in tracks.items() if t["name"] == "dropped records"}
    for ev in events:
        kind = ev[2]
        if kind in (pftrace_reader.SLICE_BEGIN, pftrace_reader.SLICE_END):
            by_track.setdefault(ev[3], []).append(ev)
        elif kind == pftrace_reader.INSTANT:
            args = _annotations(ev[6], ev[7]) if ev[5] in _DETAILED or ev[4] == STATS_EVENT else {}
            _instant(proc, ev[4], ev[5], args)
        elif kind == pftrace_reader.COUNTER and ev[3] in dropped_tracks and ev[8] is not None:
            if last_drop is None or ev[0] >= last_drop[0]:
                last_drop = (ev[0], ev[8])
    if last_drop is not None:
        proc.dropped_total = int(last_drop[1])
    for track, evs in by_track.items():
        evs.sort(key=_first)  # stable: file order for equal timestamps
        row = rows.get(track, "?")
        stack = []
        for ev in evs:
            if ev[2] == pftrace_reader.SLICE_BEGIN:
                stack.append(ev)
            elif stack:  # an END without BEGIN (a damaged file) is skipped
                b = stack.pop()
                args = _annotations(b[6], b[7]) if b[5] in COLLECTIVE_CATEGORIES else {}
                _slice(proc, b[4], b[5], b[0], ev[0], row, args)
        # slices still open (a file cut short) are left out


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
            _select("kernel", "start", "end", "device_id", "stream_id", "name_id")):
        add(Slice(strings.get(name, "?"), "kernel", start, end, _stream_row(device, stream)))
    for start, end, kind, nbytes, device, stream in db.execute(
            _select("memcpy", "start", "end", "copy_kind", "bytes", "device_id", "stream_id")):
        add(Slice(_MEMCPY_NAMES.get(kind, "Memcpy Unknown"), "memcpy", start, end, _stream_row(device, stream),
                  nbytes))
    for start, end, nbytes, device, stream in db.execute(
            _select("memset", "start", "end", "bytes", "device_id", "stream_id")):
        add(Slice("Memset", "memset", start, end, _stream_row(device, stream), nbytes))
    for start, end, bw, nbytes, name, comm in db.execute(
            _select("hccl", "start", "end", "bandwidth_gbps", "bytes", "name_id", "comm_id")):
        c = strings.get(comm, "?")
        add(Slice(strings.get(name, "?"), "hccl", start, end, f"comm {c}", nbytes, bw, c))
    for start, end, nbytes, name, comm in db.execute(
            _select("communication", "start", "end", "bytes", "name_id", "comm_id")):
        c = strings.get(comm, "?")
        add(Slice(strings.get(name, "?"), "communication", start, end, f"comm {c}", nbytes, None, c))
    for start, end, kind, tid, name in db.execute(
            _select("api", "start", "end", "kind", "tid", "name_id")):
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
        elif kind == "per_kind_stats_unavailable":
            proc.stats_unavailable = bool(dropped)
        else:
            proc.stats[kind] = {"produced": int(produced or 0), "delivered": int(delivered or 0),
                                "dropped": int(dropped or 0)}


__all__ = ["read", "read_pftrace", "read_json", "read_sqlite", "API_CATEGORIES"]
