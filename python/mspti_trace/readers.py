"""One reader per trace format (docs/trace.md), each filling a :class:`model.Process`:
pftrace with the native decoder (reader_native) where its library is found, else in Python
(reader_pftrace); Chrome JSON (reader_json); SQLite (reader_sqlite).

Rows are named the same whatever the format: ``device D · stream S``, ``comm NAME`` and
``thread NAME`` (overlap lanes folded onto their track's row).
"""

from . import reader_native
from .model import API_CATEGORIES, Process, parse_name
from .reader_common import LOST_KEY, NO_END, STATS_EVENT, sanitize, sanitize_rank, why
from .reader_pftrace import read_pftrace as read_pftrace_python


def read_json(path, proc):
    """reader_json's (imported on first use: json and zlib are not needed for pftrace)."""
    from .reader_json import read_json as read
    read(path, proc)


def read_sqlite(path, proc):
    """reader_sqlite's (imported on first use: sqlite3 is not needed for pftrace)."""
    from .reader_sqlite import read_sqlite as read
    read(path, proc)


def native():
    """Whether pftrace files are read with the native decoder."""
    return reader_native.available()


def read_pftrace(path, proc):
    """The native decoder where it is found (and MSPTI_TRACE_READER is not 'python'), else Python's."""
    if reader_native.available():
        reader_native.read_pftrace(path, proc)
    else:
        read_pftrace_python(path, proc)


def read(path, native=None):
    """The Process of one trace file. native: True or False to choose the pftrace reader (None:
    the native one where available)."""
    parsed = parse_name(path)
    if parsed is None:
        raise ValueError(f"{path}: not a trace.[rankR.]pidP.<pftrace|json|json.gz|sqlite> file")
    rank, pid, fmt = parsed
    proc = Process(path, fmt, pid, rank)
    try:
        if fmt == "pftrace":
            if native is None:
                read_pftrace(path, proc)
            elif native:
                reader_native.read_pftrace(path, proc)
            else:
                read_pftrace_python(path, proc)
        elif fmt in ("json", "json.gz"):
            read_json(path, proc)
        else:
            read_sqlite(path, proc)
    except Exception as e:  # noqa: BLE001 -- a damaged file: keep what was read before, say why, go on
        proc.warnings.append(f"{path}: {why(e)}; kept what was read before the damage")
    lost = getattr(proc, "write_lost", 0)
    if lost:
        proc.warnings.append(f"{path}: {lost} records were lost to write failures (disk full or I/O errors) "
                             "while tracing; they are counted as dropped")
    if proc.has_objects():
        sanitize(proc)
    sanitize_rank(proc)
    proc.freeze()
    return proc


__all__ = ["read", "read_pftrace", "read_json", "read_sqlite", "API_CATEGORIES", "STATS_EVENT", "LOST_KEY",
           "NO_END"]
