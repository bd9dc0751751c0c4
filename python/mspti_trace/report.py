"""``mspti-trace report DIR -o report.html``: one self-contained HTML page (no network: every
script and style inline, a Content-Security-Policy that forbids loading anything) with

- a zoomable timeline overview, one row per rank and stream (and communicator),
- a stacked bar per rank of kernel, communication, copy and idle time,
- the top kernels by total time,
- collective bandwidth per rank, outliers marked,
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

from .model import COLLECTIVE_CATEGORIES, DEVICE_CATEGORIES, KERNEL, MARKER, NoTraceError, load_dir, read_meta
from .summary import scope_tables

TIMELINE_CATS = DEVICE_CATEGORIES + COLLECTIVE_CATEGORIES + (MARKER,)
MAX_SLICES_PER_ROW = 20000   # beyond this a row's slices are coalesced into busy blocks
OUTLIER = 0.15               # bandwidth this far from the ranks' median is marked


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


def timeline_data(run):
    lo, hi = run.span(TIMELINE_CATS)
    lo = lo or 0
    names, name_ix = [], {}
    cats = list(TIMELINE_CATS)
    rows = []
    for p in run.processes:
        by_row = {}
        for s in p.slices:
            if s.cat in TIMELINE_CATS:
                by_row.setdefault(s.row, []).append(s)
        order = sorted(by_row, key=lambda r: (not r.startswith("device"), r.startswith("thread"), r))
        for r in order:
            items = sorted(((s.start - lo, s.dur, s.name, cats.index(s.cat)) for s in by_row[r]),
                           key=lambda x: (x[0], -x[1]))
            coalesced = len(items) > MAX_SLICES_PER_ROW
            if coalesced:
                blocks = _coalesce(items, max((hi - lo) // (MAX_SLICES_PER_ROW // 2), 1))
                items = [(b[0], b[1], f"{b[4]} records" if b[4] > 1 else b[2], b[3]) for b in blocks]
            flat = []
            for start, dur, name, cat in items:
                if name not in name_ix:
                    name_ix[name] = len(names)
                    names.append(name)
                flat += [start, dur, name_ix[name], cat]
            rows.append({"label": f"{p.label} \u00b7 {r}", "rank": p.label, "s": flat, "coalesced": coalesced})
    return {"t0": lo, "span": (hi - lo) if hi is not None else 0, "names": names, "cats": cats, "rows": rows}


def bandwidth_data(run):
    """Per collective (HCCL records, else COMMUNICATION records): GB/s and avg time per rank."""
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
            r["flag"] = ("slow" if r["gbps"] < (1 - OUTLIER) * med else
                         "fast" if r["gbps"] > (1 + OUTLIER) * med else "")
        out.append({"name": name, "kind": cat, "median": med, "ranks": ranks})
    return out


def build(directory):
    run = load_dir(directory)
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
            "bandwidth": bandwidth_data(run), "drops": drops, "warnings": run.warnings}
    return run, data


_STYLE = """
:root{--bg:#f6f7f9;--card:#fff;--ink:#1d2433;--mute:#6b7385;--line:#e3e6ec;--kernel:#4e79a7;
--comm:#f28e2b;--copy:#59a14f;--memset:#76b7b2;--marker:#b07aa1;--idle:#d9dde4;--bad:#d62728;--warn:#e5a000}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--ink);
font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
header{padding:18px 28px 10px}h1{margin:0;font-size:22px;font-weight:650}
.sub{color:var(--mute);font-size:13px;margin-top:4px;word-break:break-all}
main{padding:0 28px 28px;display:grid;grid-template-columns:1fr 1fr;gap:18px}
section{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:14px 16px;min-width:0}
section.wide{grid-column:1/-1}h2{font-size:15px;margin:0 0 10px;font-weight:650}
.hint{color:var(--mute);font-size:12px;font-weight:400;margin-left:8px}
.tools{float:right}.tools button{border:1px solid var(--line);background:#fff;border-radius:6px;
padding:2px 10px;margin-left:4px;cursor:pointer;font:inherit}.tools button:hover{background:var(--bg)}
#tlwrap{position:relative;overflow:hidden}canvas{display:block;cursor:grab}canvas.drag{cursor:grabbing}
#tip{position:absolute;pointer-events:none;background:#1d2433;color:#fff;font-size:12px;padding:5px 8px;
border-radius:5px;white-space:nowrap;display:none;z-index:2}
.legend{display:flex;gap:14px;flex-wrap:wrap;font-size:12px;color:var(--mute);margin-top:8px}
.legend i{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:5px;vertical-align:-1px}
#bars{display:grid;grid-template-columns:64px 1fr auto;gap:10px 10px;align-items:center}.brow{display:contents}
.bar{display:flex;height:20px;border-radius:4px;overflow:hidden;background:var(--idle)}
.bar span{display:block;height:100%}.num{font-size:12px;color:var(--mute);text-align:right;white-space:nowrap;
font-variant-numeric:tabular-nums}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{padding:5px 6px;border-bottom:1px solid var(--line);
text-align:right;font-variant-numeric:tabular-nums}th{color:var(--mute);font-weight:600}
th:first-child,td:first-child{text-align:left}td.name{max-width:260px;overflow:hidden;text-overflow:ellipsis;
white-space:nowrap}.pbar{display:inline-block;height:8px;background:var(--kernel);border-radius:2px;
vertical-align:middle;margin-right:6px}td{white-space:nowrap}
.coll{margin-bottom:12px}.coll h3{font-size:13px;margin:0 0 4px;font-weight:600}
.coll{display:grid;grid-template-columns:110px 1fr auto;gap:6px 10px;align-items:center}.coll h3{grid-column:1/-1}
.bw{display:contents}
.bwtrack{height:14px;background:var(--bg);border-radius:3px;position:relative}
.bwbar{height:100%;border-radius:3px;background:var(--comm)}.bwbar.slow{background:var(--bad)}
.bwbar.fast{background:var(--warn)}.med{position:absolute;top:-3px;bottom:-3px;width:0;border-left:2px dashed #555}
.tag{font-size:11px;padding:1px 6px;border-radius:8px;margin-left:6px;color:#fff}
.tag.slow{background:var(--bad)}.tag.fast{background:var(--warn)}
.ok{color:#2a8a3e}.bad{color:var(--bad)}footer{padding:0 28px 20px;color:var(--mute);font-size:12px}
"""

_SCRIPT = r"""
"use strict";
const errors = [];
window.addEventListener("error", e => errors.push(String(e.message)));
const D = JSON.parse(document.getElementById("data").textContent);
const CAT_COLOR = {kernel:"--kernel", hccl:"--comm", communication:"--comm", memcpy:"--copy",
                   memset:"--memset", marker:"--marker"};
const css = getComputedStyle(document.documentElement);
const color = c => css.getPropertyValue(CAT_COLOR[c] || "--idle").trim();
function fmtNs(ns) {
  const a = Math.abs(ns);
  if (a >= 1e9) return (ns / 1e9).toFixed(3) + " s";
  if (a >= 1e6) return (ns / 1e6).toFixed(3) + " ms";
  if (a >= 1e3) return (ns / 1e3).toFixed(2) + " \u00b5s";
  return Math.round(ns) + " ns";
}
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "style") e.style.cssText = v; else if (k === "class") e.className = v; else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
}

// ---- timeline ----
const TL = D.timeline, ROW_H = 20, AXIS_H = 26, LABEL_W = 230;
const cv = document.getElementById("timeline"), ctx = cv.getContext("2d"), tip = document.getElementById("tip");
let view = {t0: 0, t1: Math.max(TL.span, 1)}, cssW = 0, rowsDrawn = 0, slicesDrawn = 0;
function niceStep(span, px) {
  const raw = span / Math.max(px / 110, 1), p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}
function resize() {
  const dpr = window.devicePixelRatio || 1;
  cssW = cv.parentElement.clientWidth;
  const h = AXIS_H + TL.rows.length * ROW_H + 6;
  cv.style.width = cssW + "px"; cv.style.height = h + "px";
  cv.width = Math.round(cssW * dpr); cv.height = Math.round(h * dpr);
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  draw();
}
function draw() {
  const W = cssW - LABEL_W, k = W / (view.t1 - view.t0);
  ctx.clearRect(0, 0, cssW, cv.height);
  ctx.font = "11px system-ui, sans-serif"; ctx.textBaseline = "middle";
  const step = niceStep(view.t1 - view.t0, W);
  ctx.strokeStyle = "#e3e6ec"; ctx.fillStyle = "#6b7385"; ctx.lineWidth = 1;
  for (let t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
    const x = Math.round(LABEL_W + (t - view.t0) * k) + 0.5;
    ctx.beginPath(); ctx.moveTo(x, AXIS_H - 6); ctx.lineTo(x, cv.height); ctx.stroke();
    ctx.fillText(fmtNs(t).replace(/(\.\d*?)0+ /, "$1 ").replace(". ", " "), x + 3, AXIS_H / 2);
  }
  rowsDrawn = 0; slicesDrawn = 0;
  let prevRank = null;
  TL.rows.forEach((row, i) => {
    const y = AXIS_H + i * ROW_H;
    if (row.rank !== prevRank) {
      ctx.fillStyle = "#c9ced8"; ctx.fillRect(0, y, cssW, 1); prevRank = row.rank;
    }
    if (i % 2) { ctx.fillStyle = "#f8f9fb"; ctx.fillRect(LABEL_W, y + 1, W, ROW_H - 1); }
    ctx.save(); ctx.beginPath(); ctx.rect(LABEL_W, y, W, ROW_H); ctx.clip();
    const s = row.s;
    let lastX = -1, lastCat = -1, textEnd = -1;
    const labels = [];
    for (let j = 0; j < s.length; j += 4) {
      const a = s[j], d = s[j + 1];
      if (a > view.t1 || a + d < view.t0) continue;
      const x0 = LABEL_W + (a - view.t0) * k, x1 = LABEL_W + (a + d - view.t0) * k;
      const cat = TL.cats[s[j + 3]], w = Math.max(x1 - x0, 1);
      if (w < 1.5 && Math.floor(x0) === lastX && s[j + 3] === lastCat) continue;  // same pixel
      lastX = Math.floor(x0); lastCat = s[j + 3];
      ctx.fillStyle = color(cat);
      if (cat === "marker") ctx.fillRect(x0, y + 2, w, 3);
      else ctx.fillRect(x0, y + 5, w, ROW_H - 8);
      const tx = Math.max(x0, LABEL_W) + 3;
      if (x1 - tx > 40 && cat !== "marker" && x0 >= textEnd) {  // one label where slices overlap
        textEnd = x1;
        labels.push([TL.names[s[j + 2]], tx, x1 - tx - 3]);
      }
      slicesDrawn++;
    }
    ctx.fillStyle = "#fff";  // after every box, so that no later box covers a label
    for (const [name, tx, w] of labels) ctx.fillText(name.slice(0, Math.floor(w / 6)), tx, y + ROW_H / 2 + 1.5, w);
    ctx.restore();
    ctx.fillStyle = "#fff"; ctx.fillRect(0, y + 1, LABEL_W - 4, ROW_H - 1);
    ctx.fillStyle = "#1d2433";
    ctx.fillText(fit(row.label + (row.coalesced ? " *" : ""), LABEL_W - 12), 6, y + ROW_H / 2 + 1);
    rowsDrawn++;
  });
}
function fit(text, px) {  // ellipsis in the middle: rank and stream/communicator ends stay readable
  if (ctx.measureText(text).width <= px) return text;
  let a = Math.floor(text.length / 2), b = a;
  while (a > 4 && ctx.measureText(text.slice(0, a) + "\u2026" + text.slice(b)).width > px) { a--; b++; }
  return text.slice(0, a) + "\u2026" + text.slice(b);
}
function gbps(v) { return (v >= 100 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toPrecision(3)) + " GB/s"; }
function tAt(x) { return view.t0 + (x - LABEL_W) * (view.t1 - view.t0) / (cssW - LABEL_W); }
function zoom(f, x) {
  const t = x === undefined ? (view.t0 + view.t1) / 2 : tAt(x);
  let w = Math.max((view.t1 - view.t0) * f, 100);
  w = Math.min(w, Math.max(TL.span, 1) * 1.05);
  const r = x === undefined ? 0.5 : (x - LABEL_W) / (cssW - LABEL_W);
  view.t0 = t - w * r; view.t1 = view.t0 + w; draw();
}
cv.addEventListener("wheel", e => { if (e.offsetX < LABEL_W) return; e.preventDefault();
  zoom(Math.exp(e.deltaY * 0.0015), e.offsetX); }, {passive: false});
let drag = null;
cv.addEventListener("mousedown", e => { drag = {x: e.clientX, t0: view.t0, t1: view.t1}; cv.classList.add("drag"); });
window.addEventListener("mouseup", () => { drag = null; cv.classList.remove("drag"); });
window.addEventListener("mousemove", e => {
  if (!drag) return;
  const dt = (e.clientX - drag.x) * (drag.t1 - drag.t0) / (cssW - LABEL_W);
  view.t0 = drag.t0 - dt; view.t1 = drag.t1 - dt; draw();
});
cv.addEventListener("dblclick", () => { view = {t0: 0, t1: Math.max(TL.span, 1)}; draw(); });
cv.addEventListener("mousemove", e => {
  const i = Math.floor((e.offsetY - AXIS_H) / ROW_H), row = TL.rows[i];
  if (drag || !row || e.offsetX < LABEL_W) { tip.style.display = "none"; return; }
  const t = tAt(e.offsetX), slack = 2 * (view.t1 - view.t0) / (cssW - LABEL_W), s = row.s;
  let best = -1;
  for (let j = 0; j < s.length; j += 4)
    if (s[j] - slack <= t && t <= s[j] + s[j + 1] + slack && (best < 0 || s[j + 1] < s[best + 1])) best = j;
  if (best < 0) { tip.style.display = "none"; return; }
  tip.textContent = TL.names[s[best + 2]] + " \u2014 " + TL.cats[s[best + 3]] + ", " + fmtNs(s[best + 1]) +
                    " at +" + fmtNs(s[best]);
  tip.style.display = "block";
  tip.style.left = Math.min(e.offsetX + 12, cssW - tip.offsetWidth - 4) + "px";
  tip.style.top = (e.offsetY + 14) + "px";
});
cv.addEventListener("mouseleave", () => { tip.style.display = "none"; });
document.getElementById("zin").onclick = () => zoom(0.5);
document.getElementById("zout").onclick = () => zoom(2);
document.getElementById("zreset").onclick = () => { view = {t0: 0, t1: Math.max(TL.span, 1)}; draw(); };
window.addEventListener("resize", resize);
resize();

// ---- busy bars ----
const bars = document.getElementById("bars");
for (const b of D.busy) {
  const w = Math.max(b.window, 1), bar = el("div", {class: "bar"});
  for (const [key, v] of [["kernel", "--kernel"], ["comm", "--comm"], ["copy", "--copy"], ["idle", "--idle"]])
    bar.append(el("span", {class: "seg " + key, style: `width:${(100 * b[key] / w).toFixed(3)}%;background:var(${v})`,
                           title: `${key}: ${fmtNs(b[key])} (${(100 * b[key] / w).toFixed(1)}%)`}));
  bars.append(el("div", {class: "brow"}, el("div", {}, b.label), bar,
                 el("div", {class: "num"}, `kernel ${(100 * b.kernel / w).toFixed(1)}% \u00b7 comm ${(100 * b.comm / w).toFixed(1)}% \u00b7 idle ${(100 * b.idle / w).toFixed(1)}%`)));
}

// ---- top kernels ----
const tbody = document.querySelector("#topk tbody"), maxTotal = D.top.length ? D.top[0].total : 1;
for (const r of D.top)
  tbody.append(el("tr", {}, el("td", {class: "name", title: r.name}, r.name), el("td", {}, String(r.count)),
    el("td", {}, el("span", {class: "pbar", style: `width:${Math.max(2, 80 * r.total / maxTotal)}px`}), fmtNs(r.total)),
    el("td", {}, fmtNs(r.avg)), el("td", {}, r.percent.toFixed(1) + "%")));
if (!D.top.length) tbody.append(el("tr", {}, el("td", {colspan: 5}, "no kernel records")));

// ---- collective bandwidth per rank ----
const bw = document.getElementById("bwlist");
for (const c of D.bandwidth) {
  const max = Math.max(...c.ranks.map(r => r.gbps), 1e-12), box = el("div", {class: "coll"});
  box.append(el("h3", {}, `${c.name} `, el("span", {class: "hint"}, `${c.kind} \u00b7 median ${gbps(c.median)}`)));
  for (const r of c.ranks) {
    const track = el("div", {class: "bwtrack"}, el("div", {class: "bwbar " + r.flag, style: `width:${(100 * r.gbps / max).toFixed(2)}%`}),
                     el("div", {class: "med", style: `left:${(100 * c.median / max).toFixed(2)}%`}));
    const label = el("div", {}, r.label);
    if (r.flag) label.append(el("span", {class: "tag " + r.flag}, r.flag === "slow" ? "slow" : "fast"));
    box.append(el("div", {class: "bw"}, label, track,
                  el("div", {class: "num"}, `${gbps(r.gbps)} \u00b7 ${r.count}\u00d7 ${fmtNs(r.avg_ns)}`)));
  }
  bw.append(box);
}
if (!D.bandwidth.length) bw.append(el("p", {class: "hint"}, "no collectives recorded"));

// ---- dropped records ----
const dbody = document.querySelector("#drops tbody");
for (const d of D.drops) {
  const kinds = Object.entries(d.kinds).map(([k, v]) => `${k}: ${v}`).join(", ");
  dbody.append(el("tr", {}, el("td", {}, d.label), el("td", {}, String(d.pid)),
    el("td", {class: d.dropped ? "bad" : "ok"}, String(d.dropped)), el("td", {}, kinds || "\u2014"),
    el("td", {}, String(d.filtered)), el("td", {}, d.final ? "yes" : "no (killed?)")));
}

// ---- self-check: what the tests read back from the DOM ----
// Zooming in around the middle narrows the view and still draws every row; then back.
zoom(0.25);
const zoomOk = TL.rows.length === 0 || TL.span < 400 ||
               (view.t1 - view.t0 < TL.span && rowsDrawn === TL.rows.length);
view = {t0: 0, t1: Math.max(TL.span, 1)}; draw();
const check = {
  rows: TL.rows.length, rowsDrawn, slicesDrawn, zoomOk, bars: bars.querySelectorAll(".bar").length,
  ranks: D.busy.length, topKernels: tbody.querySelectorAll("tr").length,
  collectives: bw.querySelectorAll(".coll").length, bandwidthBars: bw.querySelectorAll(".bwbar").length,
  errors
};
const ok = errors.length === 0 && zoomOk && check.rowsDrawn === check.rows && check.bars === check.ranks &&
           (check.rows === 0 || check.slicesDrawn > 0);
const sc = document.getElementById("selfcheck");
sc.dataset.status = ok ? "ok" : "fail";
sc.textContent = "self-check " + (ok ? "ok" : "FAILED") + ": " + JSON.stringify(check);
sc.className = ok ? "ok" : "bad";
"""


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
<style>{_STYLE}</style></head>
<body>
<header><h1>mspti-trace report <span class="hint">{esc(data['title'])}</span></h1>
<div class="sub">{data['processes']} process(es) &middot; {esc(data['format'])} files &middot; host {esc(str(data['host'] or '?'))} &middot; {esc(cmd)}</div>{warn}</header>
<main>
<section class="wide" id="timeline-section"><h2>Timeline <span class="hint">wheel: zoom &middot; drag: pan &middot; double-click: reset &middot; * rows coalesced</span>
<span class="tools"><button id="zin">+</button><button id="zout">&minus;</button><button id="zreset">reset</button></span></h2>
<div id="tlwrap"><canvas id="timeline"></canvas><div id="tip"></div></div>
<div class="legend"><span><i style="background:var(--kernel)"></i>kernel</span><span><i style="background:var(--comm)"></i>collective</span>
<span><i style="background:var(--copy)"></i>memcpy</span><span><i style="background:var(--memset)"></i>memset</span>
<span><i style="background:var(--marker)"></i>mstx range</span></div></section>
<section id="busy-section"><h2>Device time per rank <span class="hint">over the run's device window</span></h2>
<div id="bars"></div>
<div class="legend"><span><i style="background:var(--kernel)"></i>kernel</span><span><i style="background:var(--comm)"></i>communication</span>
<span><i style="background:var(--copy)"></i>copy / memset</span><span><i style="background:var(--idle)"></i>idle</span></div></section>
<section id="top-section"><h2>Top kernels <span class="hint">all ranks, by total time</span></h2>
<table id="topk"><thead><tr><th>kernel</th><th>calls</th><th>total</th><th>avg</th><th>%</th></tr></thead><tbody></tbody></table></section>
<section id="bw-section"><h2>Collective bandwidth per rank <span class="hint">dashed: median; &plusmn;{int(OUTLIER * 100)}% marked</span></h2>
<div id="bwlist"></div>
<p class="hint">A rank that reaches a collective late makes the others wait: its own time is the shortest
(&ldquo;fast&rdquo;), the ranks that waited look slow. A rank slow alone is a slow link or device.</p></section>
<section id="drop-section"><h2>Records dropped</h2>
<table id="drops"><thead><tr><th>process</th><th>pid</th><th>dropped</th><th>by kind</th><th>filtered</th><th>final stats</th></tr></thead><tbody></tbody></table></section>
</main>
<footer><span id="selfcheck" data-status="pending">self-check pending (needs JavaScript)</span></footer>
<script type="application/json" id="data">{payload}</script>
<script>{_SCRIPT}</script>
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
