"""One reader per trace format (docs/trace.md), each filling a :class:`model.Process`.

Rows are named the same whatever the format: ``device D · stream S``, ``comm NAME`` and
``thread NAME`` (overlap lanes folded onto their track's row).
"""

import json
import operator
import re
import sqlite3
import struct
import zlib

from . import pftrace_reader
from ._trace_schema import select as _select
from .text import text as _text
from .model import (API_CATEGORIES, COLLECTIVE_CATEGORIES, MARKER, Process, Slice, base_row,
                    parse_name)

STATS_EVENT = "mspti-trace stats"
LOST_KEY = "lost_to_write_failures"
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
    try:
        if fmt == "pftrace":
            read_pftrace(path, proc)
        elif fmt in ("json", "json.gz"):
            read_json(path, proc)
        else:
            read_sqlite(path, proc)
    except Exception as e:  # noqa: BLE001 -- a damaged file: keep what was read before, say why, go on
        proc.warnings.append(f"{path}: {_why(e)}; kept what was read before the damage")
    lost = getattr(proc, "write_lost", 0)
    if lost:
        proc.warnings.append(f"{path}: {lost} records were lost to write failures (disk full or I/O errors) "
                             "while tracing; they are counted as dropped")
    _sanitize(proc)
    return proc


def _why(e):
    text = str(e) or type(e).__name__
    return text if isinstance(e, (ValueError, OSError)) else f"{type(e).__name__}: {text}"


def _sanitize(proc):
    """Drops slices whose times are not integers (a NULL or damaged row or event) and makes the
    other fields the types the analysis expects, so that no later step fails on them."""
    good, bad = [], 0
    for s in proc.slices:
        if type(s.start) is not int or type(s.end) is not int:
            bad += 1
            continue
        if not isinstance(s.name, str):
            s.name = "?" if s.name is None else str(s.name)
        if not isinstance(s.cat, str):
            s.cat = str(s.cat)
        if not isinstance(s.row, str):
            s.row = str(s.row)
        if s.comm is not None and not isinstance(s.comm, str):
            s.comm = str(s.comm)
        if type(s.bytes) is not int:
            s.bytes = 0
        if s.bandwidth is not None and not isinstance(s.bandwidth, float):
            s.bandwidth = None
        good.append(s)
    if bad:
        proc.slices = good
        proc.warnings.append(f"{proc.path}: {bad} record(s) without valid times left out")
    if proc.rank is not None and type(proc.rank) is not int:
        proc.rank = None


def _stats(proc, args):
    """The final 'mspti-trace stats' arguments: dropped.K, produced.K, delivered.K, filtered."""
    for key, value in args.items():
        value = _num(int, value)  # a damaged value counts as 0
        if not isinstance(key, str):
            continue
        if key == "filtered":
            proc.filtered = value
            continue
        if key == "per_kind_stats_unavailable":  # libmspti has no msptiExtActivityGetStats
            proc.stats_unavailable = bool(value)
            continue
        if key == LOST_KEY:  # records whose window could not be written (already in dropped.K)
            proc.write_lost = value
            continue
        what, _, kind = key.partition(".")
        if what in ("dropped", "produced", "delivered") and kind:
            proc.stats.setdefault(kind, {"produced": 0, "delivered": 0, "dropped": 0})[what] = value


def _slice(proc, name, cat, start, end, row, args):
    comm = None
    if cat in COLLECTIVE_CATEGORIES:
        comm = args.get("comm")
        if comm is None and row.startswith("comm "):
            comm = row[5:]
    bw = args.get("bandwidth_gbps") if cat in COLLECTIVE_CATEGORIES else None
    proc.slices.append(Slice(name, cat, start, end, row, _num(int, args.get("bytes", 0)), _num(float, bw), comm))


