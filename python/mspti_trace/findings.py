"""What ``mspti-trace analyze`` finds in a run, and the verdict ``report`` shows too
(docs/trace.md, "analyze"): step breakdowns, who waits for whom at the collectives, the slow
rank and where it spends the time the others do not, slow links, and per-kernel and per-range
tables with their spread across ranks."""

import statistics
from collections import defaultdict

from . import columns
from . import steps as st
from . import waits as wt
from .model import KERNEL

# A rank is slow, or a link, only when the excess is at least this long and at least this share
# of the median step: scheduling noise on a loaded machine stays below both (a balanced 4-rank
# run at load 10-33 had one rank last at 10 of 10 collectives, median wait caused 2.9 ms).
FLOOR_NS = 5_000_000
STEP_SHARE = 0.10


def components(run, step_name, matched):
    """{(rank, component): ns per step} where a component is ("range", name), ("kernel", name)
    or ("transit", comm)."""
    nsteps = {p.label: len(st.instances(p, step_name)) if step_name else 1 for p in run.processes}
    totals = defaultdict(int)
    for p in run.processes:
        for s in st.host_ranges(p):
            if s.name != step_name:
                totals[(p.label, ("range", s.name))] += s.dur
        for name, (_, total) in _kernels(p).items():
            totals[(p.label, ("kernel", name))] += total
    for comm, m in matched.items():
        if len(m):
            transit = m.waits()["transit"]
            for r, label in enumerate(m.labels):
                totals[(label, ("transit", comm))] += sum(transit[r].tolist())
    return {k: v / max(nsteps.get(k[0], 1), 1) for k, v in totals.items()}


def excess(run, comps, label):
    """[(component, ns per step more than the other ranks' median)] of one rank, largest first."""
    others = [p.label for p in run.processes if p.label != label]
    names = {c for (_, c) in comps}
    out = []
    for c in names:
        mine = comps.get((label, c), 0)
        rest = [comps.get((o, c), 0) for o in others]
        extra = mine - (statistics.median(rest) if rest else 0)
        if extra > 0:
            out.append((c, extra))
    out.sort(key=lambda x: (-x[1], x[0]))
    return out


def _kernels(proc):
    """{kernel name: (count, total ns)} of one process (made once: analyze asks twice)."""
    got = proc._of.get("kernel totals")
    if got is None:
        c = proc.cols
        got = proc._of["kernel totals"] = {}
        for _, k, n, total, _lo, _hi, _b in columns.group_pairs(None, c.name, c.start, c.end, None, c.mask(KERNEL)):
            n0, t0 = got.get(c.strings[k], (0, 0))  # two codes may read as one name (bad UTF-8 replaced)
            got[c.strings[k]] = (n0 + n, t0 + total)
    return dict(got)


def tables(run):
    """Per kernel and per range name: per rank count and total, and the spread across ranks."""
    per = defaultdict(lambda: defaultdict(lambda: [0, 0]))  # (kind, name) -> rank -> [count, total]
    for p in run.processes:
        for name, (n, total) in _kernels(p).items():
            c = per[("kernel", name)][p.label]
            c[0] += n
            c[1] += total
        for s in st.host_ranges(p):
            c = per[("range", s.name)][p.label]
            c[0] += 1
            c[1] += s.dur
    labels = [p.label for p in run.processes]
    per_rank, spread = [], []
    for (kind, name), ranks in per.items():
        for label in labels:
            if label in ranks:
                n, total = ranks[label]
                per_rank.append({"kind": kind, "name": name, "rank": label, "count": n, "total_ns": total,
                                 "avg_ns": total / n})
        totals = [(ranks[label][1] if label in ranks else 0, label) for label in labels]
        lo, hi = min(totals), max(totals)
        med = statistics.median(t for t, _ in totals)
        spread.append({"kind": kind, "name": name, "ranks": len(ranks), "total_median_ns": med,
                       "min_ns": lo[0], "min_rank": lo[1], "max_ns": hi[0], "max_rank": hi[1],
                       "spread": (hi[0] - lo[0]) / med if med else 0.0})
    spread.sort(key=lambda r: (-r["total_median_ns"], r["kind"], r["name"]))
    per_rank.sort(key=lambda r: (r["kind"], r["name"], r["rank"]))
    return per_rank, spread


MAX_HEAT_COLUMNS = 400  # instances shown in the report's heatmap (the first ones)


def wait_matrix(run, matched):
    """The waits per rank (rows) and collective instance (columns, communicator by communicator,
    each in order), for the report's heatmap; None where a rank is not in the communicator."""
    labels = [p.label for p in run.processes]
    columns = []
    for comm in sorted(matched):
        m = matched[comm]
        n = min(len(m), MAX_HEAT_COLUMNS - len(columns))
        if n <= 0:
            continue
        w = m.waits()
        rows = {label: w["wait"][r][:n].tolist() for r, label in enumerate(m.labels)}
        waits = [rows.get(label) for label in labels]
        late = w["late"][:n].tolist()
        for k in range(n):
            columns.append({"comm": comm, "index": k, "name": m.names[k], "late": m.labels[late[k]],
                            "waits": [None if v is None else v[k] for v in waits]})
    return {"ranks": labels, "columns": columns}


