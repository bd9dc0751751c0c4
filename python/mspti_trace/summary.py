"""``mspti-trace summary DIR``: the summary tables of a run, for every rank together and for each
rank apart, printed and saved as ``summary.txt`` and ``summary.csv`` in DIR (docs/trace.md,
"Summary"). The launcher calls :func:`end_of_run` after the program ends.
"""

import argparse
import csv
import io
import os
import sys
from collections import defaultdict

import numpy as np

from . import columns
from .model import API_CATEGORIES, COLLECTIVE_CATEGORIES, KERNEL, MARKER, NoTraceError, host_row, load_dir

CSV_COLUMNS = ("scope", "section", "name", "kind", "count", "total_ns", "avg_ns", "min_ns", "max_ns",
               "percent", "bandwidth_gbps", "slowest_rank_gbps", "slowest_rank", "produced", "delivered",
               "dropped")


class Stat:
    __slots__ = ("count", "total", "lo", "hi", "bytes")

    def __init__(self):
        self.count = self.total = self.bytes = 0
        self.lo = self.hi = None

    def add(self, dur, nbytes=0):
        self.count += 1
        self.total += dur
        self.bytes += nbytes
        self.lo = dur if self.lo is None or dur < self.lo else self.lo
        self.hi = dur if self.hi is None or dur > self.hi else self.hi

    @property
    def avg(self):
        return self.total / self.count if self.count else 0.0

    def gbps(self):
        return self.bytes / self.total if self.total > 0 else 0.0


def unique_apis(processes):
    """The API call slices, each call once: msPTI reports an operator call as both an API and a
    NODE_API record (same name and times); the NODE_API one stays. The objects of ``p.slices``
    (the report picks them by identity); summary itself uses _api_mask."""
    for p in processes:
        node = {(s.name, s.start, s.end) for s in p.slices if s.cat == "node_api"}
        for s in p.slices:
            if s.cat in API_CATEGORIES and not (s.cat == "api" and (s.name, s.start, s.end) in node):
                yield s


def _api_mask(c, native=None):
    """Which slices of a process's columns are API calls, each call once (see unique_apis): in C++
    where the decoder's library is found (native None or True), else with numpy (the reference)."""
    m = c.mask(*API_CATEGORIES)
    api_code, node_code = c.code("api"), c.code("node_api")
    if api_code < 0 or node_code < 0:
        return m
    if native is not False:
        from . import reader_native
        lib = reader_native.library()
        if lib is not None:
            arrays = [np.ascontiguousarray(x, t) for x, t in ((c.cat, np.int32), (c.name, np.int32),
                                                              (c.start, np.int64), (c.end, np.int64))]
            if lib.mspti_pft_drop_twins(len(c), *[x.ctypes.data for x in arrays], node_code, api_code,
                                        m.ctypes.data) >= 0:
                return m
    api, node = np.flatnonzero(c.mask("api")), np.flatnonzero(c.mask("node_api"))
    if len(api) and len(node):
        idx = np.concatenate((node, api))
        tag = np.concatenate((np.zeros(len(node), np.int8), np.ones(len(api), np.int8)))
        name, start, end = c.name[idx], c.start[idx], c.end[idx]
        order = np.lexsort((tag, end, start, name))  # equal calls together, the NODE_API one first
        name, start, end, tag, idx = name[order], start[order], end[order], tag[order], idx[order]
        new = np.ones(len(idx), bool)
        new[1:] = (name[1:] != name[:-1]) | (start[1:] != start[:-1]) | (end[1:] != end[:-1])
        group = np.cumsum(new) - 1
        has_node = np.zeros(group[-1] + 1, bool)
        has_node[group[tag == 0]] = True
        m[idx[(tag == 1) & has_node[group]]] = False
    return m


def _grouped(processes, pick, key_of, first=None):
    """{key: Stat} over the slices that pick(columns) selects, keyed by key_of(a, name) where a
    is first(columns) -> (a code per slice, code -> a); by default the category. Each process's
    groups are made once (the all-ranks scope and its own reuse them) and merged by key."""
    out = {}
    for p in processes:
        for key, (n, total, lo, hi, nbytes) in _process_groups(p, pick, key_of, first):
            st = out.get(key)
            if st is None:
                st = out[key] = Stat()
                st.count, st.total, st.lo, st.hi, st.bytes = n, total, lo, hi, nbytes
            else:
                st.count += n
                st.total += total
                st.bytes += nbytes
                st.lo, st.hi = min(st.lo, lo), max(st.hi, hi)
    return out


