"""The SQLite reader: the writer's tables (docs/trace.md), read up to the first damaged page or row."""

import re
import sqlite3

from . import pftrace_reader
from ._trace_schema import select as _select
from .model import MARKER, Slice
from .reader_common import LOST_KEY

_SYNC_STREAM = 0xFFFFFFFF
_MEMCPY_NAMES = {0: "Memcpy Unknown", 1: "Memcpy HtoH", 2: "Memcpy HtoD", 3: "Memcpy DtoH",
                 4: "Memcpy DtoD", 5: "Memcpy Default"}
_API_KINDS = {3: "api", 10: "acl_api", 11: "node_api", 12: "runtime_api"}


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