def _component_text(c):
    kind, name = c
    return {"range": f"range '{name}'", "kernel": f"kernel {name}", "transit": f"collective transit on comm {name}"}[kind]


def analyze(run, step=None):
    """Every finding of the run, as a dict (the JSON of ``analyze --format json``)."""
    step_name, step_note = st.choose_step(run, step)
    coll_cat = st.collective_category(run)
    rows = st.step_breakdowns(run, step_name, coll_cat)
    durs = [r["duration"] for r in rows]
    threshold = max(FLOOR_NS, STEP_SHARE * statistics.median(durs)) if durs else FLOOR_NS
    insts, warnings = wt.collective_instances(run, coll_cat) if coll_cat else ({}, [])
    waits = wt.rank_waits(insts)
    slow = wt.slow_rank(waits, threshold)
    link_rows = wt.links(insts)
    slow_links = wt.slow_links(link_rows, threshold)
    comps = components(run, step_name, insts)
    where = []
    if slow is not None:
        ranked = excess(run, comps, slow[0])
        # The rank the others wait for arrives last, and on a loaded machine its own transit after
        # that comes out longer too (a phase-slowed rank at load 14: +4.8 ms of transit against a
        # median wait caused of 23.8 ms). Its link is slow when the extra transit is at least the
        # wait it causes (a slowed link alone: +21.7 ms, nobody late), or when that transit is
        # where the rank spends most of its extra time: a slowed link also makes its rank late for
        # the next collective (at load 15: last at 8 of 10, transit +38.7 ms per step, first).
        lead = ranked[0][0] if ranked else None
        slow_links = [r for r in slow_links if r["rank"] != slow[0] or lead == ("transit", r["comm"])
                      or r["transit_median_ns"] - r["others_transit_median_ns"] >= slow[1]["caused_median_ns"]]
        # Components above a quarter of the threshold: the rest is noise.
        where = [{"kind": c[0], "name": c[1], "excess_ns_per_step": e} for c, e in ranked if e >= threshold / 4][:5]
    per_rank, spread = tables(run)
    matrix = wait_matrix(run, insts)
    f = {"step": step_name, "step_note": step_note, "collective_category": coll_cat, "threshold_ns": threshold,
         "steps": rows, "warnings": warnings,
         "waits": [{"rank": label, "collectives": r["instances"], "last": r["last"],
                    "caused_median_ns": statistics.median(r["caused"]) if r["caused"] else 0,
                    "caused_p95_ns": wt.percentile(r["caused"], 95),
                    "waited_median_ns": statistics.median(r["waited"]) if r["waited"] else 0,
                    "waited_total_ns": sum(r["waited"])}
                   for label, r in sorted(waits.items(), key=lambda kv: _rank_order(run, kv[0]))],
         "slow_rank": None, "phase": None, "where": where, "links": link_rows, "slow_links": slow_links,
         "per_rank": per_rank, "spread": spread, "wait_matrix": matrix}
    if slow is not None:
        f["slow_rank"] = {"rank": slow[0], **slow[1]}
        phases = [w for w in where if w["kind"] == "range"]
        f["phase"] = phases[0]["name"] if phases else None
    f["verdict"] = verdict(f)
    return f


def _rank_order(run, label):
    for n, p in enumerate(run.processes):
        if p.label == label:
            return n
    return len(run.processes)


def _ms(ns):
    return f"{ns / 1e6:.1f} ms"


def verdict(f):
    """The findings in words (a few sentences)."""
    out = []
    s = f["slow_rank"]
    if s is not None:
        out.append(f"{s['rank']} is the slow rank: the others wait for it at {s['last']} of its {s['instances']} "
                   f"collectives (wait caused: median {_ms(s['caused_median_ns'])}, p95 {_ms(s['caused_p95_ns'])}).")
        if f["where"]:
            parts = [f"{_component_text((w['kind'], w['name']))} (+{_ms(w['excess_ns_per_step'])})"
                     for w in f["where"][:3]]
            per = "per step" if f["step"] else "in the run"
            out.append(f"Where it spends the time the others do not, {per}: " + ", ".join(parts) + ".")
    for link in f["slow_links"]:
        out.append(f"Slow link: {link['rank']} on comm {link['comm']}: transit after the last arrival "
                   f"{_ms(link['transit_median_ns'])} (median; the other ranks {_ms(link['others_transit_median_ns'])}), "
                   f"{link['gbps']:.3f} GB/s against {link['others_gbps_median']:.3f}.")
    if not out:
        if f["waits"]:
            out.append(f"Balanced: no rank makes the others wait {_ms(f['threshold_ns'])} or more per collective "
                       "(median), and no link is slow.")
        else:
            out.append("No collectives across ranks: nothing to compare.")
    return " ".join(out)
