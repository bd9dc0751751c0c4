"""Differential test, msPTI's own samples: one sample built and run as its sample_run.sh does
(run_upstream_sample.sh) on the virtual CANN with our libmspti.so and with msPTI's. Each run must pass
msPTI's system-test checks (check_upstream_sample.py, run by that script); then what the two programs
printed, with every number masked (ids, times, addresses, sizes), must be the same lines, as a
multiset (threads print in any order). msPTI's side is run up to 3 times when it differs: its library
loses device records at random (docs/compatibility.md); ours must match on its one run.

Usage: test_differential_samples.py <our CANN root> <msPTI's CANN root> <msPTI source dir, or empty>
<sample> <work dir>; exits 77 (skipped) without msPTI's sources.
"""

import collections
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TRIES = 3


def run(cann_root, upstream, sample, work):
    """The sample's output (build and program), or None if it failed msPTI's checks (printed)."""
    proc = subprocess.run(["bash", os.path.join(HERE, "run_upstream_sample.sh"), cann_root, upstream, sample, work],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    if proc.returncode != 0:
        print(f"--- {sample} on {cann_root}: exit {proc.returncode}\n{proc.stdout[-4000:]}")
        return None
    return proc.stdout


def program_lines(output):
    """What the program printed: the lines after the build's last '[100%]' line, numbers masked."""
    lines = output.splitlines()
    last_build = max((i for i, line in enumerate(lines) if line.startswith("[100%]")), default=-1)
    return collections.Counter(re.sub(r"\d+", "#", line) for line in lines[last_build + 1:]
                               if line.strip() and not line.startswith(("FAIL", "OK", "WARNING")))


def difference(ours, theirs):
    return [f"ours {ours[k]}, msPTI {theirs[k]}: {k}" for k in sorted(set(ours) | set(theirs)) if ours[k] != theirs[k]]


def main(argv):
    ours_root, theirs_root, upstream, sample, work = argv[1:6]
    if not upstream:
        print("SKIP: msPTI's sources are not configured; set MSPTI_UPSTREAM_SOURCE (e.g. ../shared/upstream/mspti)"
              " and reconfigure to compare msPTI's samples on both libraries")
        return 77
    ours_out = run(os.path.abspath(ours_root), upstream, sample, os.path.join(work, "ours"))
    if ours_out is None:
        return 1
    ours = program_lines(ours_out)
    if sum(ours.values()) == 0:
        print(f"{sample}: the program printed nothing on our library")
        return 1
    diff = None
    for attempt in range(1, TRIES + 1):
        theirs_out = run(os.path.abspath(theirs_root), upstream, sample, os.path.join(work, f"msPTI{attempt}"))
        if theirs_out is None:
            continue
        diff = difference(ours, program_lines(theirs_out))
        if not diff:
            print(f"{sample}: the same {sum(ours.values())} lines on both libraries"
                  + (f" (msPTI's run {attempt} of {TRIES})" if attempt > 1 else ""))
            return 0
        print(f"{sample}: msPTI's run {attempt} differs:\n  " + "\n  ".join(diff))
    print(f"{sample}: no run of msPTI's library in {TRIES} printed what ours did")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
