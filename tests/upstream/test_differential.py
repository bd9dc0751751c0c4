"""Differential test: one workload (differential_workload.c) on our libmspti and on msPTI's, on the same
virtual device, its records compared kind by kind (differential_compare.py). Ids and absolute times
differ between runs, so each run is reduced to structure: per record its fields without ids or times
plus the records its correlation id links it to, and facts about times (order on the host and on each
stream, nesting of a record in the API it belongs to). The two reductions must differ exactly by
ALLOWED, which mirrors the section "Differences from msPTI's library, found by the differential test"
of docs/compatibility.md.

Run by CTest as: test_differential.py <our CANN root> <msPTI's CANN root> <msPTI source dir, or empty>
<C compiler> <workload.c> <work dir> <compatibility.md>; exits 77 (skipped) without msPTI's sources.
"""

import collections
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from differential_compare import (build_and_run, check_documented, check_listed, check_one_sided,  # noqa: E402
                                  differences, record_items, time_items, without_one_sided, main_under_ctest)

# Every difference the test finds, each with the heading of its entry in docs/compatibility.md. A
# difference not listed here fails the test, and so does a listed one that no longer occurs (the list
# and the document stay true). ONE_SIDED: records (kind:name) that only one library gives; they are
# checked, then left out of the comparison of the rest. ALLOWED: (whose item only, item) pairs of
# record_items and time_items.
ONE_SIDED = {
    ("ours", "ACL_API:aclInit"): "ACL APIs before and at the first device open",
    ("ours", "ACL_API:aclrtSetDevice"): "ACL APIs before and at the first device open",
}
ALLOWED = {}


def cfg():
    keys = ("ours", "upstream", "source_dir", "cc", "workload", "work", "doc")
    return dict(zip(keys, json.loads(os.environ["DIFFERENTIAL_ARGS"])))


@pytest.fixture(scope="module")
def runs():
    c = cfg()
    libs = ["-lascendcl", "-lopapi", "-lnnopbase"]
    return {"ours": build_and_run(c["ours"], "ours", c, libs),
            "msPTI": build_and_run(c["upstream"], "upstream", c, libs)}


@pytest.fixture(scope="module")
def common(runs):
    """Each run without the records ONE_SIDED lists for it."""
    return without_one_sided(runs, ONE_SIDED)


def test_one_sided_records_are_as_listed(runs):
    check_one_sided(runs, ONE_SIDED)


def test_records_differ_only_as_listed(common):
    found = differences(record_items(common["ours"]), record_items(common["msPTI"]))
    check_listed(found, {k for k in ALLOWED if k[1].startswith("record ")})


def test_times_differ_only_as_listed(common):
    found = differences(time_items(common["ours"]), time_items(common["msPTI"]))
    check_listed(found, {k for k in ALLOWED if not k[1].startswith("record ")})


@pytest.mark.parametrize("side", ["ours", "msPTI"])
def test_each_run_has_what_the_workload_did(runs, side):
    """The oracle: what the workload is known to do, independent of either library."""
    records = runs[side]
    count = collections.Counter(r["kind"] for r in records)
    kernels = [r for r in records if r["kind"] == "KERNEL"]
    assert len(kernels) == 3 and all(k["name"].startswith("Add") for k in kernels), kernels
    nodes = {r["correlationId"] for r in records if r["kind"] == "NODE_API"}
    assert {k["correlationId"] for k in kernels} == nodes and len(nodes) == 3
    memory = sorted((r["memoryOperationType"], r["bytes"]) for r in records if r["kind"] == "MEMORY")
    assert memory == [(0, 32)] * 3 + [(1, 32)] * 3
    copies = sorted((r["copyKind"], r["isAsync"]) for r in records if r["kind"] == "MEMCPY")
    assert copies == [(2, 0), (3, 0), (4, 1)]  # HTOD, DTOH, DTOD async
    assert sorted(r["isAsync"] for r in records if r["kind"] == "MEMSET") == [0, 1]
    ext = [r for r in records if r["kind"] == "EXTERNAL_CORRELATION"]
    assert ext and all(r["externalId"] == 4242 and r["externalKind"] == 2 for r in ext)
    # The 2nd and 3rd kernel launches, not the 1st, carry the external id.
    linked = {r["correlationId"] for r in ext}
    assert sorted(k["correlationId"] in linked for k in kernels) == [False, True, True]
    names = {r["name"] for r in records if r["kind"] == "MARKER" and r["sourceKind"] == 0 and r["name"]}
    assert names == {"diff_mark_host", "diff_mark_stream", "diff_range_host", "diff_range_stream",
                     "diff_domain_mark", "diff_domain_range"}
    # Device records for the markers with a stream: mark, range start and end, domain mark.
    assert sorted(r["flag"] for r in records if r["kind"] == "MARKER" and r["sourceKind"] == 1) == [8, 8, 16, 32]
    assert count["API"] == 3 and count["RUNTIME_API"] == 3


def test_allowed_differences_are_documented():
    check_documented(cfg()["doc"], set(ALLOWED.values()) | set(ONE_SIDED.values()))


if __name__ == "__main__":
    ARGS = [
        "our CANN root",
        "msPTI's CANN root",
        "msPTI source dir, or empty",
        "C compiler",
        "workload.c",
        "work dir",
        "compatibility.md",
    ]
    main_under_ctest(__file__, ARGS)
