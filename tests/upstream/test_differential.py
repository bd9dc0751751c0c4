"""Differential test: one workload (differential_workload.c) on our libmspti and on msPTI's, on the same
virtual device, its records compared kind by kind. Ids and absolute times differ between runs, so each
run is reduced to structure: per record its fields without ids or times plus the records its
correlation id links it to, and facts about times (order on the host and on each stream, nesting of a
record in the API it belongs to). The two reductions must differ exactly by ALLOWED, which mirrors the
section "Differences from msPTI's library, found by the differential test" of docs/compatibility.md.

Run by CTest as: test_differential.py <our CANN root> <msPTI's CANN root> <msPTI source dir, or empty>
<C compiler> <workload.c> <work dir> <compatibility.md>; exits 77 (skipped) without msPTI's sources.
"""

import collections
import json
import os
import subprocess
import sys

import pytest

KIND = {1: "MARKER", 2: "KERNEL", 3: "API", 4: "HCCL", 5: "MEMORY", 6: "MEMSET", 7: "MEMCPY",
        8: "EXTERNAL_CORRELATION", 9: "COMMUNICATION", 10: "ACL_API", 11: "NODE_API", 12: "RUNTIME_API"}
API_KINDS = {"API", "ACL_API", "NODE_API", "RUNTIME_API"}
LAUNCH_KINDS = {"API", "NODE_API", "RUNTIME_API"}  # the records of an aclnn launch
# Fields that are ids or absolute times: never compared as values.
VOLATILE = {"kind", "start", "end", "timestamp", "id", "correlationId", "processId", "threadId"}

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


def build_and_run(root, tag, c):
    """Builds the workload against one CANN tree, as msPTI's samples are built, and runs it with that
    tree's libmspti.so preloaded (msPTI needs that for its memory records, ours for the same)."""
    os.makedirs(c["work"], exist_ok=True)
    exe = os.path.join(c["work"], "differential_" + tag)
    subprocess.run([c["cc"], "-std=c11", "-O1", "-Wno-packed-not-aligned", "-o", exe, c["workload"],
                    "-I" + os.path.join(root, "include"), "-L" + os.path.join(root, "lib64"),
                    "-lmspti", "-lascendcl", "-lopapi", "-lnnopbase"], check=True)
    lib64 = os.path.join(root, "lib64")
    env = dict(os.environ, ASCEND_HOME_PATH=root, ASCEND_TOOLKIT_HOME=root,
               ASCEND_OPP_PATH=os.path.join(root, "opp"),
               LD_LIBRARY_PATH=lib64 + ":" + os.environ.get("LD_LIBRARY_PATH", ""),
               LD_PRELOAD=os.path.join(lib64, "libmspti.so"))
    proc = subprocess.run([exe], env=env, capture_output=True, text=True, timeout=240)
    with open(os.path.join(c["work"], tag + ".jsonl"), "w") as out:
        out.write(proc.stdout)
    assert proc.returncode == 0, f"{tag}: the workload exited {proc.returncode}: {proc.stderr[-2000:]}"
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    for r in records:
        r["kind"] = KIND.get(r["kind"], str(r["kind"]))
    return records


@pytest.fixture(scope="module")
def runs():
    c = cfg()
    return {"ours": build_and_run(c["ours"], "ours", c), "msPTI": build_and_run(c["upstream"], "upstream", c)}


@pytest.fixture(scope="module")
def common(runs):
    """Each run without the records ONE_SIDED lists for it."""
    return {side: [r for r in rs if (side, label(r)) not in ONE_SIDED] for side, rs in runs.items()}


def label(r):
    if r["kind"] == "MARKER":
        return f"MARKER:{r['flag']}:{r['sourceKind']}:{r['name']}"
    return f"{r['kind']}:{r.get('name', '')}"


def by_correlation(records):
    links = collections.defaultdict(list)
    for r in records:
        if r.get("correlationId", 0) != 0 and r["kind"] != "EXTERNAL_CORRELATION":
            links[r["correlationId"]].append(r)
    return links


def record_items(records):
    """Per record: its non-volatile fields, plus the kinds and names of the records sharing its
    correlation id (for an external correlation record: the records of its correlation id)."""
    links = by_correlation(records)
    items = collections.Counter()
    for r in records:
        fields = " ".join(f"{k}={r[k]}" for k in sorted(r) if k not in VOLATILE)
        linked = sorted(label(o) for o in links.get(r.get("correlationId", 0), []) if o is not r)
        items[f"record {r['kind']} {fields} links={linked}"] += 1
    return items


def host_start(r):
    return r.get("start", r.get("timestamp"))


