"""The rule that chooses libmspti.so (docs/install.md, "Which libmspti.so is used"), per language: one
already loaded in the process (LD_PRELOAD) wins over MSPTI_LIBRARY, MSPTI_LIBRARY wins over the bundled
one, and a bad MSPTI_LIBRARY is a clear error naming the path.

"Another libmspti.so" is a copy of ours in a scratch folder (a different file, so the process maps it
apart): the rule is tested without msPTI's sources. Which library was chosen is read from the process's
/proc/self/maps, printed by each probe: exactly one libmspti.so* must be mapped.

Usage: test_selection_rule.py <python|cpp|java|trace> <build dir> <python> <work dir> [java executable]
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def probe(cmd, env):
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=240)
    mapped = sorted({os.path.realpath(line.split(" ", 1)[1]) for line in proc.stdout.splitlines()
                     if line.startswith("mapped: ")})
    return proc, mapped


def main():
    lang, build, python, work = sys.argv[1:5]
    java = sys.argv[5] if len(sys.argv) > 5 else "java"
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "other"))
    ours = os.path.realpath(os.path.join(build, "lib", "libmspti.so"))
    other = os.path.join(work, "other", "libmspti.so")
    shutil.copyfile(ours, other)
    other = os.path.realpath(other)
    missing = os.path.join(work, "no-such-dir", "libmspti.so")
    not_mspti = os.path.realpath(os.path.join(build, "lib", "libc_sec.so"))

    base = dict(os.environ)
    for name in ("LD_PRELOAD", "MSPTI_LIBRARY", "MSPTI_LIB_DIR", "MSPTI_LIBRARY_DIR", "LD_DEBUG"):
        base.pop(name, None)
    base["PYTHONPATH"] = os.path.join(build, "python")
    base["LD_LIBRARY_PATH"] = os.path.join(build, "lib")  # the copy's own dependencies (libc_sec, ...)

    if lang == "python":
        code = ("import os, mspti, mspti._loader as l\n"
                "print('source:', l.SOURCE)\n"
                "m = mspti.KernelMonitor(); m.start(lambda d: None); m.stop(); print('start: OK')\n"
                "seen = []\n"
                "for line in open('/proc/self/maps'):\n"
                "    p = line[line.find('/'):].strip() if '/' in line else ''\n"
                "    n = os.path.basename(p)\n"
                "    if (n == 'libmspti.so' or n.startswith('libmspti.so.')) and p not in seen:\n"
                "        seen.append(p); print('mapped:', p)\n")
        cmd = [python, "-c", code]
    elif lang == "cpp":
        cmd = [os.path.join(build, "bin", "either_rule_probe")]
    elif lang == "java":
        jars = os.path.join(build, "java", "mspti.jar") + ":" + os.path.join(build, "java", "mspti-tests.jar")
        cmd = [java, "-cp", jars, "org.mspti.LibmsptiProbe"]
    elif lang == "trace":
        return trace_rule(build, python, base, ours, other, missing, not_mspti)
    else:
        sys.exit(f"unknown language {lang!r}")

    proc, mapped = probe(cmd, base)
    check(proc.returncode == 0 and "start: OK" in proc.stdout and mapped == [ours],
          f"{lang}: no setting: the bundled {ours} (mapped {mapped})")
    if lang in ("python", "java"):
        check("source: bundled" in proc.stdout.lower(), f"{lang}: the rule says bundled")

    proc, mapped = probe(cmd, dict(base, MSPTI_LIBRARY=other))
    check(proc.returncode == 0 and "start: OK" in proc.stdout and mapped == [other],
          f"{lang}: MSPTI_LIBRARY wins over the bundled one: only {other} (mapped {mapped}) {proc.stderr[-500:]}")
    if lang in ("python", "java"):
        check("source: mspti_library" in proc.stdout.lower(), f"{lang}: the rule says MSPTI_LIBRARY")

    proc, mapped = probe(cmd, dict(base, MSPTI_LIBRARY=other, LD_PRELOAD=ours))
    check(proc.returncode == 0 and "start: OK" in proc.stdout and mapped == [ours],
          f"{lang}: the preloaded one wins over MSPTI_LIBRARY: only {ours} (mapped {mapped})")
    if lang in ("python", "java"):
        check("source: loaded" in proc.stdout.lower(), f"{lang}: the rule says loaded")

    for bad, why in ((missing, "no such file"), (not_mspti, "is not a libmspti.so")):
        proc, mapped = probe(cmd, dict(base, MSPTI_LIBRARY=bad))
        said = proc.stdout + proc.stderr
        check(f"MSPTI_LIBRARY={bad}" in said and why in said and "start: OK" not in proc.stdout and not mapped,
              f"{lang}: MSPTI_LIBRARY={bad}: a clear error ({why}), nothing loaded: {said[-600:]!r}")
    return 1 if failures else 0


def trace_rule(build, python, base, ours, other, missing, not_mspti):
    sys.path.insert(0, os.path.join(SOURCE, "python"))
    from mspti_trace import cli  # noqa: E402
    lib_dir = os.path.join(build, "lib")
    check(cli.choose_libmspti({}, lib_dir) == (os.path.join(lib_dir, "libmspti.so"), "bundled"),
          "trace: no setting: the bundled libmspti.so")
    check(cli.choose_libmspti({"MSPTI_LIBRARY": other}, lib_dir) == (other, "MSPTI_LIBRARY"),
          "trace: MSPTI_LIBRARY wins over the bundled one")
    check(cli.choose_libmspti({"MSPTI_LIBRARY": other, "LD_PRELOAD": f"/x/libfoo.so {ours}"}, lib_dir)
          == (None, "loaded"), "trace: a preloaded libmspti wins over MSPTI_LIBRARY (and is not preloaded twice)")
    for bad, why in ((missing, "no such file"), (not_mspti, "is not a libmspti.so")):
        try:
            cli.choose_libmspti({"MSPTI_LIBRARY": bad}, lib_dir)
            check(False, f"trace: MSPTI_LIBRARY={bad} raises")
        except ValueError as exc:
            check(f"MSPTI_LIBRARY={bad}" in str(exc) and why in str(exc), f"trace: {exc}")
    # The launcher itself: the traced program sees the chosen library, once, after libmspti_trace.so.
    show = [python, "-c", "import os; print('LD_PRELOAD=' + os.environ['LD_PRELOAD'])"]
    tool = os.path.join(build, "bin", "mspti-trace")
    out = os.path.join(os.path.dirname(other), "..", "out")
    for env, expected in (({}, [os.path.join(lib_dir, "libmspti_trace.so"), os.path.join(lib_dir, "libmspti.so")]),
                          ({"MSPTI_LIBRARY": other}, [os.path.join(lib_dir, "libmspti_trace.so"), other]),
                          ({"MSPTI_LIBRARY": other, "LD_PRELOAD": ours},
                           [os.path.join(lib_dir, "libmspti_trace.so"), ours])):
        proc = subprocess.run([tool, "-o", out, "--force", "--"] + show, env=dict(base, **env), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, timeout=240)
        line = next((x for x in proc.stdout.splitlines() if x.startswith("LD_PRELOAD=")), "")
        got = [os.path.realpath(p) for p in line[len("LD_PRELOAD="):].split()]
        check(proc.returncode == 0 and got == [os.path.realpath(p) for p in expected],
              f"trace: with {env}: the program's LD_PRELOAD is {expected} (got {got})")
    proc = subprocess.run([tool, "-o", out, "--force", "--"] + show, env=dict(base, MSPTI_LIBRARY=missing),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=240)
    check(proc.returncode == 2 and f"MSPTI_LIBRARY={missing}: no such file" in proc.stderr and not proc.stdout,
          f"trace: mspti-trace with a missing MSPTI_LIBRARY exits 2 naming it: {proc.stderr.strip()!r}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
