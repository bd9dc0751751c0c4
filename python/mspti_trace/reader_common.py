"""What the per-format readers share (reader_pftrace, reader_native, reader_json, reader_sqlite):
the writer's special events, the final stats, and the checks that leave no damaged value to
the analysis."""

from .model import COLLECTIVE_CATEGORIES, MARKER, Slice

STATS_EVENT = "mspti-trace stats"
LOST_KEY = "lost_to_write_failures"
NO_END = " (no end)"
_INT64 = 1 << 63


def why(e):
    text = str(e) or type(e).__name__
    return text if isinstance(e, (ValueError, OSError)) else f"{type(e).__name__}: {text}"


def sanitize(proc):
    """Drops slices whose times are not int64 integers (a NULL or damaged row or event) and makes
    the other fields the types the analysis expects, so that no later step fails on them."""
    good, bad = [], 0
    for s in proc.slices:
        if type(s.start) is not int or type(s.end) is not int or not (-_INT64 <= s.start < _INT64) \
                or not (-_INT64 <= s.end < _INT64):
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
        if type(s.bytes) is not int or not (-_INT64 <= s.bytes < _INT64):
            s.bytes = 0
        if s.bandwidth is not None and (not isinstance(s.bandwidth, float) or s.bandwidth != s.bandwidth):
            s.bandwidth = None  # not a number, or NaN (which the columns use for none)
        good.append(s)
    if bad:
        proc.slices = good
        proc.warnings.append(f"{proc.path}: {bad} record(s) without valid times left out")


def sanitize_rank(proc):
    if proc.rank is not None and type(proc.rank) is not int:
        proc.rank = None


def stats(proc, args):
    """The final 'mspti-trace stats' arguments: dropped.K, produced.K, delivered.K, filtered."""
    for key, value in args.items():
        value = num(int, value)  # a damaged value counts as 0
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


def extras(cat, row, args):
    """(bytes, bandwidth, comm) of a slice from its arguments: collectives only."""
    if cat not in COLLECTIVE_CATEGORIES:
        return 0, None, None
    comm = args.get("comm")
    if comm is None and row.startswith("comm "):
        comm = row[5:]
    if comm is not None and not isinstance(comm, str):
        comm = str(comm)
    nbytes = num(int, args.get("bytes", 0))
    bw = num(float, args.get("bandwidth_gbps"))
    return nbytes if -_INT64 <= nbytes < _INT64 else 0, None if bw != bw else bw, comm


def add_slice(proc, name, cat, start, end, row, args):
    comm = None
    if cat in COLLECTIVE_CATEGORIES:
        comm = args.get("comm")
        if comm is None and row.startswith("comm "):
            comm = row[5:]
    bw = args.get("bandwidth_gbps") if cat in COLLECTIVE_CATEGORIES else None
    proc.slices.append(Slice(name, cat, start, end, row, num(int, args.get("bytes", 0)), num(float, bw), comm))


def num(kind, v):
    """v as int or float; None (or 0 for int) where it is missing or not a number (a damaged file)."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        try:
            return kind(v)
        except (ValueError, OverflowError):
            pass
    return 0 if kind is int else None


def instant(proc, name, cat, args):
    if name == STATS_EVENT:
        proc.stats.clear()
        stats(proc, args)
    elif cat == MARKER:
        if name and name.endswith(NO_END):
            proc.unended_ranges += 1
        else:
            proc.marks += 1
