"""``mspti-trace analyze DIR [DIR...]``: which rank is slow, where its time goes, which link is
slow, and the step breakdown per rank (docs/trace.md, "analyze"), as text, CSV or JSON. Several
DIRs (one per host) are put on one clock as ``merge`` does."""

import argparse
import csv
import io
import sys

from . import jsontext
from .findings import analyze
from .steps import collective_category
from .model import NoTraceError, Run, load_dir
from .summary import _short, _table, fmt_ns

CSV_COLUMNS = ("section", "rank", "step", "kind", "name", "comm", "count", "value_ns", "duration_ns", "compute_ns",
               "communication_ns", "overlap_ns", "exposed_communication_ns", "idle_ns", "host_only_ns",
               "median_ns", "p95_ns", "min_ns", "min_rank", "max_ns", "max_rank", "gbps", "others_ns",
               "others_gbps", "text")


def load(directories, aligned=True, log=sys.stderr):
    """One Run over DIRs; with several hosts, each host shifted onto the first one's clock
    (mspti_trace.align)."""
    runs = [load_dir(d) for d in directories]
    if len(runs) == 1:
        return runs[0]
    from . import align, merge  # several hosts only
    groups = merge.host_groups(runs)
    cat = collective_category(Run([p for r in runs for p in r.processes], directories))
    offsets, warnings = align.host_offsets(groups, cat) if aligned else ({h: 0 for h in groups}, [])
    for host, procs in groups.items():
        if offsets[host]:
            print(f"mspti-trace analyze: host {host}: shifted by {offsets[host]} ns", file=log)
            for p in procs:
                p.shift(offsets[host])
    return Run([p for r in runs for p in r.processes], directories,
               [w for r in runs for w in r.warnings] + warnings)


def render_text(run, f):
    parts = [f"mspti-trace analyze: {len(run.processes)} process(es) in {', '.join(run.directories)}"]
    parts += [f"warning: {w}" for w in run.warnings + f["warnings"]]
    parts.append("Verdict: " + f["verdict"])
    step = f"'{f['step']}' ranges" if f["step"] else "the whole run (no step range)"
    if f["step_note"]:
        step += f" ({f['step_note']})"
    per_rank = {}
    for r in f["steps"]:
        per_rank.setdefault(r["rank"], []).append(r)
    cols = ("duration", "compute", "communication", "overlap", "exposed_communication", "idle", "host_only")
    rows = []
    for label, rs in per_rank.items():
        n = len(rs)
        rows.append([label, n] + [fmt_ns(sum(r[c] for r in rs) / n) for c in cols])
    parts.append(_table(f"Steps: {step}, mean per step", ["rank", "steps", "step", "compute", "comm", "overlap",
                                                           "exposed comm", "device idle", "host only"],
                        rows, "<>>>>>>>>"))
    if f["waits"]:
        parts.append(_table(f"Waits at collectives ({f['collective_category']})",
                            ["rank", "collectives", "last", "wait caused (median)", "(p95)", "waited (median)",
                             "waited (total)"],
                            [[w["rank"], w["collectives"], w["last"], fmt_ns(w["caused_median_ns"]),
                              fmt_ns(w["caused_p95_ns"]), fmt_ns(w["waited_median_ns"]), fmt_ns(w["waited_total_ns"])]
                             for w in f["waits"]], "<>>>>>>"))
    if f["where"]:
        parts.append(_table(f"Where {f['slow_rank']['rank']} spends more than the others (per step)",
                            ["kind", "name", "more than the others' median"],
                            [[w["kind"], _short(w["name"]), fmt_ns(w["excess_ns_per_step"])] for w in f["where"]],
                            "<<>"))
    if f["links"]:
        parts.append(_table("Links: transit after the last arrival", ["comm", "rank", "collectives", "transit (median)",
                                                                       "(p95)", "others", "GB/s", "others GB/s"],
                            [[_short(r["comm"], 40), r["rank"], r["collectives"], fmt_ns(r["transit_median_ns"]),
                              fmt_ns(r["transit_p95_ns"]), fmt_ns(r["others_transit_median_ns"]), f"{r['gbps']:.3f}",
                              f"{r['others_gbps_median']:.3f}"] for r in f["links"]], "<<>>>>>>"))
    if f["spread"]:
        parts.append(_table("Kernels and ranges across ranks (total per rank)",
                            ["kind", "name", "ranks", "median", "min", "min rank", "max", "max rank", "spread"],
                            [[r["kind"], _short(r["name"]), r["ranks"], fmt_ns(r["total_median_ns"]), fmt_ns(r["min_ns"]),
                              r["min_rank"], fmt_ns(r["max_ns"]), r["max_rank"], f"{100 * r['spread']:.0f}%"]
                             for r in f["spread"]], "<<>>>>>>>"))
    return "\n\n".join(parts) + "\n"


