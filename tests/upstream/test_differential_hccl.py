"""Differential test, 8-rank HCCL: differential_hccl.c (one thread per device; all-reduce, broadcast,
all-gather and reduce-scatter on each rank's stream) on our libmspti and on msPTI's, on the same virtual
devices. HCCL and COMMUNICATION records are compared kind by kind with differential_compare.py's
reduction (names, data types, counts, communicator names, algorithms, devices and streams, bandwidth
as a fact, the API record each COMMUNICATION record's correlation id links, each thread's host timeline,
each stream's device timeline, a collective's start after its API's start). The two must differ exactly
by ALLOWED, which mirrors docs/compatibility.md's section "Differences from msPTI's library, found by
the differential test".

Run by CTest as: test_differential_hccl.py <our CANN root> <msPTI's CANN root> <msPTI source dir, or
empty> <C compiler> <differential_hccl.c> <work dir> <compatibility.md>; exits 77 (skipped) without
msPTI's sources.
"""

import collections
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from differential_compare import (anonymous_communicators, build_and_run, check_documented,  # noqa: E402
                                  check_listed, differences, hccl_start_missed, record_items, time_items)

RANKS = 8
COLLECTIVES = ["HcclAllReduce", "HcclBroadcast", "HcclAllGather", "HcclReduceScatter"]
OPS = ["hcom_allReduce_", "hcom_broadcast_", "hcom_allGather_", "hcom_reduceScatter_"]  # their API records' names

# As in test_differential.py: ALLOWED (side, item) differences, each citing its heading in
# docs/compatibility.md. Records only ours gives, ours' ACL APIs before and at the first device open
# (aclInit and the first aclrtSetDevice), are checked, then left out (before_first_open).
BEFORE_FIRST_OPEN = "ACL APIs before and at the first device open"
ALLOWED = {}


def cfg():
    keys = ("ours", "upstream", "source_dir", "cc", "workload", "work", "doc")
    return dict(zip(keys, json.loads(os.environ["DIFFERENTIAL_ARGS"])))


# msPTI's own races (docs/compatibility.md, "msPTI's HCCL races"): its run is repeated, up to TRIES
# times, until it shows none; ours is run once and must never show them.
TRIES = 8


def races(records):
    """The signatures of msPTI's races: an HCCL record whose start it missed (start 0, device and stream
    0), and a collective's API record with no COMMUNICATION record."""
    found = [f"HCCL record with start 0: {r}" for r in hccl_start_missed(records)]
    launched = {r["correlationId"] for r in records if r["kind"] == "API" and r["name"] in OPS}
    reported = {r["correlationId"] for r in records if r["kind"] == "COMMUNICATION"}
    found += [f"no COMMUNICATION record for the API of correlation id {c}" for c in sorted(launched - reported)]
    return found


@pytest.fixture(scope="module")
def runs():
    c = cfg()
    libs = ["-lascendcl", "-lhccl", "-lpthread"]
    ours = build_and_run(c["ours"], "ours", c, libs)
    for attempt in range(TRIES):
        theirs = build_and_run(c["upstream"], "upstream", c, libs)
        seen = races(theirs)
        if not seen:
            break
        print(f"msPTI's run {attempt + 1} showed its races, run again: {seen}")
    return {"ours": anonymous_communicators(ours), "msPTI": anonymous_communicators(theirs)}


def test_no_races_in_either_run(runs):
    assert races(runs["ours"]) == [], "our library shows msPTI's races"
    assert races(runs["msPTI"]) == [], f"msPTI's library showed its races in each of {TRIES} runs"


def before_first_open(records):
    """The ACL API records of aclInit and of the first aclrtSetDevice (by start)."""
    acl = sorted((r for r in records if r["kind"] == "ACL_API"), key=lambda r: r["start"])
    first_open = [r for r in acl if r["name"] == "aclrtSetDevice"][:1]
    return [r for r in acl if r["name"] == "aclInit"] + first_open


@pytest.fixture(scope="module")
def common(runs):
    early = [id(r) for r in before_first_open(runs["ours"])]
    return {"ours": [r for r in runs["ours"] if id(r) not in early], "msPTI": runs["msPTI"]}


