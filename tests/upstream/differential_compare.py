"""The differential tests' shared reduction and comparison (test_differential.py, test_differential_hccl.py,
test_differential_python.py). Ids and absolute times differ between runs, so each run is reduced to
structure: per record its fields without ids or times plus the records its correlation id links it to,
and facts about times (order on the host and on each stream, nesting of a record in the API it belongs
to). Two runs' reductions are compared as multisets; each test lists the differences it allows, each
citing a heading of docs/compatibility.md's section DOC_SECTION."""

import collections
import json
import os
import subprocess
import sys

KIND = {1: "MARKER", 2: "KERNEL", 3: "API", 4: "HCCL", 5: "MEMORY", 6: "MEMSET", 7: "MEMCPY",
        8: "EXTERNAL_CORRELATION", 9: "COMMUNICATION", 10: "ACL_API", 11: "NODE_API", 12: "RUNTIME_API"}
API_KINDS = {"API", "ACL_API", "NODE_API", "RUNTIME_API"}
LAUNCH_KINDS = {"API", "NODE_API", "RUNTIME_API"}  # the records of an aclnn launch
DEVICE_KINDS = {"KERNEL", "HCCL", "COMMUNICATION"}  # timed by the device, on a stream
# Fields that are ids or absolute times: never compared as values.
VOLATILE = {"kind", "start", "end", "timestamp", "id", "correlationId", "processId", "threadId"}
# Fields computed from times: compared as the fact given here, not as values.
DERIVED = {"bandWidth": lambda v: "positive" if v > 0 else str(v)}
DOC_SECTION = "## Differences from msPTI's library, found by the differential test"


def build_and_run(root, tag, c, libs, source=None, crash_ok=False):
    """Builds a C workload against one CANN tree, as msPTI's samples are built, and runs it with that
    tree's libmspti.so preloaded (msPTI needs that for its memory and HCCL records, ours for the same).
    Returns its records (one JSON line each on stdout), kinds by name; with crash_ok, None when it died
    of a signal."""
    os.makedirs(c["work"], exist_ok=True)
    exe = os.path.join(c["work"], "differential_" + tag)
    subprocess.run([c["cc"], "-std=c11", "-O1", "-Wno-packed-not-aligned", "-o", exe, source or c["workload"],
                    "-I" + os.path.join(root, "include"), "-L" + os.path.join(root, "lib64"), "-lmspti"] + libs,
                   check=True)
    lib64 = os.path.join(root, "lib64")
    env = dict(os.environ, ASCEND_HOME_PATH=root, ASCEND_TOOLKIT_HOME=root,
               ASCEND_OPP_PATH=os.path.join(root, "opp"),
               LD_LIBRARY_PATH=lib64 + ":" + os.environ.get("LD_LIBRARY_PATH", ""),
               LD_PRELOAD=os.path.join(lib64, "libmspti.so"))
    proc = subprocess.run([exe], env=env, capture_output=True, text=True, timeout=240)
    with open(os.path.join(c["work"], tag + ".jsonl"), "w") as out:
        out.write(proc.stdout)
    if crash_ok and proc.returncode < 0:
        print(f"{tag}: the workload died of signal {-proc.returncode}: {proc.stderr[-2000:]}")
        return None
    assert proc.returncode == 0, f"{tag}: the workload exited {proc.returncode}: {proc.stderr[-2000:]}"
    return named_kinds([json.loads(line) for line in proc.stdout.splitlines() if line.strip()])


def named_kinds(records):
    for r in records:
        r["kind"] = KIND.get(r["kind"], str(r["kind"]))
    return records


def anonymous_communicators(records):
    """A communicator's name holds the time it was made (the virtual HCCL's, as CANN's holds its host and
    port): each distinct name becomes "communicator k", k by first appearance in time."""
    names = {}
    for r in sorted((r for r in records if "commName" in r), key=lambda r: (r["start"] == 0, r["start"])):
        names.setdefault(r["commName"], f"communicator {len(names)}")
    for r in records:
        if "commName" in r:
            r["commName"] = names[r["commName"]]
    return records


def hccl_start_missed(records):
    """msPTI's HCCL records whose start marker it missed (docs/compatibility.md, "msPTI's HCCL races"):
    start 0, and device and stream 0."""
    return [r for r in records if r["kind"] == "HCCL" and r["start"] == 0]


def label(r):
    if r["kind"] == "MARKER":
        return f"MARKER:{r['flag']}:{r['sourceKind']}:{r['name']}"
    if r["kind"] == "RANGE":
        return f"RANGE:{r['sourceKind']}:{r['name']}"
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
        fields = " ".join(f"{k}={DERIVED[k](r[k]) if k in DERIVED else r[k]}" for k in sorted(r) if k not in VOLATILE)
        linked = sorted(label(o) for o in links.get(r.get("correlationId", 0), []) if o is not r)
        items[f"record {r['kind']} {fields} links={linked}"] += 1
    return items


