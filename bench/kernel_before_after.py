#!/usr/bin/env python3
"""KERNEL collection overhead of two builds (before and after a change), measured in one run:
- instructions per kernel (bench/kernel_overhead_instructions.sh: callgrind, the slope between two
  amounts of fixed work), the two builds side by side (the counts do not depend on the load);
- process CPU and wall time per kernel in strict pairs (bench_kernel_overhead --pairs), in blocks
  that alternate between the builds, so that a slow stretch of the machine falls on both;
- the after build's Google Benchmark repetitions (the table's orientation rows).
The machine's load average is written down before and after.

Writes into OUT_DIR: kernel_before_after.json (both builds), and for the after build the files
write_performance_md.py's KERNEL section reads (kernel_overhead_pairs.json,
kernel_overhead_instructions.json, bench_kernel_overhead.json).
With --doc, that section of the document is rewritten and nothing else.

Usage: kernel_before_after.py BEFORE_BUILD AFTER_BUILD OUT_DIR [--doc docs/performance.md]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def env():
    e = dict(os.environ)
    for name in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "LD_PRELOAD", "MSPTI_LIBRARY"):
        e.pop(name, None)  # each build's benchmark finds its own libraries (RUNPATH)
    return e


def commit(build):
    """The short commit of the source tree a build directory was configured from (its working tree may differ)."""
    home = build
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith("CMAKE_HOME_DIRECTORY:INTERNAL="):
                home = line.split("=", 1)[1].strip()
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                          cwd=home).stdout.strip()


def instructions(builds, outs):
    """Both builds' instruction counts, run side by side (callgrind's counts do not depend on the load)."""
    procs = [subprocess.Popen(["bash", os.path.join(HERE, "kernel_overhead_instructions.sh"), b, o], env=env(),
                              stdout=subprocess.DEVNULL) for b, o in zip(builds, outs)]
    if any(p.wait() != 0 for p in procs):
        sys.exit("kernel_before_after: kernel_overhead_instructions.sh failed")
    result = []
    for o in outs:
        with open(o) as f:
            result.append(json.load(f))
    return result


def pairs(build, n):
    proc = subprocess.run([os.path.join(build, "bin", "bench_kernel_overhead"), f"--pairs={n}"], env=env(),
                          capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        sys.exit(f"kernel_before_after: {build} --pairs exited {proc.returncode}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)


def merge(runs):
    out = dict(runs[0])
    out["pairs"] = sum(r["pairs"] for r in runs)
    out["records_per_kernel"] = min(r["records_per_kernel"] for r in runs)
    for field in ("cpu_ns_per_kernel", "host_thread_cpu_ns_per_kernel", "wall_ns_per_kernel"):
        if field not in runs[0]:
            continue  # a build from before the host thread was measured apart
        out[field] = {side: [x for r in runs for x in r[field][side]] for side in ("baseline", "collect")}
    return out


def summary(p):
    def ratio(field):
        r = sorted(c / b for b, c in zip(p[field]["baseline"], p[field]["collect"]))
        q = statistics.quantiles(r, n=4)
        return {"median": statistics.median(r), "q1": q[0], "q3": q[2]}
    return {"pairs": p["pairs"], "records_per_kernel": p["records_per_kernel"],
            "cpu_ns": {s: statistics.median(p["cpu_ns_per_kernel"][s]) for s in ("baseline", "collect")},
            "cpu_ratio": ratio("cpu_ns_per_kernel"), "wall_ratio": ratio("wall_ns_per_kernel")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("out")
    parser.add_argument("--doc")
    parser.add_argument("--blocks", type=int, default=4, help="alternating blocks of pairs per build")
    parser.add_argument("--pairs", type=int, default=50, help="pairs per block")
    parser.add_argument("--callgrind-runs", type=int, default=1, help="callgrind runs per build")
    parser.add_argument("--instructions", nargs=2, metavar=("BEFORE_JSON", "AFTER_JSON"),
                        help="kernel_overhead_instructions.sh results to use instead of counting again")
    args = parser.parse_args()
    before, after = os.path.abspath(args.before), os.path.abspath(args.after)
    os.makedirs(args.out, exist_ok=True)
    result = {"load_before": os.getloadavg(), "cores": os.cpu_count(),
              "commits": {"before": commit(before), "after": commit(after)}}

    ins = {"before": [], "after": []}
    if args.instructions:  # counted already (load-independent), e.g. while tests ran
        for side, path in zip(("before", "after"), args.instructions):
            with open(path) as f:
                ins[side].append(json.load(f))
    for run in range(0 if args.instructions else args.callgrind_runs):
        print(f"== instructions, run {run + 1} of {args.callgrind_runs}, both builds", file=sys.stderr)
        b, a = instructions((before, after), [os.path.join(args.out, f"instructions_{side}_{run}.json")
                                              for side in ("before", "after")])
        ins["before"].append(b)
        ins["after"].append(a)
    blocks = {"before": [], "after": []}
    for b in range(args.blocks):
        order = (("before", before), ("after", after)) if b % 2 == 0 else (("after", after), ("before", before))
        for side, build in order:
            print(f"== pairs, block {b + 1} of {args.blocks}, {side}", file=sys.stderr)
            blocks[side].append(pairs(build, args.pairs))
    print("== Google Benchmark repetitions, after", file=sys.stderr)
    subprocess.run([os.path.join(after, "bin", "bench_kernel_overhead"),
                    f"--benchmark_out={os.path.join(args.out, 'bench_kernel_overhead.json')}",
                    "--benchmark_out_format=json"], env=env(), check=True, stdout=subprocess.DEVNULL)
    result["load_after"] = os.getloadavg()

    for side in ("before", "after"):
        merged = merge(blocks[side])
        per = [r["instructions_per_kernel"] for r in ins[side]]
        result[side] = {
            "instructions": {m: statistics.mean(p[m] for p in per) for m in ("collect", "baseline")},
            "instructions_runs": per,
            **summary(merged),
        }
        if side == "after":
            with open(os.path.join(args.out, "kernel_overhead_pairs.json"), "w") as f:
                json.dump(merged, f)
            i = result[side]["instructions"]
            with open(os.path.join(args.out, "kernel_overhead_instructions.json"), "w") as f:
                json.dump({"instructions_per_kernel": i, "overhead_percent": (i["collect"] / i["baseline"] - 1) * 100,
                           "kernels": ins[side][0]["kernels"]}, f)
    with open(os.path.join(args.out, "kernel_before_after.json"), "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps({s: {k: result[s][k] for k in ("instructions", "cpu_ratio")} for s in ("before", "after")}))

    if args.doc:
        sys.path.insert(0, HERE)
        import write_performance_md as w
        with open(args.doc) as f:
            lines = f.read().split("\n")
        section = w.kernel_section(args.out)
        start = lines.index(section[0])
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        lines[start:end] = section
        with open(args.doc, "w") as f:
            f.write("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