def _process_groups(p, pick, key_of, first):
    """[(key, (count, total, min, max, bytes))] of one process, cached on its columns (which are
    read-only once read) per (pick, key_of, first)."""
    c = p.cols
    cache = c.__dict__.setdefault("_groups", {})
    token = (pick, key_of, first)
    got = cache.get(token)
    if got is None:
        m = pick(c)
        got = []
        if m.any():
            a_codes, a_of = first(c) if first is not None else (c.cat, c.strings.__getitem__)
            st = c.strings
            got = [(key_of(a_of(a), st[b]), rest)
                   for a, b, *rest in columns.group_pairs(a_codes, c.name, c.start, c.end, c.bytes, m)]
            got = [(k, tuple(r)) for k, r in got]
        cache[token] = got
    return got


def _side(c):
    """Per slice 1 on a host row, 0 on a device one; and the side's name."""
    return c.string_mask(host_row)[c.row].astype(np.int32), _side_name


def _side_name(v):
    return "host" if v else "device"


def _collectives(c):
    return c.mask(*COLLECTIVE_CATEGORIES)


# The pick and key functions of each table: module-level, so that _process_groups' cache finds them.
def _kernel_mask(c):
    return c.mask(KERNEL)


def _marker_mask(c):
    return c.mask(MARKER)


def _name_key(_cat, name):
    return name


def _pair_key(a, name):
    return (a, name)


def slow_rank(run):
    """The rank the others wait for at the collectives, as ``analyze`` finds it (label and its
    findings), or None: a balanced run, or no collectives across ranks. Bandwidth alone would name
    a waiting rank (its collectives last longest)."""
    if len(run.processes) < 2:
        return None
    from . import findings
    try:
        f = findings.analyze(run)
    except ValueError as e:  # e.g. a run whose ranks recorded different collectives
        run.warnings.append(f"slow rank not found: {e}")
        return None
    return f["slow_rank"]


def scope_tables(processes, slow=None):
    """The tables of one scope (one process, or all of them): a dict of row lists. `slow`: the
    slow rank's findings (:func:`slow_rank`), named in the collectives table."""
    kernels = _grouped(processes, _kernel_mask, _name_key)
    device_total = sum(st.total for st in kernels.values())
    kernel_rows = [{"name": n, "count": st.count, "total_ns": st.total, "avg_ns": st.avg, "min_ns": st.lo,
                    "max_ns": st.hi, "percent": 100.0 * st.total / device_total if device_total else 0.0}
                   for n, st in kernels.items()]
    kernel_rows.sort(key=lambda r: (-r["total_ns"], r["name"]))

    coll = _grouped(processes, _collectives, _pair_key)
    per_rank = defaultdict(dict)  # (cat, name) -> {label: Stat}
    for p in processes:
        for key, st in _grouped([p], _collectives, _pair_key).items():
            per_rank[key][p.label] = st
    coll_rows = []
    for (cat, name), st in coll.items():
        ranks = per_rank[(cat, name)]
        # The slow rank by waiting (the one the others wait for), with its own bandwidth here.
        mine = ranks.get(slow["rank"]) if slow is not None and len(ranks) > 1 else None
        coll_rows.append({"name": name, "kind": cat, "count": st.count, "total_ns": st.total, "avg_ns": st.avg,
                          "min_ns": st.lo, "max_ns": st.hi, "bandwidth_gbps": st.gbps(),
                          "slowest_rank_gbps": mine.gbps() if mine is not None else "",
                          "slowest_rank": slow["rank"] if mine is not None else ""})
    coll_rows.sort(key=lambda r: (-r["total_ns"], r["kind"], r["name"]))

    # A range's host and device halves share its name: apart, as `kind` host or device.
    ranges = _grouped(processes, _marker_mask, _pair_key, _side)
    range_rows = [{"name": n, "kind": side, "count": st.count, "total_ns": st.total, "avg_ns": st.avg,
                   "min_ns": st.lo, "max_ns": st.hi} for (side, n), st in ranges.items()]
    range_rows.sort(key=lambda r: (-r["total_ns"], r["name"], r["kind"]))

    apis = _grouped(processes, _api_mask, _pair_key)
    api_rows = [{"name": n, "kind": c, "count": st.count, "total_ns": st.total, "avg_ns": st.avg}
                for (c, n), st in apis.items()]
    api_rows.sort(key=lambda r: (-r["total_ns"], r["name"], r["kind"]))

    counters = defaultdict(lambda: {"produced": 0, "delivered": 0, "dropped": 0})
    filtered = unended = 0
    for p in processes:
        for kind, c in p.stats.items():
            for k in ("produced", "delivered", "dropped"):
                counters[kind][k] += c.get(k, 0)
        if not p.stats and p.dropped_total is not None:
            counters["all (no final stats)"]["dropped"] += p.dropped_total
        filtered += p.filtered
        unended += p.unended_ranges
    drop_rows = [{"name": k, **v} for k, v in sorted(counters.items()) if v["produced"] or v["dropped"]]
    return {"kernels": kernel_rows, "collectives": coll_rows, "ranges": range_rows, "apis": api_rows,
            "dropped": drop_rows, "filtered": filtered, "unended_ranges": unended,
            "marks": sum(p.marks for p in processes),
            "missing_stats": [p.label for p in processes if not p.stats and not p.stats_unavailable],
            "stats_unavailable": [p.label for p in processes if p.stats_unavailable]}


