"""The Chrome trace-event JSON reader (``.json`` and ``.json.gz``): the writer's layout, repaired
when the writer was killed before closing it, and read up to the damage when it is damaged."""

import json
import zlib

from . import pftrace_reader
from .model import base_row
from .reader_common import add_slice, instant, num
from .reader_common import why as _why
from .text import text as _text


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
    start_ns = num(int, other.get("start_ns", 0))
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
        proc.dropped_total = num(int, last_drop[1])


def _json_event(proc, e, names, start_ns, synthetic, last_drop):
    """Adds one trace event to proc; returns the latest 'dropped records' counter point."""
    ph = e.get("ph")
    if ph == "X":
        tid = e.get("tid")
        name = base_row(names.get(tid, str(tid)))
        row = name if isinstance(tid, int) and tid >= synthetic else f"thread {name}"
        start = start_ns + round(e["ts"] * 1000)
        end = start + round(e.get("dur", 0) * 1000)
        add_slice(proc, e.get("name"), e.get("cat", ""), start, end, row, e.get("args", {}))
    elif ph in ("i", "I"):
        instant(proc, e.get("name"), e.get("cat", ""), e.get("args", {}))
    elif ph == "C" and e.get("name") == "dropped records":
        ts = e.get("ts", 0)
        if last_drop is None or ts >= last_drop[0]:
            last_drop = (ts, e.get("args", {}).get("total", 0))
    return last_drop
