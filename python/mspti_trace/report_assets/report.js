"use strict";
const errors = [];
window.addEventListener("error", e => errors.push(String(e.message)));
const D = JSON.parse(document.getElementById("data").textContent);
const CAT_COLOR = {kernel:"--kernel", hccl:"--comm", communication:"--comm", memcpy:"--copy",
                   memset:"--memset", marker:"--marker", api:"--api", acl_api:"--api", node_api:"--api",
                   runtime_api:"--api"};
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
// Per rank: host threads (mstx ranges and API calls nested as they ran, one level per lane),
// device streams and communicators; an arrow from each launching call to the device work it
// launched. Each slice is [start, dur, name, category, depth] in TL.rows[i].s.
const TL = D.timeline, LANE_H = 17, AXIS_H = 26, LABEL_W = 230, STRIDE = 5;
const cv = document.getElementById("timeline"), ctx = cv.getContext("2d"), tip = document.getElementById("tip");
const rowY = [], rowH = [];
let totalH = AXIS_H;
for (const row of TL.rows) { rowY.push(totalH); rowH.push(row.depth * LANE_H + 4); totalH += row.depth * LANE_H + 4; }
let view = {t0: 0, t1: Math.max(TL.span, 1)}, cssW = 0, rowsDrawn = 0, slicesDrawn = 0, labelsDrawn = 0,
    arrowsDrawn = 0, hostSlicesDrawn = 0, nestedDrawn = 0;
const isHost = c => c === "marker" || c.endsWith("api");
function niceStep(span, px) {
  const raw = span / Math.max(px / 110, 1), p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}
