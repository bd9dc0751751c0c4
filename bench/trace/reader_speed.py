"""mspti-trace readers: how fast `summary` and `analyze` read pftrace, and how much memory `merge`
takes, for the readers of a git revision ("before") and of this tree ("after"), in the same run on
the same traces (docs/performance.md, "trace readers").

The traces: one traced run of the tiny-kernel workload (tests/trace/trace_workload) with RANKS
ranks under vnpu.run, its iterations chosen so that each rank's pftrace is about MB megabytes.
`merge` reads all of them; `summary` and `analyze` the first SPEED_RANKS (a directory of links).
Each command runs as its own process under /usr/bin/time: wall time, CPU time (user + system)
and peak RSS (the largest of the process and the workers it waits for).

"before" is the revision's python/mspti_trace with its own native decoder, compiled here from
that revision's src/trace_reader with the build's flags (RelWithDebInfo: -O2 -g); "after" is
this tree's, with the build's library.

    reader_speed.py BUILD_DIR OUT_JSON [--ranks 8] [--speed-ranks 2] [--mb 50] [--before main] [--reps 1]
                    [--keep DIR] [--only summary,analyze,merge] [--variants before,after] [--timeout S]
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
    """(python dir, lib dir) of revision rev: its python/mspti_trace, exported beside the build's
    generated modules, and its libmspti_trace_reader.so compiled from its src/trace_reader (lib
    dir None when the revision has no native decoder)."""
    d = os.path.join(base, "before")
    os.makedirs(d)
    paths = ["python/mspti_trace"]
    has_native = subprocess.run(["git", "-C", ROOT, "cat-file", "-e", f"{rev}:src/trace_reader"],
                                capture_output=True).returncode == 0
    if has_native:
        paths += ["src/trace_reader", "src/trace/proto.h"]
    archive = subprocess.run(["git", "-C", ROOT, "archive", rev, *paths], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", d], input=archive, check=True)
    lib = None
    if has_native:
        lib = os.path.join(d, "lib")
        os.makedirs(lib)
        sources = sorted(glob.glob(os.path.join(d, "src", "trace_reader", "*.cpp")))  # one file or several
        subprocess.run(["c++", "-std=c++20", "-O2", "-g", "-DNDEBUG", "-fPIC", "-shared", "-fvisibility=hidden",
                        "-I", os.path.join(d, "src", "trace"), *sources,
                        "-o", os.path.join(lib, "libmspti_trace_reader.so")], check=True)
    return os.path.join(d, "python"), lib


def speed_dir(traces, files, n, base):
    """A directory holding the first n trace files (hard links) and meta.json."""
    d = os.path.join(base, f"first{n}")
    if not os.path.isdir(d):
        os.makedirs(d)
        for f in files[:n] + [os.path.join(traces, "meta.json")]:
            if os.path.exists(f):
                os.link(f, os.path.join(d, os.path.basename(f)))
    return d, files[:n]


def measure(pythonpath, libdir, build, args, timeout):
    """(wall s, peak RSS MB, CPU s: user + system) of `python3 -m mspti_trace ARGS`; None past
    timeout seconds. The native decoder (libmspti_trace_reader.so) is found in libdir (none: the
    Python reader)."""
    env = dict(os.environ, PYTHONPATH=f"{pythonpath}{os.pathsep}{os.path.join(build, 'python')}")
    env.pop("MSPTI_TRACE_LIB_DIR", None)
    if libdir:
        env["MSPTI_TRACE_LIB_DIR"] = libdir
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
    p.add_argument("--speed-ranks", type=int, default=2, help="ranks that summary and analyze read")
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
    speed, speed_files = speed_dir(traces, files, ns.speed_ranks, base)
    speed_total = sum(os.path.getsize(f) for f in speed_files)
    wanted = ns.variants.split(",")
    variants = {}
    if "before" in wanted:
        variants["before"] = before_tree(ns.before, tempfile.mkdtemp(prefix="before_", dir=base))
    if "after" in wanted:
        variants["after"] = (os.path.join(ROOT, "python"), os.path.join(build, "lib"))
    merged = os.path.join(base, "merged.pftrace")
    commands = {"summary": (["summary", speed], speed_files),
                "analyze": (["analyze", speed, "--format", "json", "-o", os.devnull], speed_files),
                "merge": (["merge", traces, "-o", merged], files)}
    commands = {k: v for k, v in commands.items() if k in ns.only.split(",")}
    results = {"files": len(files), "bytes": total, "speed_files": len(speed_files), "speed_bytes": speed_total,
               "iters_per_rank": iters, "cpus": os.cpu_count(), "load_average": os.getloadavg(), "runs": {}}
    print(f"{len(files)} files, {total / 1e6:.1f} MB (summary, analyze: {len(speed_files)} files, "
          f"{speed_total / 1e6:.1f} MB); load average {os.getloadavg()}", flush=True)
    for rep in range(ns.reps):
        for name, (args, inputs) in commands.items():
            total = sum(os.path.getsize(f) for f in inputs)
            for variant, (path, libdir) in variants.items():  # before and after alternate, command by command
                got = measure(path, libdir, build, args, ns.timeout)
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
