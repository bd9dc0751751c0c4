"""Our layers on msPTI's own libmspti.so (issue 23, item 4): one of our samples, or a 2-rank mspti-trace
run, with msPTI's library chosen by MSPTI_LIBRARY (mode "env") or by LD_PRELOAD (mode "preload").

Besides the sample's own checks, the dynamic linker's log (LD_DEBUG=files) must show msPTI's library
mapped and ours never: a layer that linked our libmspti.so.0 would load it beside msPTI's.

Usage: run_either.py <case> <mode> <build dir> <msPTI source dir, or empty> <python> <work dir>
case: cpp_monitor | python_monitor | python_mstx_monitor | java_monitor | trace
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))


def fail(message):
    sys.exit(f"FAIL: {message}")


def mapped_libraries(log):
    """Every object the dynamic linker mapped, by real path (LD_DEBUG=files lines)."""
    return {os.path.realpath(p) for p in re.findall(r"file=(\S+) \[\d+\];\s+generating link map", log)}


def run(cmd, env, cwd=None):
    proc = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          errors="replace", timeout=280)
    return proc.returncode, proc.stdout, proc.stderr


ATTEMPTS = 3


def late_device_records(case, rc, out):
    """Whether the run missed only records msPTI's library makes from the device's profiling channels
    (kernels, device-side markers, COMMUNICATION), every host record being there. Its
    msptiActivityDisable flushes the channels, but the records are parsed on its own threads afterwards,
    which its msptiActivityFlushAll does not wait for (its own Python package sleeps 50 ms in stop()): a
    stop() right after the workload can miss them under load. msPTI's race, not our layer's
    (docs/install.md, "On msPTI's own library"); the sample is run again, at most ATTEMPTS times."""
    if rc != 0:
        return False
    if case == "python_monitor":
        kernels = re.findall(r"\[rank (\d+)\] \[KERNEL\] type: (KERNEL_AIVEC|KERNEL_AICORE)", out)
        comms = re.findall(r"\[rank (\d+)\] \[COMMUNICATION\] name: hcom_allReduce_", out)
        device, expected, exact = len(set(kernels)) + len(set(comms)), 24, len(kernels) + len(comms)
    elif case == "python_mstx_monitor":
        host = set(re.findall(r"\[rank (\d+)\] \[RANGE\] sourceKind: MSPTI_ACTIVITY_SOURCE_KIND_HOST", out))
        dev = re.findall(r"\[rank (\d+)\] \[RANGE\] sourceKind: MSPTI_ACTIVITY_SOURCE_KIND_DEVICE", out)
        if len(host) != 8:
            return False
        device, expected, exact = len(set(dev)), 8, len(dev)
    elif case == "cpp_monitor":
        found = re.findall(r"^MstxMonitor: 3 marks, 3 ranges; KernelMonitor: (\d+) kernels$", out, re.M)
        if not found:
            return False
        device, expected, exact = int(found[0]), 3, int(found[0])
    elif case == "java_monitor":
        found = re.findall(r"^kernel records: (\d+), mstx records: (\d+)$", out, re.M)
        host_range = re.search(r"^\[RANGE\] forward domain=default source=host ", out, re.M)
        if not found or not host_range or len(re.findall(r"^\[MARK\] ", out, re.M)) != 2:
            return False
        kernels, mstx = int(found[0][0]), int(found[0][1])
        device, expected, exact = kernels + (mstx - 3), 4, kernels + (mstx - 3)
    else:
        return False
    late = device < expected and exact == device
    if late:
        print(f"WARNING: msPTI's library delivered {device} of the {expected} device-made records, every host "
              "record being there (its device-channel race at stop); running the sample again")
    return late


def check_sample_output(check_script, ranks, python, stdout):
    proc = subprocess.run([python, check_script, str(ranks)], input=stdout, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    print(proc.stdout[-3000:])
    if proc.returncode != 0:
        fail(f"{os.path.basename(os.path.dirname(check_script))}: its checker failed")


def trace_checks(python, build, out):
    """Kernels, markers and collectives of both ranks in the trace files (our readers, independent of the
    writer's C++), and the summary saying that msPTI's library keeps no per-kind counts. True if a rank
    missed only device-made records (kernels, collectives), every host record being there: msPTI's
    device-channel race at stop (see late_device_records), for the caller to run again."""
    sys.path.insert(0, os.path.join(SOURCE, "python"))
    sys.path.append(os.path.join(build, "python"))  # the package's generated modules (_trace_schema)
    from mspti_trace import model  # noqa: E402
    procs = [p for p in model.load_dir(out).processes if p.slices]
    ranks = sorted(p.rank for p in procs if p.rank is not None)
    if ranks != [0, 1]:
        fail(f"trace: expected files of ranks [0, 1], got {ranks} ({[p.path for p in procs]})")
    late = []
    for p in procs:
        cats = {s.cat for s in p.slices}
        names = {s.name for s in p.slices}
        if "train_step" not in names:
            fail(f"trace: rank {p.rank}: no mstx range 'train_step' (categories {sorted(cats)})")
        if not p.stats_unavailable:
            fail(f"trace: rank {p.rank}: the final stats do not say the per-kind counts are unavailable")
        if model.KERNEL not in cats:
            late.append(f"rank {p.rank}: no kernel slices (categories {sorted(cats)})")
        if not cats & set(model.COLLECTIVE_CATEGORIES) or not any("allReduce" in n for n in names):
            late.append(f"rank {p.rank}: no allReduce collective (categories {sorted(cats)})")
    if late:
        print("WARNING: msPTI's library missed device-made records, every host record being there (its "
              "device-channel race at stop): " + "; ".join(late))
        return True
    summary = subprocess.run([os.path.join(build, "bin", "mspti-trace"), "summary", out], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    if summary.returncode != 0 or "records per kind unavailable" not in summary.stdout:
        fail(f"trace: mspti-trace summary:\n{summary.stdout}")
    print(f"trace: ranks {ranks}: kernels, mstx range 'train_step' and allReduce present")
    return False


def main():
    case, mode, build, upstream, python, work = sys.argv[1:7]
    if not upstream:
        print("SKIP: msPTI's sources are not configured; set MSPTI_UPSTREAM_SOURCE (CMake cache or environment "
              "variable, e.g. ../shared/upstream/mspti) and reconfigure to run our layers on msPTI's library")
        return 77
    root = os.path.join(build, "ascend-upstream")
    theirs = os.path.realpath(os.path.join(root, "lib64", "libmspti.so"))
    ours = os.path.realpath(os.path.join(build, "lib", "libmspti.so"))
    if not os.path.isfile(theirs):
        fail(f"msPTI's library is not built: {theirs}")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ)
    for name in ("LD_PRELOAD", "MSPTI_LIBRARY", "MSPTI_LIB_DIR"):
        env.pop(name, None)
    env.update({"ASCEND_HOME_PATH": root, "PYTHONPATH": os.path.join(build, "python"), "LD_DEBUG": "files",
                "PYTHONDONTWRITEBYTECODE": "1"})
    if mode == "env":
        env["MSPTI_LIBRARY"] = theirs
    elif mode == "preload":
        env["LD_PRELOAD"] = theirs
    else:
        fail(f"mode must be env or preload, not {mode!r}")

    samples = os.path.join(SOURCE, "samples")
    if case == "cpp_monitor":
        for _ in range(ATTEMPTS):
            rc, out, err = run([os.path.join(build, "bin", "cpp_monitor")], env)
            if not late_device_records(case, rc, out):
                break
        print(out)
        if rc == 0 and "MstxMonitor: 3 marks, 3 ranges; KernelMonitor: 3 kernels" not in out:
            fail("cpp_monitor: expected 3 marks, 3 ranges and 3 kernels")
    elif case in ("python_monitor", "python_mstx_monitor"):
        script = os.path.join(samples, case, case + ".py")
        for _ in range(ATTEMPTS):
            rc, out, err = run([python, "-m", "vnpu.run", "--nproc_per_node", "8", script], env)
            if not late_device_records(case, rc, out):
                break
        if rc == 0:
            check_sample_output(os.path.join(samples, case, "check_output.py"), 8, python, out)
    elif case == "java_monitor":
        for _ in range(ATTEMPTS):
            rc, out, err = run([os.path.join(build, "samples", "java_monitor", "run.sh")], env)
            if not late_device_records(case, rc, out):
                break
        print(out)
        if rc == 0:
            counts = re.findall(r"^kernel records: (\d+), mstx records: (\d+)$", out, re.M)
            if counts != [("3", "4")]:
                fail(f"java_monitor: expected 'kernel records: 3, mstx records: 4', got {counts}")
    elif case == "trace":
        for attempt in range(ATTEMPTS):
            traced = os.path.join(work, f"out{attempt}")  # -o refuses a directory that is not empty
            rc, out, err = run([os.path.join(build, "bin", "mspti-trace"), "-o", traced, "--", python, "-m",
                                "vnpu.run", "--nproc_per_node", "2", os.path.join(HERE, "either_trace_workload.py")],
                               env)
            print(out[-3000:])
            if rc != 0 or not trace_checks(python, build, traced):
                break
        else:
            fail(f"trace: msPTI's library missed device-made records in all {ATTEMPTS} runs")
    else:
        fail(f"unknown case {case!r}")
    with open(os.path.join(work, "ld_debug.log"), "w", encoding="utf-8") as f:
        f.write(err)
    if rc != 0:
        tail = "\n".join(line for line in err.splitlines() if not re.match(r"^\s*\d+:\t", line))[-4000:]
        fail(f"{case} ({mode}) exited with {rc}:\n{tail}")
    # The process's own messages, without the dynamic linker's log (which reports failed dlsym lookups too).
    said = [line for line in err.splitlines() if not re.match(r"^\s*\d+:\t", line)]
    if any("symbol lookup error" in line for line in said):
        fail(f"{case} ({mode}): symbol lookup error")
    mapped = mapped_libraries(err)
    if theirs not in mapped:
        fail(f"{case} ({mode}): msPTI's library {theirs} was never mapped")
    if ours in mapped:
        fail(f"{case} ({mode}): our {ours} was mapped beside msPTI's library")
    said = [line for line in said if "lacks" in line or "has no msptiExt" in line]
    print("said once per process:", *said[:3], sep="\n  ")
    print(f"{case} ({mode}): OK on {theirs}, ours never loaded")
    return 0


if __name__ == "__main__":
    sys.exit(main())