function resize() {
  const dpr = window.devicePixelRatio || 1;
  cssW = cv.parentElement.clientWidth;
  const h = totalH + 6;
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
  rowsDrawn = 0; slicesDrawn = 0; labelsDrawn = 0; arrowsDrawn = 0; hostSlicesDrawn = 0; nestedDrawn = 0;
  let prevRank = null;
  TL.rows.forEach((row, i) => {
    const y = rowY[i], h = rowH[i];
    if (row.rank !== prevRank) {
      ctx.fillStyle = "#c9ced8"; ctx.fillRect(0, y, cssW, 1); prevRank = row.rank;
    }
    if (i % 2) { ctx.fillStyle = "#f8f9fb"; ctx.fillRect(LABEL_W, y + 1, W, h - 1); }
    ctx.save(); ctx.beginPath(); ctx.rect(LABEL_W, y, W, h); ctx.clip();
    const s = row.s, last = [];  // per depth: the pixel and category drawn last (skip repeats)
    const labels = [];
    for (let j = 0; j < s.length; j += STRIDE) {
      const a = s[j], d = s[j + 1], depth = s[j + 4];
      if (a > view.t1 || a + d < view.t0) continue;
      const x0 = LABEL_W + (a - view.t0) * k, x1 = LABEL_W + (a + d - view.t0) * k;
      const cat = TL.cats[s[j + 3]], w = Math.max(x1 - x0, 1), px = Math.floor(x0);
      if (w < 1.5 && last[depth] === px * 64 + s[j + 3]) continue;  // same pixel, same level
      last[depth] = px * 64 + s[j + 3];
      const sy = y + 2 + depth * LANE_H;
      ctx.fillStyle = color(cat);
      ctx.fillRect(x0, sy, w, LANE_H - 2);
      if (w >= 3) { ctx.strokeStyle = "rgba(255,255,255,0.6)"; ctx.strokeRect(x0 + 0.5, sy + 0.5, w - 1, LANE_H - 3); }
      const tx = Math.max(x0, LABEL_W) + 3;
      if (x1 - tx > 24) labels.push([TL.names[s[j + 2]], tx, x1 - tx - 3, sy + (LANE_H - 2) / 2 + 1]);
      slicesDrawn++;
      if (isHost(cat)) hostSlicesDrawn++;
      if (depth > 0) nestedDrawn++;
    }
    ctx.fillStyle = "#fff";  // after every box, so that no later box covers a label
    for (const [name, tx, w, ly] of labels) {
      const text = name.slice(0, Math.max(Math.floor(w / 5.5), 1));
      ctx.fillText(text, tx, ly, w);
      labelsDrawn++;
    }
    ctx.restore();
    ctx.fillStyle = "#fff"; ctx.fillRect(0, y + 1, LABEL_W - 4, h - 1);
    ctx.fillStyle = "#1d2433";
    ctx.fillText(fit(row.label + (row.coalesced ? " *" : ""), LABEL_W - 12), 6, y + Math.min(h, LANE_H + 4) / 2 + 1);
    rowsDrawn++;
  });
  // Launch arrows: from the bottom of the call to the top of the device work.
  ctx.save(); ctx.beginPath(); ctx.rect(LABEL_W, AXIS_H, W, totalH - AXIS_H); ctx.clip();
  ctx.strokeStyle = "rgba(29,36,51,0.55)"; ctx.fillStyle = "rgba(29,36,51,0.75)"; ctx.lineWidth = 1;
  for (const [ri, ta, da, rj, tb, db] of TL.flows) {
    if (Math.max(ta, tb) < view.t0 || Math.min(ta, tb) > view.t1) continue;
    const xa = LABEL_W + (ta - view.t0) * k, ya = rowY[ri] + 2 + (da + 1) * LANE_H - 2;
    const xb = LABEL_W + (tb - view.t0) * k, yb = rowY[rj] + 2 + db * LANE_H;
    ctx.beginPath(); ctx.moveTo(xa, ya);
    ctx.bezierCurveTo(xa, (ya + yb) / 2, xb, (ya + yb) / 2, xb, yb); ctx.stroke();
    ctx.beginPath(); ctx.moveTo(xb, yb); ctx.lineTo(xb - 3, yb - 6); ctx.lineTo(xb + 3, yb - 6); ctx.closePath(); ctx.fill();
    arrowsDrawn++;
  }
  ctx.restore();
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
  let i = rowY.length - 1;
  while (i >= 0 && rowY[i] > e.offsetY) i--;
  const row = TL.rows[i];
  if (drag || !row || e.offsetX < LABEL_W || e.offsetY >= rowY[i] + rowH[i]) { tip.style.display = "none"; return; }
  const depth = Math.max(0, Math.floor((e.offsetY - rowY[i] - 2) / LANE_H));
  const t = tAt(e.offsetX), slack = 2 * (view.t1 - view.t0) / (cssW - LABEL_W), s = row.s;
  let best = -1;
  for (let j = 0; j < s.length; j += STRIDE)
    if (s[j + 4] === depth && s[j] - slack <= t && t <= s[j] + s[j + 1] + slack && (best < 0 || s[j + 1] < s[best + 1]))
      best = j;
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

// ---- step breakdown per rank ----
const stepbars = document.getElementById("stepbars");
const longest = Math.max(1, ...D.steps.map(b => b.duration));
for (const b of D.steps) {
  const bar = el("div", {class: "bar", style: `width:${(100 * b.duration / longest).toFixed(2)}%`});
  for (const [key, v] of [["compute", "--kernel"], ["overlap", "--copy"], ["exposed_communication", "--comm"],
                          ["host_only", "--marker"], ["idle_other", "--idle"]])
    bar.append(el("span", {class: "seg", style: `width:${(100 * b[key] / Math.max(b.duration, 1)).toFixed(3)}%;background:var(${v})`,
                           title: `${key.replace("_", " ")}: ${fmtNs(b[key])}`}));
  stepbars.append(el("div", {class: "brow stepbar"}, el("div", {}, b.label), bar,
                     el("div", {class: "num"}, `${b.steps} step(s) · ${fmtNs(b.duration)} · host only ${fmtNs(b.host_only)}`)));
}

// ---- wait heatmap: rank x collective instance ----
const heat = document.getElementById("heat"), H = D.heat;
let heatCells = 0;
if (H.columns.length) {
  const maxWait = Math.max(1, ...H.columns.flatMap(c => c.waits.filter(w => w !== null)));
  const grid = el("div", {class: "heatgrid", style: `grid-template-columns:90px repeat(${H.columns.length}, minmax(3px, 1fr))`});
  H.ranks.forEach((label, i) => {
    grid.append(el("div", {class: "hlabel"}, label));
    for (const c of H.columns) {
      const w = c.waits[i], late = c.late === label;
      const a = w === null ? 0 : Math.sqrt(w / maxWait);
      grid.append(el("div", {class: "hcell" + (late ? " late" : ""), style: `background:rgba(192,57,43,${a.toFixed(3)})`,
                             title: `${label} · ${c.name} #${c.index} on ${c.comm}: ` +
                                    (w === null ? "not a member" : late ? "last to arrive" : `waited ${fmtNs(w)}`)}));
      heatCells++;
    }
  });
  heat.append(grid);
} else heat.append(el("p", {class: "hint"}, "no collective across ranks"));

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
    if (r.flag) label.append(el("span", {class: "tag " + r.flag}, r.tag || r.flag));
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
  rows: TL.rows.length, rowsDrawn, slicesDrawn, labelsDrawn, hostSlicesDrawn, nestedDrawn,
  maxDepth: Math.max(0, ...TL.rows.map(r => r.depth)), flows: TL.flows.length, arrowsDrawn,
  zoomOk, bars: bars.querySelectorAll(".bar").length,
  ranks: D.busy.length, topKernels: tbody.querySelectorAll("tr").length,
  collectives: bw.querySelectorAll(".coll").length, bandwidthBars: bw.querySelectorAll(".bwbar").length,
  stepBars: stepbars.querySelectorAll(".bar").length, heatCells,
  verdict: document.getElementById("verdict").textContent, errors
};
{  // where the verdict is on the page (CSS px from the top), for the tests' screenshot check
  const r = document.getElementById("verdict").getBoundingClientRect();
  check.verdictBox = [Math.floor(r.top + window.scrollY), Math.ceil(r.bottom + window.scrollY),
                      Math.floor(r.left), Math.ceil(r.right)];
}
const ok = errors.length === 0 && zoomOk && check.rowsDrawn === check.rows && check.bars === check.ranks &&
           check.stepBars === D.steps.length && heatCells === H.ranks.length * H.columns.length &&
           (check.rows === 0 || check.slicesDrawn > 0) && arrowsDrawn === TL.flows.length;
const sc = document.getElementById("selfcheck");
sc.dataset.status = ok ? "ok" : "fail";
sc.textContent = "self-check " + (ok ? "ok" : "FAILED") + ": " + JSON.stringify(check);
sc.className = ok ? "ok" : "bad";