def host_start(r):
    return r.get("start", r.get("timestamp"))


def time_items(records, per_thread=False):
    """Facts about times: the host timeline (API, memory and host marker records by start; one per
    thread with per_thread), each stream's device timeline, and nesting of records sharing a
    correlation id."""
    items = collections.Counter()
    for clock, sequence in host_order(records, per_thread):
        items[f"host timeline ({clock}): " + " > ".join(sequence)] += 1
    device = collections.defaultdict(list)
    for r in records:
        if r["kind"] in DEVICE_KINDS or (r["kind"] == "MARKER" and r["sourceKind"] == 1):
            device[(r["deviceId"], r["streamId"])].append(r)
    for stream, rs in device.items():
        rs.sort(key=lambda r: (host_start(r), r["kind"]))
        items[f"device {stream} order " + " > ".join(label(r) for r in rs)] += 1
    for corr, rs in by_correlation(records).items():
        for a in rs:
            for b in rs:
                if a is b or "start" not in a or "start" not in b:
                    continue
                # Only the launch's records: an ACL API sharing the id (aclrtSynchronizeStream) is a later call.
                if a["kind"] in DEVICE_KINDS and b["kind"] in LAUNCH_KINDS:
                    items[f"{label(a)} starts after {label(b)} starts: {a['start'] >= b['start']}"] += 1
                    # Not "after it ends": the device may start the work before the launch returns.
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


def host_order(records, per_thread=False):
    """Host records in order of start, in two timelines, one per clock: the API records CANN reports,
    and what the library times itself (host markers, memory records). Equal starts (API and NODE_API)
    are ordered by kind, the same way in both runs. With per_thread, one timeline per thread and clock
    (threads run concurrently, so only each thread's own order is a fact). Yields (clock, labels)."""
    for clock, kinds in (("CANN", API_KINDS), ("library", {"MARKER", "MEMORY", "MEMSET", "MEMCPY"})):
        host = [r for r in records if r["kind"] in kinds and r.get("sourceKind", 0) == 0]
        threads = collections.defaultdict(list)
        for r in host:
            threads[r.get("threadId") if per_thread else None].append(r)
        for rs in threads.values():
            rs.sort(key=lambda r: (host_start(r), r["kind"]))
            yield clock, [label(r) for r in rs]


def differences(a, b):
    return {("ours", k) for k in (a - b)} | {("msPTI", k) for k in (b - a)}


def check_listed(found, allowed):
    """Fails on a difference not allowed, and on an allowed one that no longer occurs."""
    assert found - allowed == set(), "differences not in ALLOWED (docs/compatibility.md):\n" + \
        "\n".join(map(str, sorted(found - allowed)))
    assert allowed - found == set(), f"listed differences that no longer occur: {sorted(allowed - found)}"


def check_one_sided(runs, one_sided):
    """Each ONE_SIDED record (side, label) is given by that side only."""
    count = {side: collections.Counter(label(r) for r in rs) for side, rs in runs.items()}
    for (side, name), heading in one_sided.items():
        other = "msPTI" if side == "ours" else "ours"
        assert count[side][name] > 0 and count[other][name] == 0, \
            f"{name}: listed as given by {side} only ({heading}), found {dict((s, count[s][name]) for s in count)}"


def without_one_sided(runs, one_sided):
    return {side: [r for r in rs if (side, label(r)) not in one_sided] for side, rs in runs.items()}


def check_documented(doc_path, headings):
    with open(doc_path) as f:
        doc = f.read()
    section = doc.split(DOC_SECTION, 1)
    assert len(section) == 2, "docs/compatibility.md lacks the differential test's section"
    for heading in headings:
        assert f"### {heading}\n" in section[1], f"ALLOWED cites '{heading}', which the section does not have"


def main_under_ctest(test_file, arg_names, compared="msPTI's library with ours"):
    """The __main__ of a differential pytest file that CTest runs with its arguments (`arg_names`, the
    third of which is msPTI's source dir or empty): exits 77 (skipped) without msPTI's sources, else
    hands the arguments to the tests (DIFFERENTIAL_ARGS) and runs them."""
    import pytest  # only the test files need it
    args = sys.argv[1:]
    if len(args) != len(arg_names):
        usage = " ".join(f"<{a}>" for a in arg_names)
        sys.exit(f"usage: {os.path.basename(test_file)} {usage}; got {args}")
    if not args[2]:
        print("SKIP: msPTI's sources are not configured; set MSPTI_UPSTREAM_SOURCE (CMake cache or environment "
              f"variable, e.g. ../shared/upstream/mspti) and reconfigure to compare {compared}")
        sys.exit(77)
    os.environ["DIFFERENTIAL_ARGS"] = json.dumps(args)
    sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", test_file]))