def render_csv(f):
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    w.writerow({"section": "verdict", "rank": (f["slow_rank"] or {}).get("rank", ""), "name": f["phase"] or "",
                "text": f["verdict"]})
    for r in f["steps"]:
        w.writerow({"section": "step", **{k + "_ns" if k not in ("rank", "step") else k: v for k, v in r.items()
                                          if k not in ("start", "end")}})
    for r in f["waits"]:
        w.writerow({"section": "wait", "rank": r["rank"], "count": r["collectives"], "value_ns": r["waited_total_ns"],
                    "median_ns": r["caused_median_ns"], "p95_ns": r["caused_p95_ns"], "text": f"last {r['last']}"})
    for r in f["where"]:
        w.writerow({"section": "where", "rank": f["slow_rank"]["rank"], "kind": r["kind"], "name": r["name"],
                    "value_ns": r["excess_ns_per_step"]})
    for r in f["links"]:
        w.writerow({"section": "link", "rank": r["rank"], "comm": r["comm"], "count": r["collectives"],
                    "median_ns": r["transit_median_ns"], "p95_ns": r["transit_p95_ns"],
                    "others_ns": r["others_transit_median_ns"], "gbps": r["gbps"], "others_gbps": r["others_gbps_median"],
                    "text": "slow" if r in f["slow_links"] else ""})
    for r in f["per_rank"]:
        w.writerow({"section": "per_rank", "rank": r["rank"], "kind": r["kind"], "name": r["name"], "count": r["count"],
                    "value_ns": r["total_ns"]})
    for r in f["spread"]:
        w.writerow({"section": "spread", "kind": r["kind"], "name": r["name"], "count": r["ranks"],
                    "median_ns": r["total_median_ns"], "min_ns": r["min_ns"], "min_rank": r["min_rank"],
                    "max_ns": r["max_ns"], "max_rank": r["max_rank"], "value_ns": r["spread"]})
    return buf.getvalue()


def main(argv):
    p = argparse.ArgumentParser(prog="mspti-trace analyze",
                                description="The slow rank, where its time goes, slow links and the step breakdown.")
    p.add_argument("dirs", nargs="+", metavar="DIR", help="trace directories (one per host for multi-host runs)")
    p.add_argument("--step", metavar="NAME", help="the mstx range that is one step (default: the outermost range "
                                                  "repeated on every rank)")
    p.add_argument("--format", choices=("text", "csv", "json"), default="text")
    p.add_argument("-o", "--output", metavar="FILE", help="write there instead of stdout")
    p.add_argument("--no-align", action="store_true", help="do not shift hosts onto one clock")
    ns = p.parse_args(argv)
    try:
        run = load(ns.dirs, aligned=not ns.no_align)
        f = analyze(run, ns.step)
        if ns.format == "json":
            out = jsontext.dumps(f, indent=1, flat_rows=True) + "\n"  # one line per table row
        elif ns.format == "csv":
            out = render_csv(f)
        else:
            out = render_text(run, f)
        if ns.output:
            with open(ns.output, "w", encoding="utf-8", newline="") as fh:
                fh.write(out)
        else:
            sys.stdout.write(out)
    except (NoTraceError, ValueError, OSError) as e:
        print(f"mspti-trace analyze: {e}", file=sys.stderr)
        return 2
    return 0
