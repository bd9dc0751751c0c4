"""Differential test, the guide's Python examples (tests/python/guide): each example runs unchanged, once
with our mspti package on our libmspti and once with msPTI's own package on its library (its set_env.sh
first on PYTHONPATH, as run_upstream_python.sh does), on the same virtual NPU; guide_capture.py writes
down every record each monitor's callbacks deliver. Per example the records are compared with
differential_compare.py's reduction (fields without ids and times, plus the Python class and field
types each callback gets; host and device timelines; a range's or record's end after its start). The
two must differ exactly by ALLOWED, which mirrors docs/compatibility.md's section "Differences from
msPTI's library, found by the differential test".

Run by CTest as: test_differential_python.py <our CANN root> <msPTI's CANN root> <msPTI source dir, or
empty> <python> <our python dir> <guide dir> <mstx_emit.so> <work dir> <compatibility.md>; exits 77
(skipped) without msPTI's sources.
"""

import collections
import glob
import json
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from differential_compare import (KIND, anonymous_communicators, check_documented, check_listed,  # noqa: E402
                                  differences, hccl_start_missed, record_items, time_items, main_under_ctest)

# name: (script, ranks, extra environment, what its monitors deliver: (class, callback, name up to its first
# "_") -> count). 3.2 at 256 instead of the guide's 1024: the records are the same, and the run is
# shorter. 6.2 twice: as written (its range callback passed as mark_cb: no mark is made, so it gets
# nothing) and as meant (a range on a stream: its host half and its device half, which has no name).
EXAMPLES = {
    "3.1": ("guide_3_1_kernel_basic.py", 0, {}, {("KernelData", "cb", "Add"): 1}),
    "3.2": ("guide_3_2_kernel_single_card.py", 0, {"GUIDE_MATMUL_SIZE": "256"}, {("KernelData", "cb", "MatMulV3"): 10}),
    "4": ("guide_4_hccl.py", 8, {}, {("HcclData", "cb", "HcclAllReduce"): 8}),
    "5": ("guide_5_communication.py", 8, {}, {("CommunicationData", "cb", "hcom"): 8}),
    "6.1": ("guide_6_1_mstx_basic.py", 0, {},
            {("MarkerData", "mark_cb", "step"): 1, ("RangeMarkerData", "range_cb", "work"): 1}),
    "6.2": ("guide_6_2_mstx_queue.py", 0, {}, {}),
    "6.2 range_cb": ("guide_6_2_mstx_queue.py", 0, {"GUIDE_RANGE_CB": "1"},
                     {("RangeMarkerData", "range_cb", "matmul"): 1, ("RangeMarkerData", "range_cb", ""): 1}),
    "6.3": ("guide_6_3_domain.py", 0, {}, {("RangeMarkerData", "range_cb", "kept"): 2}),
    "7.1": ("guide_7_1_queue_consumer.py", 0, {},
            {("KernelData", "cb", "MatMulV3"): 5, ("KernelData", "cb", "Relu"): 5}),
    "7.2": ("guide_7_2_two_monitors.py", 8, {},
            {("KernelData", "cb", "MatMulV3"): 8, ("CommunicationData", "cb", "hcom"): 8}),
    "7.3": ("guide_7_3_buffer_size.py", 0, {}, {("KernelData", "cb", "Mul"): 1}),
}
# msPTI's Monitor.stop() disables collection before it flushes, so the last device records of a run can
# be lost (docs/compatibility.md, "msPTI's Python monitors lose the last records at stop"), and an HCCL
# record can miss its start ("msPTI's HCCL races"): its run of an example is repeated, up to TRIES
# times, until it delivered what the example makes, with no HCCL start missed; what its best run still
# lost is left out of ours too (comparable()). Ours runs once.
TRIES = 3
EXAMPLE_CHECK_FAILED = 3  # guide_capture.py's exit code: the example's own check failed on msPTI's library

# As in test_differential.py: (side, "example: item") differences each citing its heading in
# docs/compatibility.md; a listed difference that no longer occurs fails the test.
RETURNS = "MstxMonitor.enable_domain and disable_domain return MsptiResult"
ALLOWED = {
    ("msPTI", "6.3: record CALL monitor=MstxMonitor name=disable_domain rank=0 returns=int:0 links=[]"): RETURNS,
    ("msPTI", "6.3: record CALL monitor=MstxMonitor name=enable_domain rank=0 returns=int:0 links=[]"): RETURNS,
    ("ours", "6.3: record CALL monitor=MstxMonitor name=disable_domain rank=0 returns=MsptiResult:0 links=[]"): RETURNS,
    ("ours", "6.3: record CALL monitor=MstxMonitor name=enable_domain rank=0 returns=MsptiResult:0 links=[]"): RETURNS,
}


