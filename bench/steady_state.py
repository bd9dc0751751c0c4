#!/usr/bin/env python3
"""Markers in steady state, every client in one run (docs/performance.md, "Steady state").

Runs bench_steady_state (C: a recycling client, a fresh-8-MB-buffer client, the C++ Monitor with
per-record and batch callbacks), bench_marker_floor (the least a collector could do, no libmspti),
bench/python/steady_state_bench.py and the Java SteadyStateBench, each with loops that fill at least
20 buffers, and counts the instructions per collected mark over every thread under callgrind
(marker_names_program: marking, the drain and the client reading each record, as the slope between
two numbers of marks so that start-up and exit cancel out). With --baseline-lib DIR the C clients
and the instruction count are also measured against the libmspti in DIR (LD_LIBRARY_PATH),
interleaved with ours, in the same run.

Usage: steady_state.py BUILD_DIR OUT_JSON [--baseline-lib DIR] [--doc docs/performance.md]
       [--reps N] [--skip python,java,callgrind,kernel_instructions,trace_instructions] [--others]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENTS = ["recycle", "fresh", "monitor", "monitor-batch"]
FLOORS = ["direct", "ring"]  # bench_marker_floor's designs
CALLGRIND_MARKS = (200_000, 1_200_000)


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def env_with(lib_dir):
    env = dict(os.environ)
    if lib_dir:
        env["LD_LIBRARY_PATH"] = lib_dir + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
        env["MSPTI_LIBRARY"] = os.path.join(lib_dir, "libmspti.so")
    return env


def c_client(build, client, reps, lib_dir=None):
    r = subprocess.run([os.path.join(build, "bin", "bench_steady_state"), client, str(reps)], env=env_with(lib_dir),
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"bench_steady_state {client} (lib {lib_dir or 'ours'}) failed: {r.stderr.strip()}")
    return json.loads(r.stdout)


def instructions(program, marks, lib_dir=None):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", program, "same", str(marks)],
                       env=env_with(lib_dir), check=True, capture_output=True)
        with open(out) as f:
            for line in f:
                if line.startswith("summary:"):
                    return int(line.split()[1])
    raise SystemExit("callgrind gave no summary")


def per_mark(build, lib_dir=None):
    program = os.path.join(build, "bin", "marker_names_program")
    low, high = (instructions(program, n, lib_dir) for n in CALLGRIND_MARKS)
    return (high - low) / (CALLGRIND_MARKS[1] - CALLGRIND_MARKS[0])


def others(build, results_dir, baseline_lib, skip):
    """Figures docs/performance.md holds elsewhere, re-measured beside the steady-state ones."""
    got = {}
    for key, lib in (("thread_cpu", None), ("thread_cpu_baseline", baseline_lib)):
        if key.endswith("baseline") and not lib:
            continue
        print(f"== bench_marker_thread_cpu ({lib or 'ours'})", file=sys.stderr)
        r = subprocess.run([os.path.join(build, "bin", "bench_marker_thread_cpu")], env=env_with(lib), check=True,
                           capture_output=True, text=True)
        got[key] = json.loads(r.stdout)
        if lib is None:  # its own section of performance.md is rewritten from this
            with open(os.path.join(results_dir, "bench_marker_thread_cpu.json"), "w") as f:
                f.write(r.stdout)
    for key, script in (("kernel_instructions", os.path.join(HERE, "kernel_overhead_instructions.sh")),
                        ("trace_instructions", os.path.join(HERE, "trace", "trace_overhead_instructions.sh"))):
        if key in skip:
            continue
        print(f"== {os.path.basename(script)}", file=sys.stderr)
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out.json")
            subprocess.run(["bash", script, build, out], check=True, capture_output=True)
            with open(out) as f:
                got[key] = json.load(f)
    jar = os.path.join(build, "java", "mspti-bench.jar")
    java = os.path.join(os.environ.get("JAVA_HOME", "/usr/lib/jvm/java-17-openjdk-amd64"), "bin", "java")
    print("== java DeliveryBench", file=sys.stderr)  # ours only (see main)
    r = subprocess.run([java, "-cp", os.path.join(build, "java", "mspti.jar") + ":" + jar, "DeliveryBench", "1000000",
                        os.path.join(build, "bin", "bench_cpp_delivery")], check=True, capture_output=True, text=True)
    got["java_delivery"] = json.loads(r.stdout)
    return got


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("build")
    p.add_argument("out")
    p.add_argument("--baseline-lib")
    p.add_argument("--baseline-label", default="main before this change",
                   help="what the --baseline-lib library is, for the document (e.g. 'commit abc1234')")
    p.add_argument("--doc")
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--skip", default="")
    p.add_argument("--others", action="store_true",
                   help="also re-measure, in the same run: the 2-thread CPU ratio (ours and the baseline), the"
                        " KERNEL and mspti-trace overheads in instructions, and Java delivery")
    args = p.parse_args()
    build = os.path.abspath(args.build)
    skip = set(filter(None, args.skip.split(",")))
    commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    result = {"load_before": loadavg(), "reps": args.reps, "c": {}, "c_baseline": {},
              "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": commit.stdout.strip()}
    if args.baseline_lib:
        result["baseline_label"] = args.baseline_label
    # Ours and the baseline alternate client by client, so that a busy stretch falls on both.
    for client in CLIENTS:
        print(f"== steady state, C, {client}", file=sys.stderr)
        result["c"][client] = c_client(build, client, args.reps)
        if args.baseline_lib:
            result["c_baseline"][client] = c_client(build, client, args.reps, args.baseline_lib)
    # The floor of a marker on this host (no libmspti), measured the same way, between the clients.
    floor = os.path.join(build, "bin", "bench_marker_floor")
    if os.path.exists(floor):
        result["floor"] = {}
        for design in FLOORS:
            print(f"== steady state, floor, {design}", file=sys.stderr)
            r = subprocess.run([floor, design, str(args.reps)], capture_output=True, text=True)
            if r.returncode != 0:
                raise SystemExit(f"bench_marker_floor {design} failed: {r.stderr.strip()}")
            result["floor"][design] = json.loads(r.stdout)
    record_bytes = result["c"]["recycle"]["record_bytes"]
    records = result["c"]["recycle"]["records_per_loop"]
    if "python" not in skip and os.path.isdir(os.path.join(build, "python", "mspti")):
        for key, lib in (("python", None), ("python_baseline", args.baseline_lib)):
            if key.endswith("baseline") and not lib:
                continue
            print(f"== steady state, Python ({lib or 'ours'})", file=sys.stderr)
            with tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, "py.json")
                env = dict(env_with(lib), PYTHONPATH=os.path.join(build, "python"))
                subprocess.run(["/usr/bin/python3", os.path.join(HERE, "python", "steady_state_bench.py"), out,
                                str(records)], env=env, check=True, capture_output=True)
                with open(out) as f:
                    result[key] = json.load(f)
    jar = os.path.join(build, "java", "mspti-bench.jar")
    if "java" not in skip and os.path.isfile(jar):
        java = os.path.join(os.environ.get("JAVA_HOME", "/usr/lib/jvm/java-17-openjdk-amd64"), "bin", "java")
        # Ours only: the jar loads its own native libraries, so LD_LIBRARY_PATH does not swap libmspti
        # for the Java side alone (a baseline run delivered nothing).
        print("== steady state, Java", file=sys.stderr)
        r = subprocess.run([java, "-cp", os.path.join(build, "java", "mspti.jar") + ":" + jar, "SteadyStateBench",
                            str(records)], check=True, capture_output=True, text=True)
        result["java"] = json.loads(r.stdout)
    if "callgrind" not in skip:
        print("== instructions per collected mark (callgrind)", file=sys.stderr)
        result["instructions_per_mark"] = per_mark(build)
        if args.baseline_lib:
            result["instructions_per_mark_baseline"] = per_mark(build, args.baseline_lib)
    if args.others:
        result["others"] = others(build, os.path.dirname(os.path.abspath(args.out)), args.baseline_lib, skip)
    result["load_after"] = loadavg()
    result["record_bytes"] = record_bytes
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    if args.doc:
        sys.path.insert(0, HERE)
        import write_performance_md as w
        w.splice_sections(args.doc, os.path.dirname(os.path.abspath(args.out)), ["steady"])
        print(f"rewrote the steady-state section of {args.doc}", file=sys.stderr)


if __name__ == "__main__":
    main()