def rank_overview(run):
    """One row per process: what the all-ranks table sums up, side by side."""
    rows = []
    for p in run.processes:
        cols = p.cols
        k = cols.mask(KERNEL)
        c = cols.mask("hccl")
        if not c.any():
            c = cols.mask(*COLLECTIVE_CATEGORIES)
        # Sums of Python ints, as exact as the slices' own.
        cbytes = sum(cols.bytes[c].tolist())
        ctime = sum(cols.end[c].tolist()) - sum(cols.start[c].tolist())
        rows.append({"name": p.label, "kind": f"pid {p.pid}", "count": int(k.sum()), "total_ns": int(cols.dur(k).sum()),
                     "collectives": int(c.sum()), "collective_ns": ctime,
                     "bandwidth_gbps": cbytes / ctime if ctime else 0.0,
                     "dropped": sum(p.dropped().values())})
    return rows


# The groups of each table (pick, key_of, first): what scope_tables asks _process_groups for.
_TABLES = ((_kernel_mask, _name_key, None), (_collectives, _pair_key, None), (_marker_mask, _pair_key, _side),
           (_api_mask, _pair_key, None))


def _make_groups(processes):
    for p in processes:
        for pick, key_of, first in _TABLES:
            _process_groups(p, pick, key_of, first)


def summarize(run):
    """[(scope name, tables)] for all ranks together, then each process. The tables' groups are
    made on a second thread while this one finds the slow rank: most of their time is C++, which
    runs without the GIL (the bench's 2-rank trace on 2 CPUs: 176 -> 139 ms, best of 15)."""
    import concurrent.futures
    with concurrent.futures.ThreadPoolExecutor(1) as ex:
        groups = ex.submit(_make_groups, run.processes)
        slow = slow_rank(run)
        groups.result()
    scopes = [("all ranks", scope_tables(run.processes, slow))]
    for p in run.processes:
        scopes.append((f"{p.label} (pid {p.pid})" if p.rank is not None else p.label, scope_tables([p])))
    return scopes


# --- text ----------------------------------------------------------------------------------

def fmt_ns(ns):
    if ns is None:
        return "-"
    ns = float(ns)
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if abs(ns) >= scale:
            return f"{ns / scale:.3f} {unit}"
    return f"{ns:.0f} ns"


def _table(title, header, rows, align, limit=0):
    shown = rows if not limit or len(rows) <= limit else rows[:limit]
    cells = [header] + [[str(c) for c in r] for r in shown]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    out = [title]
    for n, r in enumerate(cells):
        out.append("  " + "  ".join(c.ljust(w) if a == "<" else c.rjust(w) for c, w, a in zip(r, widths, align)))
        if n == 0:
            out.append("  " + "  ".join("-" * w for w in widths))
    if len(shown) < len(rows):
        out.append(f"  ... {len(rows) - len(shown)} more rows in summary.txt / summary.csv")
    return "\n".join(out)


def _short(name, width=60):
    return name if len(name) <= width else name[:width - 1] + "\u2026"


