"""mspti-trace readers: how fast `summary` and `analyze` read pftrace, and how much memory `merge`
takes, for the readers of a git revision ("before") and of this tree ("after"), in the same run on
the same traces (docs/performance.md, "trace readers").

The traces: one traced run of the tiny-kernel workload (tests/trace/trace_workload) with RANKS
ranks under vnpu.run, its iterations chosen so that each rank's pftrace is about MB megabytes.
Each command runs as its own process under /usr/bin/time: wall time, and peak RSS (the largest
of the process and the workers it waits for; summary and analyze read the files in parallel,
one worker per CPU).

    reader_speed.py BUILD_DIR OUT_JSON [--ranks 8] [--mb 50] [--before main] [--reps 1] [--keep DIR]
                    [--only summary,analyze,merge] [--variants before,after] [--timeout S]
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
PYTHON = "/usr/bin/python3"


def traced_run(build, out, ranks, iters):
    cmd = [os.path.join(build, "bin", "mspti-trace"), "-o", out, "--", PYTHON, "-m", "vnpu.run",
           "--nproc_per_node", str(ranks), os.path.join(ROOT, "tests", "trace", "exec_rank.py"),
           os.path.join(build, "bin", "trace_workload"), "--iters", str(iters), "--kernels", "20"]
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"))
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return sorted(glob.glob(os.path.join(out, "trace.*.pftrace")))


def make_traces(build, base, ranks, mb):
    """Calibrates bytes per iteration on one small run, then makes the real one."""
    probe = traced_run(build, os.path.join(base, "probe"), 1, 200)
    per_iter = os.path.getsize(probe[0]) / 200
    iters = max(200, int(mb * 1e6 / per_iter))
    files = traced_run(build, os.path.join(base, "traces"), ranks, iters)
    return os.path.join(base, "traces"), files, iters


def before_tree(rev, base):
    """The readers of revision rev (python/mspti_trace), exported beside the build's generated modules."""
    d = os.path.join(base, "before")
    os.makedirs(d)
    archive = subprocess.run(["git", "-C", ROOT, "archive", rev, "python/mspti_trace"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", d], input=archive, check=True)
    return os.path.join(d, "python")


def measure(pythonpath, build, args, timeout):
    """(wall s, peak RSS MB, CPU s: user + system) of `python3 -m mspti_trace ARGS`; None past
    timeout seconds. The
    native decoder (libmspti_trace_reader.so) is found in the build's lib/."""
    env = dict(os.environ, PYTHONPATH=f"{pythonpath}{os.pathsep}{os.path.join(build, 'python')}",
               MSPTI_TRACE_LIB_DIR=os.path.join(build, "lib"))
    try:
        r = subprocess.run(["/usr/bin/time", "-f", "%e %M %U %S", PYTHON, "-m", "mspti_trace", *args], env=env,
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if r.returncode != 0:
        raise RuntimeError(f"{args}: exit {r.returncode}: {r.stderr[-2000:]}")
    wall, kb, user, system = r.stderr.strip().splitlines()[-1].split()
    return float(wall), int(kb) / 1024, float(user) + float(system)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("build")
    p.add_argument("out")
    p.add_argument("--ranks", type=int, default=8)
    p.add_argument("--mb", type=float, default=50)
    p.add_argument("--before", default="main", help="git revision of the readers to compare with")
    p.add_argument("--reps", type=int, default=1)
    p.add_argument("--keep", help="reuse (or keep) the traces in this directory")
    p.add_argument("--only", default="summary,analyze,merge", help="comma list of the commands to time")
    p.add_argument("--timeout", type=float, default=None, help="seconds a command may run (then: did not finish)")
    p.add_argument("--variants", default="before,after", help="comma list: before, after")
    ns = p.parse_args()
    build = os.path.abspath(ns.build)
    base = ns.keep or tempfile.mkdtemp(prefix="reader_speed_")
    os.makedirs(base, exist_ok=True)
    traces = os.path.join(base, "traces")
    if os.path.isdir(traces) and glob.glob(os.path.join(traces, "trace.*.pftrace")):
        files, iters = sorted(glob.glob(os.path.join(traces, "trace.*.pftrace"))), None
    else:
        traces, files, iters = make_traces(build, base, ns.ranks, ns.mb)
    total = sum(os.path.getsize(f) for f in files)
    wanted = ns.variants.split(",")
    variants = {}
    if "before" in wanted:
        variants["before"] = before_tree(ns.before, tempfile.mkdtemp(prefix="before_", dir=base))
    if "after" in wanted:
        variants["after"] = os.path.join(ROOT, "python")
    merged = os.path.join(base, "merged.pftrace")
    commands = {"summary": ["summary", traces], "analyze": ["analyze", traces, "--format", "json", "-o", os.devnull],
                "merge": ["merge", traces, "-o", merged]}
    commands = {k: v for k, v in commands.items() if k in ns.only.split(",")}
    results = {"files": len(files), "bytes": total, "iters_per_rank": iters, "cpus": os.cpu_count(),
               "load_average": os.getloadavg(), "runs": {}}
    print(f"{len(files)} files, {total / 1e6:.1f} MB; load average {os.getloadavg()}", flush=True)
    for rep in range(ns.reps):
        for name, args in commands.items():
            for variant, path in variants.items():  # before and after alternate, command by command
                got = measure(path, build, args, ns.timeout)
                if got is None:
                    results["runs"].setdefault(f"{name}/{variant}", []).append({"timed_out_s": ns.timeout})
                    print(f"{name:8s} {variant:6s} did not finish in {ns.timeout} s", flush=True)
                    continue
                wall, rss, cpu = got
                results["runs"].setdefault(f"{name}/{variant}", []).append(
                    {"wall_s": wall, "mb_per_s": total / 1e6 / wall, "peak_rss_mb": rss, "cpu_s": cpu,
                     "mb_per_cpu_s": total / 1e6 / cpu, "load_average": os.getloadavg()})
                print(f"{name:8s} {variant:6s} {wall:7.2f} s {total / 1e6 / wall:7.1f} MB/s, CPU {cpu:7.2f} s "
                      f"{total / 1e6 / cpu:7.1f} MB per CPU s, peak RSS {rss:7.1f} MB, load {os.getloadavg()[0]:.1f}",
                      flush=True)
    results["load_average_after"] = os.getloadavg()
    with open(ns.out, "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