def _num(kind, v):
    """v as int or float; None (or 0 for int) where it is missing or not a number (a damaged file)."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        try:
            return kind(v)
        except (ValueError, OverflowError):
            pass
    return 0 if kind is int else None


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
    """The debug annotations as a dict; a damaged one ends the list (what came before is kept)."""
    args = {}
    try:
        _decode_annotations(blobs, names, args)
    except (ValueError, TypeError, IndexError, struct.error):
        pass
    return args


def _decode_annotations(blobs, names, args):
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
    tracks, events, damage = _scan_pftrace(data)
    if damage is not None:
        proc.warnings.append(f"{path}: damaged at offset {damage[0]} of {len(data)} ({damage[1]}); "
                             "read up to the last good packet")
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
    """(tracks, events, damage) of a .pftrace in one pass over the file, by offsets into it:
    packets and track events are never copied out, and annotations are kept as bytes for
    _annotations. A file cut short ends at its last whole packet; a damaged packet ends the read
    there, and damage is (its offset, why) (else None)."""
    tracks, events, states, uuids, seqs = {}, [], {}, {}, {}
    append = events.append
    slow = _slow_varint
    fast = _FAST_PACKET.match
    pos, end = 0, len(data)
    start = 0  # where the packet being read starts
    try:
        while pos < end:
            start = pos
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
            if te < 0 or ts is None:  # no event, or one without its time (a damaged packet)
                continue
            kind, track, name, cat, counter, anns = _event_fields(
                data, te, te_end, st, uuids, None, None, None, None)
            append((ts, len(events), kind, track, name, cat or "", anns, st[2], counter))
    except IndexError:
        return tracks, events, (start, "a field runs past the end of its message")
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        return tracks, events, (start, str(e) or type(e).__name__)
    return tracks, events, None


_first = operator.itemgetter(0)


def _pftrace_model(proc, tracks, events):
    rows = _pftrace_rows(tracks)
    for t in tracks.values():
        if t["kind"] == "process" and t["name"] and proc.rank is None and t["name"].startswith("rank "):
            word = t["name"].split()[1] if len(t["name"].split()) > 1 else ""
            proc.rank = int(word) if word.isdigit() else None
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

def _inflate(raw):
    """(text, offset of the damage or None) of a gzip stream: what inflates before a damaged block."""
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out, step = [], 512  # small steps: the output of the steps before a damaged one is kept
    for i in range(0, len(raw), step):
        try:
            out.append(d.decompress(raw[i:i + step]))
        except zlib.error:
            return _text(b"".join(out)), i
        if d.eof:
            break
    return _text(b"".join(out)), None


def _salvage_json(path, proc, why):
    """The header and the whole events before the damage of a JSON trace load_json could not
    read (bit flips, a damaged gzip block, nesting too deep): the writer's layout is
    {header..., "traceEvents": [event, event, ...]}."""
    with open(path, "rb") as f:
        raw = f.read()
    text, gz_damage = _inflate(raw) if path.endswith(".gz") else (_text(raw), None)
    key = text.find('"traceEvents"')
    doc = {}
    if key > 0:
        try:
            head = json.loads(text[:key].rstrip().rstrip(",") + "}")
            doc = head if isinstance(head, dict) else {}
        except (ValueError, RecursionError):
            pass
    events, pos = [], text.find("[", key) + 1 if key >= 0 else len(text)
    decoder = json.JSONDecoder()
    while pos > 0:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            break
        try:
            ev, pos = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError):
            break
        events.append(ev)
    doc["traceEvents"] = events
    where = f"compressed offset {gz_damage}" if gz_damage is not None else f"offset {max(pos, 0)}"
    proc.warnings.append(f"{path}: damaged at {where} ({_why(why)}); read the {len(events)} whole events before it")
    return doc


def _dict(v):
    return v if isinstance(v, dict) else {}


def read_json(path, proc):
    try:
        doc = pftrace_reader.load_json(path)
    except (ValueError, OSError, EOFError, zlib.error, RecursionError) as e:
        doc = None
        why = e
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        doc = _salvage_json(path, proc, why if doc is None else ValueError("not a trace-event object"))
    other = _dict(doc.get("otherData"))
    dist = _dict(doc.get("distributedInfo"))
    start_ns = _num(int, other.get("start_ns", 0))
    if proc.rank is None and type(dist.get("rank")) is int and dist["rank"] >= 0:
        proc.rank = dist["rank"]
    proc.world_size = dist.get("world_size") if type(dist.get("world_size")) is int else None
    events = [e for e in doc.get("traceEvents", []) if isinstance(e, dict)]
    names = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[e.get("tid")] = _dict(e.get("args")).get("name", "")
    synthetic = 1 << 30  # stream, communicator and lane tids start here; host threads are below
    last_drop = None
    bad = 0
    for e in events:
        try:
            last_drop = _json_event(proc, e, names, start_ns, synthetic, last_drop)
        except (TypeError, ValueError, AttributeError, KeyError, OverflowError):
            bad += 1  # a damaged event: skipped
    if bad:
        proc.warnings.append(f"{path}: {bad} damaged event(s) skipped")
    if last_drop is not None:
        proc.dropped_total = _num(int, last_drop[1])


def _json_event(proc, e, names, start_ns, synthetic, last_drop):
    """Adds one trace event to proc; returns the latest 'dropped records' counter point."""
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
    return last_drop


# --- SQLite --------------------------------------------------------------------------------

def _stream_row(device, stream):
    s = "sync" if stream == _SYNC_STREAM else stream
    return f"device {device} \u00b7 stream {s}"


class _Rows:
    """The rows of one query, up to the first damaged page or row: the error becomes a warning
    (with the table and how many rows were read) and the rows before it are kept."""

    def __init__(self, safe, sql):
        self._safe, self._sql = safe, sql

    def __iter__(self):
        n = 0
        try:
            for row in self._safe.db.execute(self._sql):
                yield row
                n += 1
        except sqlite3.DatabaseError as e:
            m = re.search(r"\bFROM (\w+)", self._sql)
            self._safe.damaged(m.group(1) if m else "?", n, e)

    def fetchone(self):
        return next(iter(self), None) or (0,)


class _SafeDb:
    """A connection whose queries read up to the damage (see _Rows)."""

    def __init__(self, db, proc):
        self.db, self._proc, self._seen = db, proc, set()

    def execute(self, sql):
        return _Rows(self, sql)

    def damaged(self, table, rows, error):
        """One warning per distinct error (a damaged header fails every table alike)."""
        if str(error) not in self._seen:
            self._seen.add(str(error))
            self._proc.warnings.append(f"{self._proc.path}: table {table} damaged after row {rows} ({error}); "
                                       "read the rows before it")


def read_sqlite(path, proc):
    db = pftrace_reader.open_sqlite(path)
    try:
        _read_sqlite(_SafeDb(db, proc), proc)
    except sqlite3.DatabaseError as e:
        raise ValueError(f"{path}: {e}") from e
    finally:
        db.close()


def _read_sqlite(db, proc):
    meta = dict(db.execute("SELECT key, value FROM meta"))
    if proc.rank is None and str(meta.get("rank", "")).isdigit():
        proc.rank = int(meta["rank"])
    proc.host = meta.get("host") if isinstance(meta.get("host"), str) and meta.get("host") else None
    if str(meta.get("world_size", "")).isdigit():
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
        elif kind == LOST_KEY:
            proc.write_lost = int(dropped or 0)
        else:
            proc.stats[kind] = {"produced": int(produced or 0), "delivered": int(delivered or 0),
                                "dropped": int(dropped or 0)}


__all__ = ["read", "read_pftrace", "read_json", "read_sqlite", "API_CATEGORIES"]
