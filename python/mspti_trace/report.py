"""``mspti-trace report DIR -o report.html``: one self-contained HTML page (no network: every
script and style inline, a Content-Security-Policy that forbids loading anything) with

- a zoomable timeline, per rank: host threads with their nested, labelled mstx ranges and API
  calls, device streams with kernels and copies, communicators with collectives, and an arrow
  from each launching call to the device work it launched,
- a stacked bar per rank of kernel, communication, copy and idle time,
- the top kernels by total time,
- the verdict of ``mspti-trace analyze`` (slow rank, its phase, slow links),
- collective bandwidth per rank, the slow rank and slow links badged,
- the records dropped per process.

The page checks itself once drawn and writes the result into ``#selfcheck`` (``data-status``
``ok`` or ``fail``), which the tests read from a headless browser's DOM.
"""

import argparse
import html
import json
import os
import statistics
import sys

from . import findings, report_flows
from .model import (API_CATEGORIES, COLLECTIVE_CATEGORIES, DEVICE_CATEGORIES, KERNEL, MARKER, NoTraceError, host_row,
                    load_dir, read_meta)
from .summary import scope_tables, unique_apis

TIMELINE_CATS = DEVICE_CATEGORIES + COLLECTIVE_CATEGORIES + (MARKER,) + API_CATEGORIES
MAX_SLICES_PER_ROW = 20000   # beyond this a row's slices are coalesced into busy blocks
MAX_DEPTH = 7                # nesting levels drawn per row; deeper slices share the last
MAX_FLOWS = 20000            # launch arrows, at most (the earliest)


def _union(intervals):
    """Sorted, disjoint intervals covering the given ones."""
    out = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            if b > out[-1][1]:
                out[-1][1] = b
        else:
            out.append([a, b])
    return out


def _length(iv):
    return sum(b - a for a, b in iv)


def _minus(iv, cut):
    """Length of the disjoint intervals iv not covered by the disjoint intervals cut."""
    total, j = 0, 0
    for a, b in iv:
        pos = a
        while j < len(cut) and cut[j][1] <= pos:
            j += 1
        k = j
        while k < len(cut) and cut[k][0] < b:
            if cut[k][0] > pos:
                total += cut[k][0] - pos
            pos = max(pos, cut[k][1])
            k += 1
        if pos < b:
            total += b - pos
    return total


def busy_breakdown(run):
    """Per process, over the run's device window (first to last device record of any rank):
    ns of kernel, of communication not overlapped by kernels, of copies/memsets overlapped by
    neither, and idle."""
    lo, hi = run.span(DEVICE_CATEGORIES + COLLECTIVE_CATEGORIES)
    rows = []
    for p in run.processes:
        k = _union((s.start, s.end) for s in p.slices if s.cat == KERNEL)
        c = _union((s.start, s.end) for s in p.slices if s.cat in COLLECTIVE_CATEGORIES)
        m = _union((s.start, s.end) for s in p.slices if s.cat in ("memcpy", "memset"))
        kc = _union(k + c)
        busy = _length(_union(kc + m))
        window = (hi - lo) if lo is not None else 0
        rows.append({"label": p.label, "pid": p.pid, "kernel": _length(k), "comm": _minus(c, k),
                     "copy": _minus(m, kc), "idle": max(window - busy, 0), "window": window})
    return rows


def _coalesce(slices, gap):
    """Merges consecutive slices closer than `gap` into one block named by how many it holds."""
    out = []
    for s in slices:
        if out and s[0] - (out[-1][0] + out[-1][1]) < gap:
            last = out[-1]
            last[1] = max(last[1], s[0] + s[1] - last[0])
            last[4] += 1
        else:
            out.append([s[0], s[1], s[2], s[3], 1])
    return out


