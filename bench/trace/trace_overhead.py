"""mspti-trace overhead: a kernel-heavy vnpu workload (tests/trace/trace_workload.cpp) run
untraced and traced (libmspti_trace.so + libmspti.so preloaded, every kind, pftrace), interleaved
in the same run; also the trace size in bytes per record.

    trace_overhead.py BUILD_DIR OUT_JSON [--reps 9] [--iters 400] [--kernels 100]
"""
import argparse
import glob
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
from mspti_trace import pftrace_reader  # noqa: E402


def run(cmd, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("out")
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--iters", type=int, default=400)
    ap.add_argument("--kernels", type=int, default=100)
    ns = ap.parse_args()
    lib = os.path.join(ns.build, "lib")
    workload = [os.path.join(ns.build, "bin", "trace_workload"), "--warmup", "0", "--iters", str(ns.iters),
                "--kernels", str(ns.kernels)]
    plain_env = {k: v for k, v in os.environ.items() if not k.startswith("MSPTI_TRACE") and k != "LD_PRELOAD"}
    results = {"untraced": [], "traced": []}
    cpu = {"untraced": [], "traced": []}
    sizes = []
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(ns.reps + 1):  # the first round warms the page cache and is not counted
            order = ["untraced", "traced"] if rep % 2 == 0 else ["traced", "untraced"]
            for what in order:
                env = dict(plain_env)
                if what == "traced":
                    out = os.path.join(tmp, f"r{rep}")
                    os.makedirs(out)
                    env.update(LD_PRELOAD=f"{lib}/libmspti_trace.so {lib}/libmspti.so", MSPTI_TRACE_DIR=out)
                wall, c = run(workload, env)
                if rep == 0:
                    continue
                results[what].append(wall)
                cpu[what].append(c)
                if what == "traced":
                    (path,) = glob.glob(os.path.join(out, "trace.*.pftrace"))
                    t = pftrace_reader.load_pftrace(path, strict=True)
                    st = [e for e in t.events if e["name"] == "mspti-trace stats"][0]["args"]
                    records = sum(v for k, v in st.items() if k.startswith("delivered."))
                    dropped = sum(v for k, v in st.items() if k.startswith("dropped."))
                    sizes.append((os.path.getsize(path), records, dropped))
    med = {k: statistics.median(v) for k, v in results.items()}
    best = {k: min(v) for k, v in results.items()}
    cpu_med = {k: statistics.median(v) for k, v in cpu.items()}
    cpu_min = {k: min(v) for k, v in cpu.items()}
    size, records, dropped = sizes[-1]
    doc = {"reps": ns.reps, "kernels": ns.iters * ns.kernels, "records": records, "dropped": dropped,
           "bytes": size, "bytes_per_record": size / records, "wall_median_s": med, "wall_min_s": best,
           "cpu_median_s": cpu_med, "cpu_min_s": cpu_min, "cpus": os.cpu_count(),
           # every thread's CPU time the tool adds, per record: the writer's, msPTI's and the callbacks'
           "cpu_us_per_record": (cpu_med["traced"] - cpu_med["untraced"]) * 1e6 / records,
           "overhead_median": med["traced"] / med["untraced"] - 1, "overhead_min": best["traced"] / best["untraced"] - 1}
    with open(ns.out, "w") as f:
        json.dump(doc, f, indent=1)
    print(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
