"""Reads what libmspti_trace.so writes (docs/trace.md).

- :func:`load_pftrace`: a Perfetto ``.pftrace`` (TracePacket stream) decoded with a small
  wire-format reader: tracks, events with interned names resolved, and :func:`slices` to pair
  BEGIN/END per track as Perfetto does.
- :func:`load_json`: the Chrome trace-event JSON (``.json`` or ``.json.gz``), repaired if the
  writer was killed before closing it.
- :func:`open_sqlite`: the SQLite database.

No third-party modules: usable by tests, ``summary``, ``merge`` and ``report`` alike.
"""

import gzip
import json
import sqlite3
from collections import defaultdict

from . import wire
from .text import text as _text

# The wire format (field numbers, varints, fields) is wire's, shared with the analysis reader and merge.
_PACKET = wire.TRACE_PACKET
_TIMESTAMP, _SEQ_ID, _TRACK_EVENT = wire.TIMESTAMP, wire.SEQUENCE_ID, wire.TRACK_EVENT
_INTERNED, _SEQ_FLAGS, _TRACK_DESC = wire.INTERNED_DATA, wire.SEQUENCE_FLAGS, wire.TRACK_DESCRIPTOR
SLICE_BEGIN, SLICE_END, INSTANT, COUNTER = wire.SLICE_BEGIN, wire.SLICE_END, wire.INSTANT, wire.COUNTER
TruncatedError = wire.TruncatedError
_varint = wire.varint
fields = wire.fields


def message(buf):
    """A message as {field: [values]}."""
    out = defaultdict(list)
    for num, _wt, v in fields(buf):
        out[num].append(v)
    return out


_signed = wire.signed


def read_packets(data, strict=False):
    """The TracePacket payloads of a Trace. A file cut short ends at its last whole packet
    (raises TruncatedError instead when strict)."""
    pos, end = 0, len(data)
    packets = []
    while pos < end:
        try:
            key, p = _varint(data, pos)
            n, p = _varint(data, p)
        except TruncatedError:
            if strict:
                raise
            break
        if key != (_PACKET << 3 | 2):
            raise ValueError(f"offset {pos}: not a Trace.packet field (key {key})")
        if p + n > end:
            if strict:
                raise TruncatedError(f"offset {pos}: packet of {n} bytes runs past the end")
            break
        packets.append(bytes(data[p:p + n]))
        pos = p + n
    return packets


class Trace:
    """A decoded .pftrace: ``tracks`` (uuid -> dict) and ``events`` (list of dicts, file order)."""

    def __init__(self):
        self.tracks = {}
        self.events = []
        self.packets = 0
        self.sequences = set()

    def track_name(self, uuid):
        t = self.tracks.get(uuid)
        return t["name"] if t else None

    def children(self, uuid):
        return [u for u, t in self.tracks.items() if t["parent"] == uuid]

    def process_tracks(self):
        return [u for u, t in self.tracks.items() if t["kind"] == "process"]


def _track(desc):
    m = message(desc)
    t = {"uuid": m[1][0], "parent": m[5][0] if 5 in m else None, "name": None, "kind": "track",
         "pid": None, "tid": None, "counter": None}
    if 2 in m:
        t["name"] = _text(m[2][0])
    if 3 in m:
        pd = message(m[3][0])
        t["kind"] = "process"
        t["pid"] = pd[1][0] if 1 in pd else None
        t["name"] = _text(pd[6][0]) if 6 in pd else t["name"]
    if 4 in m:
        th = message(m[4][0])
        t["kind"] = "thread"
        t["pid"] = th[1][0] if 1 in th else None
        t["tid"] = th[2][0] if 2 in th else None
        t["name"] = _text(th[5][0]) if 5 in th else t["name"]
    if 8 in m:
        cd = message(m[8][0])
        t["kind"] = "counter"
        t["counter"] = {"unit": cd[3][0] if 3 in cd else 0}
    return t


def _annotation(buf, names):
    m = message(buf)
    if 1 in m:
        name = names.get(m[1][0])
        if name is None:
            raise ValueError(f"debug annotation name iid {m[1][0]} was never interned")
    else:
        name = _text(m[10][0])
    if 3 in m:
        value = m[3][0]
    elif 4 in m:
        value = _signed(m[4][0])
    elif 5 in m:
        value = wire.double(m[5][0])
    elif 6 in m:
        value = _text(m[6][0])
    elif 2 in m:
        value = bool(m[2][0])
    else:
        value = None
    return name, value