def time_items(records):
    """Facts about times: the host timeline (API, memory and host marker records by start), each
    stream's device timeline, and nesting of records sharing a correlation id."""
    items = collections.Counter()
    for clock, sequence in host_order(records).items():
        items[f"host timeline ({clock}): " + " > ".join(sequence)] += 1
    device = collections.defaultdict(list)
    for r in records:
        if r["kind"] == "KERNEL" or (r["kind"] == "MARKER" and r["sourceKind"] == 1):
            device[(r["deviceId"], r["streamId"])].append(r)
    for stream, rs in device.items():
        rs.sort(key=lambda r: host_start(r))
        items[f"device {stream} order " + " > ".join(label(r) for r in rs)] += 1
    for corr, rs in by_correlation(records).items():
        for a in rs:
            for b in rs:
                if a is b or "start" not in a or "start" not in b:
                    continue
                # Only the launch's records: an ACL API sharing the id (aclrtSynchronizeStream) is a later call.
                if a["kind"] == "KERNEL" and b["kind"] in LAUNCH_KINDS:
                    items[f"{label(a)} starts after {label(b)} starts: {a['start'] >= b['start']}"] += 1
                    # Not "after it ends": the device may start the kernel before the launch returns.
                elif a["kind"] in LAUNCH_KINDS and b["kind"] in LAUNCH_KINDS:
                    # Both from CANN's reports, on one clock.
                    inside = b["start"] <= a["start"] and a["end"] <= b["end"]
                    items[f"{label(a)} inside {label(b)}: {inside}"] += 1
                # A memory record (the library's clock) and its ACL API (CANN's report) are not compared:
                # msPTI's two clocks differ by 100 ns and more, more than a short aclrtFree takes.
    for r in records:
        if "start" in r:
            items[f"{label(r)} start<=end: {r['start'] <= r['end']}"] += 1
    # Ranges: an end after its start, found by id.
    starts = {(r["sourceKind"], r["id"]): r for r in records if r["kind"] == "MARKER" and r["flag"] in (2, 16)}
    for r in records:
        if r["kind"] == "MARKER" and r["flag"] in (4, 32):
            s = starts.get((r["sourceKind"], r["id"]))
            items[f"range end {r['flag']}/{r['sourceKind']} of {s and s['name']} after start: "
                  f"{s is not None and r['timestamp'] >= s['timestamp']}"] += 1
    return items


def host_order(records):
    """Host records in order of start, in two timelines, one per clock: the API records CANN reports,
    and what the library times itself (host markers, memory records). Equal starts (API and NODE_API)
    are ordered by kind, the same way in both runs."""
    timelines = {}
    for clock, kinds in (("CANN", API_KINDS), ("library", {"MARKER", "MEMORY", "MEMSET", "MEMCPY"})):
        host = [r for r in records if r["kind"] in kinds and r.get("sourceKind", 0) == 0]
        host.sort(key=lambda r: (host_start(r), r["kind"]))
        timelines[clock] = [label(r) for r in host]
    return timelines


def differences(a, b):
    return {("ours", k) for k in (a - b)} | {("msPTI", k) for k in (b - a)}


def test_one_sided_records_are_as_listed(runs):
    count = {side: collections.Counter(label(r) for r in rs) for side, rs in runs.items()}
    for (side, name), heading in ONE_SIDED.items():
        other = "msPTI" if side == "ours" else "ours"
        assert count[side][name] > 0 and count[other][name] == 0, \
            f"{name}: listed as given by {side} only ({heading}), found {dict((s, count[s][name]) for s in count)}"


def test_records_differ_only_as_listed(common):
    found = differences(record_items(common["ours"]), record_items(common["msPTI"]))
    allowed = {k for k in ALLOWED if k[1].startswith("record ")}
    assert found - allowed == set(), "differences not in ALLOWED (docs/compatibility.md):\n" + \
        "\n".join(map(str, sorted(found - allowed)))
    assert allowed - found == set(), f"listed differences that no longer occur: {sorted(allowed - found)}"


def test_times_differ_only_as_listed(common):
    found = differences(time_items(common["ours"]), time_items(common["msPTI"]))
    allowed = {k for k in ALLOWED if not k[1].startswith("record ")}
    assert found - allowed == set(), "differences not in ALLOWED (docs/compatibility.md):\n" + \
        "\n".join(map(str, sorted(found - allowed)))
    assert allowed - found == set(), f"listed differences that no longer occur: {sorted(allowed - found)}"


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
    with open(cfg()["doc"]) as f:
        doc = f.read()
    section = doc.split("## Differences from msPTI's library, found by the differential test", 1)
    assert len(section) == 2, "docs/compatibility.md lacks the differential test's section"
    for heading in set(ALLOWED.values()) | set(ONE_SIDED.values()):
        assert heading in section[1], f"ALLOWED cites '{heading}', which the section does not have"


if __name__ == "__main__":
    if len(sys.argv) != 8:
        sys.exit("usage: test_differential.py <our CANN root> <msPTI's CANN root> <msPTI source dir, or "
                 f"empty> <C compiler> <workload.c> <work dir> <compatibility.md>; got {sys.argv[1:]}")
    if not sys.argv[3]:
        print("SKIP: msPTI's sources are not configured; set MSPTI_UPSTREAM_SOURCE (CMake cache or environment "
              "variable, e.g. ../shared/upstream/mspti) and reconfigure to compare msPTI's library with ours")
        sys.exit(77)
    os.environ["DIFFERENTIAL_ARGS"] = json.dumps(sys.argv[1:])
    sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", __file__]))
