#!/usr/bin/env python3
"""msPTI's library and ours side by side, from one run, on the same workloads (side_by_side_workload.c
and python_delivery.py, each built against and run on one CANN tree: <build>/ascend with our libmspti,
<build>/ascend-upstream with msPTI's, built from MSPTI_UPSTREAM_SOURCE):
- KERNEL collection overhead: strict rounds of the four runs (each library collecting and not), in an
  order rotated each round, process CPU and wall time per kernel; and user-space instructions per kernel
  (callgrind, the slope between two amounts of work, so that start-up and exit cancel out).
- Marker cost: instructions per mstxMarkA collected (callgrind slope, the drain included), and the
  marking thread's CPU time and wall time per call (median of runs).
- Python per-record delivery: each library's own package, MstxMonitor mark callback.
The machine's load (load average, before and after) is written down with the results.

Usage: side_by_side.py <build dir> <out.json> [--doc docs/performance.md] [--kernel-only]
With --doc, the section of performance.md is rewritten from the results (write_performance_md.py's
side_by_side_section); bench/run_benchmarks.sh runs this script and writes the whole file.
With --kernel-only, only the KERNEL figures are measured (and no section is rewritten): written as
kernel_side_by_side.json into kernel_before_after.py's OUT_DIR, the KERNEL section shows them.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SIDES = {"ours": "ascend", "msPTI": "ascend-upstream"}


def tree_env(root, preload=True):
    lib64 = os.path.join(root, "lib64")
    env = dict(os.environ, ASCEND_HOME_PATH=root, ASCEND_TOOLKIT_HOME=root, ASCEND_OPP_PATH=os.path.join(root, "opp"),
               LD_LIBRARY_PATH=lib64 + ":" + os.environ.get("LD_LIBRARY_PATH", ""))
    env.pop("MSPTI_LIBRARY", None)
    if preload:
        env["LD_PRELOAD"] = os.path.join(lib64, "libmspti.so")
    return env


def build(cc, root, work, tag):
    """The workload and mark_loop.so against one tree."""
    inc, lib64 = "-I" + os.path.join(root, "include"), "-L" + os.path.join(root, "lib64")
    exe = os.path.join(work, f"workload_{tag}")
    subprocess.run([cc, "-std=c11", "-O2", "-o", exe, os.path.join(HERE, "side_by_side_workload.c"), inc, lib64,
                    "-lmspti", "-lascendcl", "-lopapi", "-lnnopbase", "-lpthread"], check=True)
    loop = os.path.join(work, f"mark_loop_{tag}.so")
    subprocess.run([cc, "-std=c11", "-O2", "-shared", "-fPIC", "-o", loop, os.path.join(HERE, "mark_loop.c"), inc,
                    "-ldl"], check=True)
    return exe, loop


def run_json(cmd, env):
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        sys.exit(f"side_by_side: {cmd} exited {proc.returncode}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def callgrind(cmd, env, tmp):
    """User-space instructions of every thread of one run."""
    out = os.path.join(tmp, "cg.out")
    proc = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + cmd, env=env,
                          capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        sys.exit(f"side_by_side: callgrind {cmd} exited {proc.returncode}: {proc.stderr[-2000:]}")
    with open(out) as f:
        for line in f:
            if line.startswith("summary:"):
                return int(line.split()[1])
    sys.exit(f"side_by_side: no summary in callgrind's output for {cmd}")


def slope(cmd_for, n_small, n_large, env, tmp):
    return (callgrind(cmd_for(n_large), env, tmp) - callgrind(cmd_for(n_small), env, tmp)) / (n_large - n_small)


def quartiles(values):
    q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
    return {"median": statistics.median(values), "q1": q[0], "q3": q[2]}


def measure(build_dir, rounds, python, kernel_only=False, batches=16):
    work = os.path.join(build_dir, "bench-results", "side_by_side")
    os.makedirs(work, exist_ok=True)
    cc = shutil.which("cc") or "gcc"
    roots = {side: os.path.join(build_dir, sub) for side, sub in SIDES.items()}
    built = {side: build(cc, root, work, side) for side, root in roots.items()}
    envs = {side: tree_env(root) for side, root in roots.items()}
    result = {"load_before": os.getloadavg(), "cores": os.cpu_count(), "rounds": rounds}

    # KERNEL: rounds of the four runs, rotated, so that a slow stretch falls on all of them.
    kernels = batches * 256
    runs = [(side, mode) for side in SIDES for mode in ("baseline", "collect")]
    per = {run: [] for run in runs}
    for i in range(rounds):
        order = runs[i % 4:] + runs[:i % 4]
        for side, mode in order:
            per[(side, mode)].append(run_json([built[side][0], "kernel", mode, str(batches)], envs[side]))
    result["kernel"] = {}
    for side in SIDES:
        base, coll = per[(side, "baseline")], per[(side, "collect")]
        result["kernel"][side] = {
            "kernels_per_run": kernels,
            "records_per_kernel": statistics.median(r["records"] for r in coll) / kernels,
            "cpu_ns": {"baseline": statistics.median(r["cpu_ns"] for r in base) / kernels,
                       "collect": statistics.median(r["cpu_ns"] for r in coll) / kernels},
            "wall_ns": {"baseline": statistics.median(r["loop_wall_ns"] for r in base) / kernels,
                        "collect": statistics.median(r["loop_wall_ns"] for r in coll) / kernels},
            "delivered_wall_ns": statistics.median(r["wall_ns"] for r in coll) / kernels,
            "cpu_ratio": quartiles([c["cpu_ns"] / b["cpu_ns"] for b, c in zip(base, coll)]),
            "wall_ratio": quartiles([c["loop_wall_ns"] / b["loop_wall_ns"] for b, c in zip(base, coll)]),
        }

    if kernel_only:
        with tempfile.TemporaryDirectory() as tmp:
            if shutil.which("valgrind"):
                for side in SIDES:
                    kernel_instructions(result, side, built[side][0], envs[side], tmp)
        result["load_after"] = os.getloadavg()
        return result

    # Markers: wall time per call, runs of a million interleaved.
    marks = 1_000_000
    mark_runs = {(side, mode): [] for side in SIDES for mode in ("off", "on")}
    for _ in range(5):
        for side, mode in mark_runs:
            mark_runs[(side, mode)].append(run_json([built[side][0], "mark", mode, str(marks)], envs[side]))
    def per_mark(side, mode, field):
        return statistics.median(r[field] for r in mark_runs[(side, mode)]) / marks

    result["mark"] = {side: {"wall_ns": {mode: per_mark(side, mode, "wall_ns") for mode in ("off", "on")},
                             "thread_cpu_ns": {mode: per_mark(side, mode, "cpu_ns") for mode in ("off", "on")},
                             "records_per_mark": per_mark(side, "on", "records")}
                      for side in SIDES}

    # Instructions (callgrind): KERNEL per kernel, and markers per mark.
    with tempfile.TemporaryDirectory() as tmp:
        if shutil.which("valgrind"):
            for side in SIDES:
                exe = built[side][0]
                kernel_instructions(result, side, exe, envs[side], tmp)
                m = {mode: slope(lambda n, mode=mode: [exe, "mark", mode, str(n)], 20_000, 100_000, envs[side], tmp)
                     for mode in ("off", "on")}
                result["mark"][side]["instructions"] = m

    # Python: each side's own package first on the path (its tree's site-packages), ours for vnpu after.
    pydir = os.path.join(build_dir, "python")
    deliveries = {side: [] for side in SIDES}
    for _ in range(3):
        for side, root in roots.items():
            env = tree_env(root)
            env["PYTHONPATH"] = os.path.join(root, "python", "site-packages") + ":" + pydir
            deliveries[side].append(run_json([python, os.path.join(HERE, "python_delivery.py"), built[side][1],
                                              "200000"], env))
    result["python"] = {side: {"records_per_s": max(d["records_per_s"] for d in ds),
                               "delivered": min(d["delivered"] for d in ds), "marks": ds[0]["marks"],
                               "before_flush": max(d["before_flush"] for d in ds),
                               "package": ds[0]["package"]} for side, ds in deliveries.items()}
    result["load_after"] = os.getloadavg()
    return result


def kernel_instructions(result, side, exe, env, tmp):
    """KERNEL instructions per kernel of one side, twice: the two slopes show how far the count moves
    between runs (the libraries' threads wake on timers, which callgrind's slowed-down run fires more
    often per kernel)."""
    runs_k = [{mode: slope(lambda n, mode=mode: [exe, "kernel", mode, str(n)], 4, 20, env, tmp)
               / 256 for mode in ("baseline", "collect")} for _ in range(2)]
    result["kernel"][side]["instructions"] = {
        mode: statistics.mean(r[mode] for r in runs_k) for mode in ("baseline", "collect")}
    result["kernel"][side]["instructions_added_runs"] = [r["collect"] - r["baseline"] for r in runs_k]


def splice(doc, section_lines, notes_first_line):
    """doc with its side-by-side section replaced by section_lines (or inserted before the notes)."""
    with open(doc) as f:
        lines = f.read().split("\n")
    heading = section_lines[0]
    if heading in lines:
        start = lines.index(heading)
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        lines[start:end] = section_lines
    elif notes_first_line in lines:
        at = lines.index(notes_first_line)
        lines[at:at] = section_lines
    else:
        lines += section_lines
    with open(doc, "w") as f:
        f.write("\n".join(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build")
    parser.add_argument("out")
    parser.add_argument("--doc")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--batches", type=int, default=16,
                        help="KERNEL: batches of 256 kernels per run (more: less noise per run)")
    parser.add_argument("--python", default="/usr/bin/python3")
    parser.add_argument("--kernel-only", action="store_true", help="the KERNEL figures only; no --doc")
    args = parser.parse_args()
    build_dir = os.path.abspath(args.build)
    if not os.path.exists(os.path.join(build_dir, "ascend-upstream", "lib64", "libmspti.so")):
        print("side_by_side: no msPTI library in the build (configure with MSPTI_UPSTREAM_SOURCE); skipped",
              file=sys.stderr)
        return 0
    result = measure(build_dir, args.rounds, args.python, args.kernel_only, args.batches)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    if args.doc and not args.kernel_only:
        sys.path.insert(0, os.path.dirname(HERE))
        import write_performance_md as w
        notes = os.path.join(os.path.dirname(os.path.abspath(args.doc)), "performance-notes.md")
        first = open(notes).readline().rstrip("\n") if os.path.exists(notes) else ""
        splice(args.doc, w.side_by_side_section(os.path.dirname(os.path.abspath(args.out)),
                                                os.path.basename(args.out)), first)
    return 0


if __name__ == "__main__":
    sys.exit(main())