def load_pftrace(path_or_bytes, strict=False):
    """Decodes a .pftrace file (or its bytes). Interned ids are resolved per packet sequence and
    must have been defined on it after SEQ_INCREMENTAL_STATE_CLEARED; a use before is an error."""
    if isinstance(path_or_bytes, (bytes, bytearray)):
        data = path_or_bytes
    else:
        with open(path_or_bytes, "rb") as f:
            data = f.read()
    trace = Trace()
    state = {}  # sequence -> {"names": {}, "cats": {}, "anns": {}, "valid": bool}
    for raw in read_packets(data, strict=strict):
        trace.packets += 1
        p = message(raw)
        seq = p[_SEQ_ID][0] if _SEQ_ID in p else 0
        trace.sequences.add(seq)
        st = state.setdefault(seq, {"names": {}, "cats": {}, "anns": {}, "valid": False})
        flags = p[_SEQ_FLAGS][0] if _SEQ_FLAGS in p else 0
        if flags & 1:
            st.update(names={}, cats={}, anns={}, valid=True)
        for blob in p.get(_INTERNED, []):
            idata = message(blob)
            for num, table in ((2, "names"), (1, "cats"), (3, "anns")):
                for entry in idata.get(num, []):
                    e = message(entry)
                    st[table][e[1][0]] = _text(e[2][0])
        if _TRACK_DESC in p:
            t = _track(p[_TRACK_DESC][0])
            trace.tracks[t["uuid"]] = t
        if _TRACK_EVENT in p:
            if (flags & 2) and not st["valid"]:
                raise ValueError("packet needs incremental state that was never cleared")
            te = message(p[_TRACK_EVENT][0])
            ev = {"ts": p[_TIMESTAMP][0] if _TIMESTAMP in p else None, "seq": seq,
                  "type": te[9][0] if 9 in te else 0, "track": te[11][0] if 11 in te else None,
                  "name": None, "categories": [], "args": {}, "flows": list(te.get(47, [])),
                  "terminating_flows": list(te.get(48, [])), "counter": None}
            if 10 in te:
                ev["name"] = st["names"].get(te[10][0])
                if ev["name"] is None:
                    raise ValueError(f"event name iid {te[10][0]} was never interned")
            elif 23 in te:
                ev["name"] = _text(te[23][0])
            for iid in te.get(3, []):
                if iid not in st["cats"]:
                    raise ValueError(f"category iid {iid} was never interned")
                ev["categories"].append(st["cats"][iid])
            ev["categories"] += [_text(c) for c in te.get(22, [])]
            for blob in te.get(4, []):
                k, v = _annotation(blob, st["anns"])
                ev["args"][k] = v
            if 30 in te:
                ev["counter"] = _signed(te[30][0])
            elif 44 in te:
                ev["counter"] = wire.double(te[44][0])
            trace.events.append(ev)
    return trace


def slices(trace):
    """Pairs BEGIN and END per track the way Perfetto does: events of one track sorted by
    timestamp (file order kept for equal ones), END closing the innermost open slice.

    Returns (slices, errors): slices as dicts {track, name, categories, args, flows, start, end,
    depth}; errors lists every END without a BEGIN and every BEGIN left open."""
    by_track = defaultdict(list)
    for i, ev in enumerate(trace.events):
        if ev["type"] in (SLICE_BEGIN, SLICE_END):
            by_track[ev["track"]].append((ev["ts"], i, ev))
    out, errors = [], []
    for track, evs in by_track.items():
        evs.sort(key=lambda x: (x[0], x[1]))
        stack = []
        for ts, _i, ev in evs:
            if ev["type"] == SLICE_BEGIN:
                s = {"track": track, "name": ev["name"], "categories": ev["categories"], "args": ev["args"],
                     "flows": ev["flows"], "start": ts, "end": None, "depth": len(stack)}
                if stack and stack[-1]["start"] > ts:
                    errors.append(f"track {track}: slice at {ts} begins before its parent")
                stack.append(s)
                out.append(s)
            else:
                if not stack:
                    errors.append(f"track {track}: END at {ts} with no open slice")
                    continue
                s = stack.pop()
                s["end"] = ts
        for s in stack:
            errors.append(f"track {track}: slice {s['name']!r} at {s['start']} never ends")
    return out, errors


def flows(trace):
    """flow id -> list of events carrying it (BEGIN or INSTANT), in timestamp order."""
    out = defaultdict(list)
    for ev in trace.events:
        for f in ev["flows"]:
            out[f].append(ev)
    for evs in out.values():
        evs.sort(key=lambda e: e["ts"])
    return out


def load_json(path):
    """The Chrome trace-event JSON as a dict; a file cut short (killed writer) is closed first."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        try:
            text = _text(f.read())  # bad bytes (a foreign or damaged file) become U+FFFD, counted
        except EOFError:  # gzip stream without its end: read what inflates
            text = None
    if text is None:
        text = _read_partial_gzip(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        cut = text.rstrip()
        if cut.endswith("},"):  # cut between two windows: every event is whole
            return json.loads(cut[:-1] + "]}")
        last = cut.rfind("},\n")  # cut inside an event: drop it
        if last < 0:
            raise
        return json.loads(cut[:last + 1] + "]}")


def _read_partial_gzip(path):
    import zlib
    with open(path, "rb") as f:
        raw = f.read()
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    return _text(d.decompress(raw))


def open_sqlite(path):
    """A read-only connection to a trace database; text that is not valid UTF-8 reads with U+FFFD (counted)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    db.text_factory = _text
    return db