def test_only_ours_gives_acl_apis_before_the_first_device_open(runs):
    count = {side: collections.Counter(r["name"] for r in rs if r["kind"] == "ACL_API") for side, rs in runs.items()}
    assert count["ours"]["aclInit"] == 1 and count["msPTI"]["aclInit"] == 0, count
    # The main thread opens the 8 devices, and each rank's thread opens its own again.
    assert count["ours"]["aclrtSetDevice"] == 2 * RANKS, count
    assert count["msPTI"]["aclrtSetDevice"] == 2 * RANKS - 1, count


def test_records_differ_only_as_listed(common):
    found = differences(record_items(common["ours"]), record_items(common["msPTI"]))
    check_listed(found, {k for k in ALLOWED if k[1].startswith("record ")})


def hccl_time_items(records):
    """differential_compare's time facts, and per collective on a device: its HCCL record (no correlation
    id; paired with the COMMUNICATION record of the same place in the device's order) against its API
    record (the COMMUNICATION record's correlation link) and its COMMUNICATION record, which the HCCL
    record's markers bracket on the stream."""
    items = time_items(records, per_thread=True)
    apis = {r["correlationId"]: r for r in records if r["kind"] == "API"}
    for device in range(RANKS):
        def on_device(kind):
            on = (r for r in records if r["kind"] == kind and r["deviceId"] == device)
            return sorted(on, key=lambda r: r["start"])
        for h, c in zip(on_device("HCCL"), on_device("COMMUNICATION")):
            api = apis.get(c["correlationId"])
            # Its end marker is enqueued after the API returns; its start marker before the API begins,
            # so the device may reach that one first (a start before the API's is no fault).
            items[f"HCCL:{h['name']} ends after API:{api and api['name']} ends: "
                  f"{api is not None and h['end'] >= api['end']}"] += 1
            items[f"HCCL:{h['name']} encloses COMMUNICATION:{c['name']}: "
                  f"{h['start'] <= c['start'] and c['end'] <= h['end']}"] += 1
    return items


def test_times_differ_only_as_listed(common):
    found = differences(hccl_time_items(common["ours"]), hccl_time_items(common["msPTI"]))
    check_listed(found, {k for k in ALLOWED if not k[1].startswith("record ")})


@pytest.mark.parametrize("side", ["ours", "msPTI"])
def test_each_run_has_what_the_workload_did(runs, side):
    """The oracle: what the workload is known to do, independent of either library."""
    records = runs[side]
    hccl = collections.Counter((r["deviceId"], r["name"]) for r in records if r["kind"] == "HCCL")
    assert hccl == {(d, n): 1 for d in range(RANKS) for n in COLLECTIVES}, hccl
    comms = [r for r in records if r["kind"] == "COMMUNICATION"]
    assert sorted(r["deviceId"] for r in comms) == sorted(list(range(RANKS)) * len(COLLECTIVES)), comms
    # Per rank: 64 FP32 elements each, all-gather's send count, reduce-scatter's receive count (64 / 8).
    assert sorted(r["count"] for r in comms) == sorted([64, 64, 64, 8] * RANKS), comms
    assert {r["commName"] for r in comms} == {r["commName"] for r in records if r["kind"] == "HCCL"}
    assert len({r["commName"] for r in comms}) == 1  # one communicator
    # Each COMMUNICATION record links the API record of its launch.
    apis = {r["correlationId"]: r["name"] for r in records if r["kind"] == "API"}
    linked = collections.Counter((apis.get(r["correlationId"]), r["name"]) for r in comms)
    assert linked == {(op, op): RANKS for op in OPS}, linked


def test_allowed_differences_are_documented():
    check_documented(cfg()["doc"], set(ALLOWED.values()) | {BEFORE_FIRST_OPEN})


if __name__ == "__main__":
    if len(sys.argv) != 8:
        sys.exit("usage: test_differential_hccl.py <our CANN root> <msPTI's CANN root> <msPTI source dir, or "
                 f"empty> <C compiler> <differential_hccl.c> <work dir> <compatibility.md>; got {sys.argv[1:]}")
    if not sys.argv[3]:
        print("SKIP: msPTI's sources are not configured; set MSPTI_UPSTREAM_SOURCE (CMake cache or environment "
              "variable, e.g. ../shared/upstream/mspti) and reconfigure to compare msPTI's library with ours")
        sys.exit(77)
    os.environ["DIFFERENTIAL_ARGS"] = json.dumps(sys.argv[1:])
    sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", __file__]))