def render_text(run, scopes, limit=0):
    parts = [f"mspti-trace summary: {len(run.processes)} process(es) in {', '.join(run.directories)}"]
    parts += [f"warning: {w}" for w in run.warnings]
    ov = rank_overview(run)
    if len(ov) > 1:
        parts.append(_table("Ranks", ["rank", "pid", "kernels", "kernel time", "collectives", "collective time",
                                      "coll. GB/s", "dropped"],
                            [[r["name"], r["kind"][4:], r["count"], fmt_ns(r["total_ns"]), r["collectives"],
                              fmt_ns(r["collective_ns"]), f"{r['bandwidth_gbps']:.3f}", r["dropped"]] for r in ov],
                            "<>>>>>>>"))
    for scope, t in scopes:
        parts.append(f"==== {scope} ====")
        if t["kernels"]:
            parts.append(_table("Kernels", ["name", "calls", "total", "avg", "min", "max", "% device"],
                                [[_short(r["name"]), r["count"], fmt_ns(r["total_ns"]), fmt_ns(r["avg_ns"]),
                                  fmt_ns(r["min_ns"]), fmt_ns(r["max_ns"]), f"{r['percent']:.1f}"]
                                 for r in t["kernels"]], "<>>>>>>", limit))
        if t["collectives"]:
            parts.append(_table("Collectives", ["name", "kind", "count", "total", "avg", "GB/s", "slowest rank",
                                                "its GB/s"],
                                [[_short(r["name"]), r["kind"], r["count"], fmt_ns(r["total_ns"]), fmt_ns(r["avg_ns"]),
                                  f"{r['bandwidth_gbps']:.3f}", r["slowest_rank"] or "-",
                                  f"{r['slowest_rank_gbps']:.3f}" if r["slowest_rank"] else "-"]
                                 for r in t["collectives"]], "<<>>>><>", limit))
            if scope == "all ranks":
                parts.append("  slowest rank: the rank the others wait for at the collectives, as `mspti-trace "
                             "analyze` finds it (- when none is)")
        if t["ranges"]:
            parts.append(_table("mstx ranges", ["name", "side", "count", "total", "avg"],
                                [[_short(r["name"]), r["kind"], r["count"], fmt_ns(r["total_ns"]), fmt_ns(r["avg_ns"])]
                                 for r in t["ranges"]], "<<>>>", limit))
        if t["apis"]:
            parts.append(_table("API calls", ["name", "kind", "count", "total"],
                                [[_short(r["name"]), r["kind"], r["count"], fmt_ns(r["total_ns"])]
                                 for r in t["apis"]], "<<>>", limit))
        drops = [[r["name"], r["produced"], r["delivered"], r["dropped"]] for r in t["dropped"]]
        drops.append(["(filtered out by --delay/--duration/--capture-range)", "", "", t["filtered"]])
        drops.append(["(ranges without an end)", "", "", t["unended_ranges"]])
        parts.append(_table("Records per kind", ["kind", "produced", "delivered", "dropped"], drops, "<>>>"))
        if t["missing_stats"]:
            parts.append("  no final stats (killed?): " + ", ".join(t["missing_stats"]))
        if t.get("stats_unavailable"):
            parts.append("  records per kind unavailable (libmspti.so has no msptiExtActivityGetStats, as msPTI's "
                         "own): " + ", ".join(t["stats_unavailable"]))
    return "\n\n".join(parts) + "\n"


def render_csv(scopes):
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for scope, t in scopes:
        for section in ("kernels", "collectives", "ranges", "apis", "dropped"):
            for r in t[section]:
                w.writerow({"scope": scope, "section": section, **r})
        w.writerow({"scope": scope, "section": "dropped", "name": "filtered", "dropped": t["filtered"]})
        w.writerow({"scope": scope, "section": "dropped", "name": "unmatched_ranges", "dropped": t["unended_ranges"]})
    return buf.getvalue()


def write(directory, out=sys.stdout, limit=0):
    """Reads DIR, writes summary.txt and summary.csv there and prints the text (rows per table
    limited to `limit` on the terminal; 0: all)."""
    run = load_dir(directory)
    scopes = summarize(run)
    text = render_text(run, scopes)
    with open(os.path.join(directory, "summary.txt"), "w", encoding="utf-8") as f:
        f.write(text)
    with open(os.path.join(directory, "summary.csv"), "w", encoding="utf-8", newline="") as f:
        f.write(render_csv(scopes))
    out.write(render_text(run, scopes, limit) if limit else text)
    out.flush()
    return run


def end_of_run(directory):
    """After `mspti-trace -- PROGRAM`: the summary on stderr (the program's stdout stays its own)."""
    try:
        write(directory, out=sys.stderr, limit=15)
    except NoTraceError:
        print("mspti-trace: no process recorded anything (no trace file); no summary", file=sys.stderr)
        return
    print(f"mspti-trace: summary saved as {os.path.join(directory, 'summary.txt')} and summary.csv",
          file=sys.stderr)


def main(argv):
    p = argparse.ArgumentParser(prog="mspti-trace summary",
                                description="Summary tables of a trace directory (every format).")
    p.add_argument("dir", metavar="DIR")
    p.add_argument("--top", type=int, default=0, metavar="N", help="print at most N rows per table (files hold all)")
    ns = p.parse_args(argv)
    try:
        write(ns.dir, limit=max(ns.top, 0))
    except (NoTraceError, ValueError, OSError) as e:
        print(f"mspti-trace summary: {e}", file=sys.stderr)
        return 1
    return 0