def cfg():
    keys = ("ours", "upstream", "source_dir", "python", "pydir", "guide", "emit", "work", "doc")
    return dict(zip(keys, json.loads(os.environ["DIFFERENTIAL_ARGS"])))


def run_example(c, side, name):
    """Runs one example under guide_capture.py with one side's package and library; returns its records."""
    script, ranks, extra, _ = EXAMPLES[name]
    root = c["ours"] if side == "ours" else c["upstream"]
    out = os.path.join(c["work"], side, name.replace(" ", "_"))
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    launcher = f"-m vnpu.run --nproc_per_node {ranks}" if ranks else ""
    # Both sides preload their libmspti (msPTI's HCCL records need it) and see the virtual CANN of
    # their library; our vnpu package comes after the CANN tree's site-packages.
    command = (f'source "{root}/set_env.sh" && export PYTHONPATH="$PYTHONPATH:{c["pydir"]}" '
               f'LD_PRELOAD="$ASCEND_HOME_PATH/lib64/libmspti.so" && '
               f'exec "{c["python"]}" {launcher} "{HERE}/guide_capture.py" "{out}" "{c["emit"]}" '
               f'"{os.path.join(c["guide"], script)}"')
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **extra)
    for var in ("LD_PRELOAD", "MSPTI_LIBRARY"):
        env.pop(var, None)
    proc = subprocess.run(["bash", "-c", command], env=env, capture_output=True, text=True, timeout=240)
    with open(os.path.join(out, "output.txt"), "w") as f:
        f.write(proc.stdout + proc.stderr)
    # msPTI's library lost records the example checks for (at load, its stop can lose all of a
    # KernelMonitor's kernels): the records it did deliver are compared, loss and all.
    check_failed = side == "msPTI" and proc.returncode == EXAMPLE_CHECK_FAILED
    if proc.returncode != 0 and not check_failed:
        raise RunFailed(f"{side}, example {name}: exited {proc.returncode}:\n{proc.stdout[-2000:]}"
                        f"\n{proc.stderr[-3000:]}")
    # Each side's own package: msPTI's is built from its sources into <build>/upstream/python.
    packages = glob.glob(os.path.join(out, "*.package"))
    assert len(packages) == max(ranks, 1), f"{side}, example {name}: {len(packages)} processes ran guide_capture"
    for path in packages:
        with open(path) as f:
            package = f.read()
        from_upstream = os.sep + "upstream" + os.sep + "python" + os.sep in package
        assert from_upstream == (side == "msPTI"), f"{side}, example {name}: imported {package}"
    records = []
    for path in sorted(glob.glob(os.path.join(out, "*.jsonl"))):
        with open(path) as f:
            records += [json.loads(line) for line in f if line.strip()]
    for r in records:
        r["kind"] = KIND.get(r["kind"], str(r["kind"]))
    records = anonymous_communicators(records)
    if check_failed and lost(name, records) == 0:
        raise RunFailed(f"msPTI, example {name}: its own check failed with nothing lost:\n{proc.stderr[-3000:]}")
    return records


class RunFailed(AssertionError):
    """A side's run of an example exited non-zero (ours must never; msPTI's is run again)."""


def delivered(records):
    """What the monitors delivered: (class, callback, name up to its first "_") -> count."""
    return collections.Counter((r["pyclass"], r["callback"], r["name"].split("_")[0])
                               for r in records if r["kind"] != "CALL")


def by_rank(records):
    ranks = collections.defaultdict(list)
    for r in records:
        ranks[r["rank"]].append(r)
    return ranks


def whole(records):
    """msPTI's records without those whose HCCL start it missed (counted as lost)."""
    return [r for r in records if r not in hccl_start_missed(records)]


def lost(name, records):
    return sum((collections.Counter(EXAMPLES[name][3]) - delivered(whole(records))).values())


