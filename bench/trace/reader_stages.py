"""Where `summary` and `analyze` spend their CPU on a trace directory, stage by stage, in one
process (time.process_time: this process's CPU, all its threads; on a shared machine CPU time
moves far less with the load than wall time does). docs/performance.md, "Trace readers".

    PYTHONPATH=python:BUILD/python MSPTI_TRACE_LIB_DIR=BUILD/lib \
        reader_stages.py DIR [--reps 3] [--json OUT]

Stages: start-up (a fresh interpreter importing what `summary` imports, measured in a child),
the C++ decode alone per file (library call and free), the whole read per file (decode and
model), load_dir (every file, in parallel), summarize and findings.analyze on that run. The
best of --reps runs of each.
"""
import argparse
import ctypes
import glob
import json
import os
import subprocess
import sys
import time

STARTUP = ("import time; t = time.process_time(); import mspti_trace.cli, mspti_trace.summary, mspti_trace.analyze, "
           "mspti_trace.readers; print(time.process_time() - t)")


def cpu(fn):
    t = time.process_time()
    out = fn()
    return time.process_time() - t, out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--json")
    ns = p.parse_args()
    from mspti_trace import findings, reader_native, readers, summary
    from mspti_trace.model import COLLECTIVE_CATEGORIES, load_dir
    from mspti_trace.reader_common import STATS_EVENT

    files = sorted(glob.glob(os.path.join(ns.dir, "trace.*.pftrace")))
    size = sum(os.path.getsize(f) for f in files)
    lib = reader_native.library()
    if lib is None or not reader_native.available():
        sys.exit("the native decoder is not found (MSPTI_TRACE_LIB_DIR)")
    cats = (ctypes.c_char_p * len(COLLECTIVE_CATEGORIES))(*(c.encode() for c in COLLECTIVE_CATEGORIES))
    names = (ctypes.c_char_p * 1)(STATS_EVENT.encode())
    stages = {}

    def best(name, fn):
        times = []
        for _ in range(ns.reps):
            t, _out = cpu(fn)
            times.append(t)
        stages[name] = min(times)

    startup = []
    for _ in range(ns.reps):
        r = subprocess.run([sys.executable, "-c", STARTUP], capture_output=True, text=True, check=True)
        startup.append(float(r.stdout.strip().splitlines()[-1]))
    stages["start-up imports (child)"] = min(startup)
    for f in files[:1]:
        best("C++ decode, one file", lambda: lib.mspti_pft_free(lib.mspti_pft_read(os.fsencode(f), cats, 2, names, 1)))
        best("read (decode + model), one file", lambda: readers.read(f))
    best("load_dir, every file", lambda: load_dir(ns.dir))
    run = load_dir(ns.dir)

    def fresh():  # the caches summarize fills on the columns, cleared
        for proc in run.processes:
            proc.cols.__dict__.pop("_groups", None)
            proc._of = {}

    def summarize():
        fresh()
        return summary.summarize(run)

    def analyze():
        fresh()
        return findings.analyze(run)

    best("summarize (findings.analyze inside)", summarize)
    best("findings.analyze", analyze)
    out = {"files": len(files), "bytes": size, "load_average": os.getloadavg(), "cpu_s": stages}
    print(f"{len(files)} files, {size / 1e6:.1f} MB; load average {os.getloadavg()}")
    for k, v in stages.items():
        print(f"  {k:40s} {v:7.3f} s CPU")
    if ns.json:
        with open(ns.json, "w") as fh:
            json.dump(out, fh, indent=1)


if __name__ == "__main__":
    sys.exit(main())
