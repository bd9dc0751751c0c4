"""The launch arrows of the report's timeline: per process, each API call that launched device
work and that work, as the trace file joins them (docs/trace.md, "Flows"). The model keeps no
correlation ids, so they are read here from the file again: the pftrace's and the JSON's flows,
SQLite's correlation ids (the same rule as the writer's: from the earliest call with the id, one
arrow to each device record with it). A damaged file gives the arrows read before the damage."""

import sqlite3
import zlib
from collections import defaultdict

from . import pftrace_reader
from .model import API_CATEGORIES, COLLECTIVE_CATEGORIES, DEVICE_CATEGORIES

WORK_CATEGORIES = DEVICE_CATEGORIES + COLLECTIVE_CATEGORIES
_ERRORS = (ValueError, OSError, EOFError, zlib.error, RecursionError, KeyError, TypeError, IndexError,
           sqlite3.DatabaseError)


def launches(proc, limit):
    """[(call start, call name, work start, work category)] of one process, at most `limit`, by
    call start."""
    try:
        if proc.format == "pftrace":
            out = _pftrace(proc.path)
        elif proc.format in ("json", "json.gz"):
            out = _json(proc.path)
        else:
            out = _sqlite(proc.path)
    except _ERRORS:
        return []  # the readers have said what is damaged; no arrows for this file
    out.sort()
    return out[:limit]


def _pftrace(path):
    trace = pftrace_reader.load_pftrace(path)
    out = []
    for evs in pftrace_reader.flows(trace).values():
        begins = [e for e in evs if e["type"] == pftrace_reader.SLICE_BEGIN and e["categories"]]
        # By category, not by time: a synchronous copy's record (timed around the runtime call) starts
        # a little before the call's own report.
        calls = [e for e in begins if e["categories"][0] in API_CATEGORIES]
        works = [e for e in begins if e["categories"][0] in WORK_CATEGORIES]
        if len(begins) == 2 and len(calls) == 1 and len(works) == 1:
            call, work = calls[0], works[0]
            out.append((call["ts"], call["name"], work["ts"], work["categories"][0]))
    return out


def _json(path):
    doc = pftrace_reader.load_json(path)
    start_ns = int(doc.get("otherData", {}).get("start_ns", 0))
    at = defaultdict(list)  # (pid, tid, ts) -> X events starting there
    ends, starts = {}, {}
    for e in doc.get("traceEvents", []):
        ph = e.get("ph")
        if ph == "X":
            at[(e.get("pid"), e.get("tid"), e.get("ts"))].append(e)
        elif ph == "s":
            starts[e.get("id")] = e
        elif ph == "f":
            ends[e.get("id")] = e
    out = []
    for fid, s in starts.items():
        f = ends.get(fid)
        if f is None:
            continue
        calls = [x for x in at[(s.get("pid"), s.get("tid"), s.get("ts"))] if x.get("cat") in API_CATEGORIES]
        work = [x for x in at[(f.get("pid"), f.get("tid"), f.get("ts"))] if x.get("cat") in WORK_CATEGORIES]
        if calls and work and all(type(x.get("ts")) in (int, float) for x in (s, f)):
            out.append((start_ns + round(s["ts"] * 1000), calls[0].get("name"),
                        start_ns + round(f["ts"] * 1000), work[0]["cat"]))
    return out


def _sqlite(path):
    db = pftrace_reader.open_sqlite(path)
    try:
        calls = {}
        for cid, start, end, name in db.execute(
                "SELECT a.correlation_id, a.start, a.end, s.value FROM api a JOIN strings s ON s.id = a.name_id "
                "WHERE a.correlation_id != 0"):
            if not (type(start) is int and type(end) is int):
                continue  # a damaged row (the readers leave it out too)
            c = calls.get(cid)
            if c is None or (start, -end) < (c[0], -c[1]):
                calls[cid] = (start, end, name)
        work = []
        for table, cat in (("kernel", "kernel"), ("memcpy", "memcpy"), ("memset", "memset"),
                           ("communication", "communication")):
            for cid, start in db.execute(f"SELECT correlation_id, start FROM {table} WHERE correlation_id != 0"):
                if type(start) is int and cid in calls:
                    work.append((cid, start, cat))
    finally:
        db.close()
    return [(calls[c][0], calls[c][2], start, cat) for c, start, cat in work]