@pytest.fixture(scope="module")
def runs():
    """Each side's records per example; msPTI's example run again while it lost records, its best run kept."""
    c = cfg()
    result = {"ours": {name: run_example(c, "ours", name) for name in EXAMPLES}, "msPTI": {}}
    for name in EXAMPLES:
        best = None
        for attempt in range(TRIES):
            try:
                records = run_example(c, "msPTI", name)
            except RunFailed as e:  # msPTI's library crashes now and then on HCCL work (docs/compatibility.md)
                print(f"msPTI, example {name}, run {attempt + 1} failed, run again: {e}")
                continue
            if best is None or lost(name, records) < lost(name, best):
                best = records
            if lost(name, best) == 0 and not hccl_start_missed(best):
                break
            print(f"msPTI, example {name}, run {attempt + 1}: {delivered(records)}, run again")
        assert best is not None, f"msPTI, example {name}: all {TRIES} runs failed"
        result["msPTI"][name] = best
    return result


def last(r):
    return r.get("end", r.get("timestamp", 0))


def comparable(runs):
    """Per example and rank (a process of its own: correlation ids are per process), each side's records,
    ours without as many of the last records (by end) of each (class, callback, name) as msPTI's best run
    lost at stop. Yields (example, side, records)."""
    for name in EXAMPLES:
        ours, theirs = by_rank(runs["ours"][name]), by_rank(whole(runs["msPTI"][name]))
        for rank in sorted(set(ours) | set(theirs)):
            kept = list(ours[rank])
            for key, n in (delivered(ours[rank]) - delivered(theirs[rank])).items():
                same = sorted((r for r in kept if delivered([r]) == {key: 1}), key=last)
                dropped = same[len(same) - n:]
                print(f"example {name}, rank {rank}: msPTI lost the last {n} of {key}")
                kept = [r for r in kept if all(r is not d for d in dropped)]
            yield name, "ours", kept
            yield name, "msPTI", theirs[rank]


def compared(runs, reduce):
    items = {"ours": collections.Counter(), "msPTI": collections.Counter()}
    for name, side, records in comparable(runs):
        for item, n in reduce(records).items():
            items[side][f"{name}: {item}"] += n
    return items


def test_records_differ_only_as_listed(runs):
    items = compared(runs, record_items)
    found = differences(items["ours"], items["msPTI"])
    check_listed(found, {k for k in ALLOWED if k[1].split(": ", 1)[1].startswith("record ")})


def test_times_differ_only_as_listed(runs):
    items = compared(runs, lambda records: time_items(records, per_thread=True))
    found = differences(items["ours"], items["msPTI"])
    check_listed(found, {k for k in ALLOWED if not k[1].split(": ", 1)[1].startswith("record ")})


def test_ours_delivers_what_the_examples_did(runs):
    """The oracle: what each example is known to do (EXAMPLES), independent of either library."""
    for name, (_, ranks, _, expected) in EXAMPLES.items():
        records = runs["ours"][name]
        assert delivered(records) == expected, f"example {name}: {delivered(records)}"
        assert not hccl_start_missed(records), f"example {name}: {hccl_start_missed(records)}"
        if ranks:  # one record of each kind per rank
            assert sorted(r["rank"] for r in records if r["kind"] != "CALL") == \
                sorted(list(range(ranks)) * len(expected)), name


def test_msPTI_delivers_what_the_examples_did_or_lost_it_at_stop(runs):
    """msPTI's best run of each example: nothing the example does not make, and something of what it
    makes, so that the examples are compared. msPTI's monitors can lose every record of a short
    example at stop (one kernel, seen once in 3 tries on a machine loaded 19 times over its cores):
    such an example is said and not compared; most examples must still be."""
    empty = []
    for name, (_, ranks, _, expected) in EXAMPLES.items():
        records = delivered(whole(runs["msPTI"][name]))
        assert not records - collections.Counter(expected), f"example {name}: {records}"
        if expected and sum(records.values()) == 0:
            empty.append(name)
    if empty:
        print(f"msPTI delivered nothing in any of its {TRIES} runs of examples {empty}: not compared")
    with_records = sum(1 for _, _, _, expected in EXAMPLES.values() if expected)
    assert len(empty) * 2 < with_records, f"msPTI delivered nothing for examples {empty} of {with_records}"


def test_allowed_differences_are_documented():
    check_documented(cfg()["doc"], set(ALLOWED.values()) | {"msPTI's Python monitors lose the last records at stop",
                                                            "msPTI's HCCL races"})


if __name__ == "__main__":
    ARGS = [
        "our CANN root",
        "msPTI's CANN root",
        "msPTI source dir, or empty",
        "python",
        "our python dir",
        "guide dir",
        "mstx_emit.so",
        "work dir",
        "compatibility.md",
    ]
    main_under_ctest(__file__, ARGS, compared="msPTI's package with ours")