def _depths(items):
    """The nesting level of each (start, dur, ...) item, sorted by (start, -dur): how many earlier
    items are still open at its start (capped at MAX_DEPTH)."""
    out, ends = [], []
    for it in items:
        while ends and ends[-1] <= it[0]:
            ends.pop()
        out.append(min(len(ends), MAX_DEPTH))
        ends.append(it[0] + it[1])
    return out


def _row_order(row):
    """Host threads first (the launches), then device streams, then communicators."""
    return (0 if host_row(row) else 1 if row.startswith("device") else 2, row)


def timeline_data(run):
    lo, hi = run.span(TIMELINE_CATS)
    lo = lo or 0
    names, name_ix = [], {}
    cats = list(TIMELINE_CATS)
    rows, flows = [], []
    for p in run.processes:
        by_row = {}
        apis = set(map(id, unique_apis([p])))  # each API call once (API and NODE_API records alike)
        for s in p.slices:
            if s.cat in TIMELINE_CATS and (s.cat not in API_CATEGORIES or id(s) in apis):
                by_row.setdefault(s.row, []).append(s)
        # A host thread's overlap lanes (rows named without "thread ") are drawn on its row: the
        # nesting levels show what the lane holds.
        for r in [r for r in by_row if host_row(r) and not r.startswith("thread ") and "thread " + r in by_row]:
            by_row["thread " + r] += by_row.pop(r)
        where = {}  # (start, "api" or the device category) -> (row index, depth): the arrows' ends
        for r in sorted(by_row, key=_row_order):
            items = sorted(((s.start - lo, s.dur, s.name, cats.index(s.cat)) for s in by_row[r]),
                           key=lambda x: (x[0], -x[1]))
            coalesced = len(items) > MAX_SLICES_PER_ROW
            if coalesced:
                blocks = _coalesce(items, max((hi - lo) // (MAX_SLICES_PER_ROW // 2), 1))
                items = [(b[0], b[1], f"{b[4]} records" if b[4] > 1 else b[2], b[3]) for b in blocks]
            depths = [0] * len(items) if coalesced else _depths(items)
            flat = []
            for (start, dur, name, cat), depth in zip(items, depths):
                if name not in name_ix:
                    name_ix[name] = len(names)
                    names.append(name)
                flat += [start, dur, name_ix[name], cat, depth]
                if not coalesced:
                    c = cats[cat]
                    where.setdefault((start, "api" if c in API_CATEGORIES else c), (len(rows), depth))
            rows.append({"label": f"{p.label} \u00b7 {r}", "rank": p.label, "s": flat, "coalesced": coalesced,
                         "depth": 1 + max(depths, default=0)})
        for call_start, _name, work_start, work_cat in report_flows.launches(p, MAX_FLOWS - len(flows)):
            a = where.get((call_start - lo, "api"))
            b = where.get((work_start - lo, work_cat))
            if a is not None and b is not None:
                flows.append([a[0], call_start - lo, a[1], b[0], work_start - lo, b[1]])
    return {"t0": lo, "span": (hi - lo) if hi is not None else 0, "names": names, "cats": cats, "rows": rows,
            "flows": flows}


def bandwidth_data(run, findings=None):
    """Per collective (HCCL records, else COMMUNICATION records): GB/s and avg time per rank.
    Badges come from the waiting analysis (findings): a late rank's own collectives are short,
    so bandwidth alone would badge the waiting ranks slow and the late one fast."""
    slow_rank = ((findings or {}).get("slow_rank") or {}).get("rank")
    slow_links = {r["rank"] for r in (findings or {}).get("slow_links", ())}
    out = []
    cat = "hccl" if any(s.cat == "hccl" for p in run.processes for s in p.slices) else "communication"
    names = sorted({s.name for p in run.processes for s in p.slices if s.cat == cat})
    for name in names:
        ranks = []
        for p in run.processes:
            mine = [s for s in p.slices if s.cat == cat and s.name == name]
            if not mine:
                continue
            t = sum(s.dur for s in mine)
            b = sum(s.bytes for s in mine)
            ranks.append({"label": p.label, "count": len(mine), "gbps": b / t if t else 0.0,
                          "avg_ns": t / len(mine)})
        med = statistics.median(r["gbps"] for r in ranks) if ranks else 0.0
        for r in ranks:
            tags = (["slow rank"] if r["label"] == slow_rank else []) + (["slow link"] if r["label"] in slow_links else [])
            r["flag"] = "slow" if tags else ""
            r["tag"] = " \u00b7 ".join(tags)
        out.append({"name": name, "kind": cat, "median": med, "ranks": ranks})
    return out


def build(directory):
    run = load_dir(directory)
    found = findings.analyze(run)
    meta = read_meta(directory)
    all_tables = scope_tables(run.processes)
    top = all_tables["kernels"][:15]
    drops = []
    for p in run.processes:
        d = p.dropped()
        drops.append({"label": p.label, "pid": p.pid, "dropped": sum(d.values()),
                      "kinds": {k: v for k, v in d.items() if v}, "final": bool(p.stats), "filtered": p.filtered})
    data = {"title": os.path.basename(os.path.abspath(directory)), "command": meta.get("command"),
            "host": meta.get("host"), "processes": len(run.processes), "format": run.processes[0].format,
            "timeline": timeline_data(run), "busy": busy_breakdown(run),
            "top": [{"name": r["name"], "count": r["count"], "total": r["total_ns"], "avg": r["avg_ns"],
                     "percent": r["percent"]} for r in top],
            "bandwidth": bandwidth_data(run, found), "drops": drops, "warnings": run.warnings,
            "verdict": found["verdict"], "slow_rank": (found["slow_rank"] or {}).get("rank"), "phase": found["phase"],
            "slow_links": [r["rank"] for r in found["slow_links"]], "steps": step_bars(found),
            "step_name": found["step"], "heat": found["wait_matrix"]}
    return run, data


STEP_PARTS = ("compute", "overlap", "exposed_communication", "host_only", "idle_other")


def step_bars(found):
    """Per rank, the mean step split into parts that add up to the step: compute alone, compute
    overlapped by communication, exposed communication, host-only time, and the rest of the idle
    time (the device and the host both waiting, e.g. on a copy)."""
    per = {}
    for r in found["steps"]:
        per.setdefault(r["rank"], []).append(r)
    out = []
    for label, rows in per.items():
        n = len(rows)
        mean = {k: sum(r[k] for r in rows) / n for k in ("duration", "compute", "overlap", "exposed_communication",
                                                         "idle", "host_only")}
        out.append({"label": label, "steps": n, "duration": mean["duration"],
                    "compute": mean["compute"] - mean["overlap"], "overlap": mean["overlap"],
                    "exposed_communication": mean["exposed_communication"], "host_only": mean["host_only"],
                    "idle_other": max(mean["idle"] - mean["host_only"], 0)})
    return out


def _asset(name):
    """The report's stylesheet or script (package data beside this module), inlined in the page."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "report_assets", name), encoding="utf-8") as f:
        return f.read()


def render(data):
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    esc = html.escape
    cmd = " ".join(data["command"] or []) or "(unknown command)"
    warn = "".join(f'<div class="sub bad">warning: {esc(w)}</div>' for w in data["warnings"])
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mspti-trace report: {esc(data['title'])}</title>
<style>{_asset("report.css")}</style></head>
<body>
<header><h1>mspti-trace report <span class="hint">{esc(data['title'])}</span></h1>
<div class="sub">{data['processes']} process(es) &middot; {esc(data['format'])} files &middot; host {esc(str(data['host'] or '?'))} &middot; {esc(cmd)}</div>{warn}</header>
<main>
<section class="wide" id="verdict-section"><h2>Verdict <span class="hint">as <code>mspti-trace analyze</code> finds it</span></h2>
<p id="verdict">{esc(data['verdict'])}</p></section>
<section class="wide" id="timeline-section"><h2>Timeline <span class="hint">wheel: zoom &middot; drag: pan &middot; double-click: reset &middot; * rows coalesced</span>
<span class="tools"><button id="zin">+</button><button id="zout">&minus;</button><button id="zreset">reset</button></span></h2>
<div id="tlwrap"><canvas id="timeline"></canvas><div id="tip"></div></div>
<div class="legend"><span><i style="background:var(--kernel)"></i>kernel</span><span><i style="background:var(--comm)"></i>collective</span>
<span><i style="background:var(--copy)"></i>memcpy</span><span><i style="background:var(--memset)"></i>memset</span>
<span><i style="background:var(--marker)"></i>mstx range</span><span><i style="background:var(--api)"></i>API call</span>
<span>&#8600; launch &rarr; device work</span></div></section>
<section id="steps-section"><h2>Step breakdown per rank <span class="hint">mean per step{(" of &lsquo;" + esc(data['step_name']) + "&rsquo;") if data['step_name'] else " (the whole run)"}</span></h2>
<div id="stepbars"></div>
<div class="legend"><span><i style="background:var(--kernel)"></i>compute</span><span><i style="background:var(--copy)"></i>compute + comm overlap</span>
<span><i style="background:var(--comm)"></i>exposed communication</span><span><i style="background:var(--marker)"></i>host only</span><span><i style="background:var(--idle)"></i>other idle</span></div></section>
<section id="heat-section"><h2>Waits at collectives <span class="hint">rank &times; collective instance; darker: longer wait; outlined: the last to arrive</span></h2>
<div id="heat"></div></section>
<section id="busy-section"><h2>Device time per rank <span class="hint">over the run's device window</span></h2>
<div id="bars"></div>
<div class="legend"><span><i style="background:var(--kernel)"></i>kernel</span><span><i style="background:var(--comm)"></i>communication</span>
<span><i style="background:var(--copy)"></i>copy / memset</span><span><i style="background:var(--idle)"></i>idle</span></div></section>
<section id="top-section"><h2>Top kernels <span class="hint">all ranks, by total time</span></h2>
<table id="topk"><thead><tr><th>kernel</th><th>calls</th><th>total</th><th>avg</th><th>%</th></tr></thead><tbody></tbody></table></section>
<section id="bw-section"><h2>Collective bandwidth per rank <span class="hint">dashed: median</span></h2>
<div id="bwlist"></div>
<p class="hint">A rank that reaches a collective late makes the others wait: its own time is the shortest,
the ranks that waited look slow. So the badges come from the waits: &ldquo;slow rank&rdquo; is the rank the others
wait for, &ldquo;slow link&rdquo; a rank whose transit after the last arrival is far longer than the others'.</p></section>
<section id="drop-section"><h2>Records dropped</h2>
<table id="drops"><thead><tr><th>process</th><th>pid</th><th>dropped</th><th>by kind</th><th>filtered</th><th>final stats</th></tr></thead><tbody></tbody></table></section>
</main>
<footer><span id="selfcheck" data-status="pending">self-check pending (needs JavaScript)</span></footer>
<script type="application/json" id="data">{payload}</script>
<script>{_asset("report.js")}</script>
</body></html>
"""


def write(directory, out_path):
    _run, data = build(directory)
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(render(data))
    return data


def main(argv):
    p = argparse.ArgumentParser(prog="mspti-trace report", description="A self-contained HTML report of a trace directory.")
    p.add_argument("dir", metavar="DIR")
    p.add_argument("-o", "--output", metavar="FILE", help="default: DIR/report.html")
    ns = p.parse_args(argv)
    out = ns.output or os.path.join(ns.dir, "report.html")
    try:
        write(ns.dir, out)
    except (NoTraceError, ValueError, OSError) as e:
        print(f"mspti-trace report: {e}", file=sys.stderr)
        return 1
    print(f"mspti-trace report: wrote {out}", file=sys.stderr)
    return 0
