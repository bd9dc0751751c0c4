#!/usr/bin/env python3
"""KERNEL collection against its floor, in one run: bench_kernel_floor --pairs (the runtime's reports
and the device's SoC log asked for through libprofapi and libascend_hal and read, nothing parsed, no
libmspti) and bench_kernel_overhead --pairs (libmspti collecting KERNEL records), strict pairs each,
in blocks that alternate between the two so that a slow stretch of the machine falls on both.
Prints JSON: per program, the median per-pair overhead of process CPU, of the host thread's CPU and
of wall time (with interquartile ranges), the medians per kernel, and the device records per kernel.

With --before BUILD, that build's bench_kernel_overhead (libmspti before a change) joins the rotation.

Usage: kernel_floor.py BUILD OUT_JSON [--blocks 10] [--pairs-per-block 20] [--before BUILD] [--doc docs/performance.md]
With --doc, its section of the document ("KERNEL collection against its floor") is rewritten from OUT_JSON
(named kernel_floor.json, as bench/run_benchmarks.sh writes it, for the whole document).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from kernel_before_after import commit, env, merge  # noqa: E402

PROGRAMS = {"floor": "bench_kernel_floor", "libmspti": "bench_kernel_overhead", "before": "bench_kernel_overhead"}
FIELDS = {"process_cpu": "cpu_ns_per_kernel", "host_thread_cpu": "host_thread_cpu_ns_per_kernel",
          "wall": "wall_ns_per_kernel"}


def pairs(build, program, n):
    proc = subprocess.run([os.path.join(build, "bin", program), f"--pairs={n}"], env=env(), capture_output=True,
                          text=True, timeout=1800)
    if proc.returncode != 0:
        sys.exit(f"kernel_floor: {program} --pairs={n} exited {proc.returncode}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def summary(p):
    out = {"pairs": p["pairs"], "kernels_per_run": p["kernels_per_run"], "records_per_kernel": p["records_per_kernel"]}
    for name, field in FIELDS.items():
        ratios = sorted(c / b for b, c in zip(p[field]["baseline"], p[field]["collect"]))
        q = statistics.quantiles(ratios, n=4)
        out[name] = {"baseline_ns": statistics.median(p[field]["baseline"]),
                     "collect_ns": statistics.median(p[field]["collect"]),
                     "overhead": {"median": statistics.median(ratios) - 1, "q1": q[0] - 1, "q3": q[2] - 1}}
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build")
    parser.add_argument("out")
    parser.add_argument("--blocks", type=int, default=10)
    parser.add_argument("--pairs-per-block", type=int, default=20)
    parser.add_argument("--before")
    parser.add_argument("--doc")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    result = {"load_before": os.getloadavg(), "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "blocks": args.blocks}
    builds = {"floor": build, "libmspti": build}
    if args.before:
        builds["before"] = os.path.abspath(args.before)
        result["before_commit"] = commit(builds["before"])
    result["commit"] = commit(build)
    runs = {name: [] for name in builds}
    for block in range(args.blocks):
        order = list(builds)[block % len(builds):] + list(builds)[:block % len(builds)]  # rotated
        for name in order:
            runs[name].append(pairs(builds[name], PROGRAMS[name], args.pairs_per_block))
    result.update({name: summary(merge(r)) for name, r in runs.items()})
    result["load_after"] = os.getloadavg()
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    for name in builds:
        s = result[name]
        print(f"{name}: process CPU {s['process_cpu']['overhead']['median']:+.1%} "
              f"(IQR {s['process_cpu']['overhead']['q1']:+.1%}..{s['process_cpu']['overhead']['q3']:+.1%}), "
              f"host thread {s['host_thread_cpu']['overhead']['median']:+.1%}, "
              f"wall {s['wall']['overhead']['median']:+.1%}, records/kernel {s['records_per_kernel']:.3f}")
    if args.doc:
        import write_performance_md as w
        results = os.path.dirname(os.path.abspath(args.out))
        if os.path.basename(args.out) != "kernel_floor.json":
            sys.exit("kernel_floor: --doc reads OUT_JSON as kernel_floor.json; name it so")
        w.splice_sections(args.doc, results, ["kernel_floor"])
        print(f"rewrote the KERNEL floor section of {args.doc}", file=sys.stderr)


if __name__ == "__main__":
    main()
