"""Records joined as users expect (docs/trace.md, "Filters" and "Flows"), on a workload with a known
answer (trace_workload --launches N): 2 kernels launched and waited for, then N matmuls launched
inside the host range "launched" and left to run after it, each inside a range "on_device" with a
host and a device half, then 2 kernels launched after the range, and aclrtSynchronizeDevice.

Each file is read here, apart from the writer and from the mspti_trace readers: the JSON with
the json module, the SQLite with SQL, the pftrace with the test's own protobuf walk over the
packets (only the fields this check needs). What is asserted:

- capture range: exactly the N matmuls are kept, however late they ran, and none of the 4 others;
- device range names: every device half is named like its host half, in every format and in the
  summary (which keeps host and device halves apart);
- flows: each device slice's flow starts on exactly one API slice and ends on it; no flow starts
  on aclrtMalloc, aclrtFree or the synchronize calls; one flow per launch;
- the summary lists each API call once.
"""
import csv
import json
import os
import sqlite3
import struct
import subprocess
from collections import Counter, defaultdict

import pytest

from conftest import MSPTI_TRACE, WORKLOAD, trace

N = 24  # matmuls launched inside the range
API_CATS = {"api", "acl_api", "node_api", "runtime_api"}
DEVICE_CATS = {"kernel", "memcpy", "memset", "communication"}
# Records timed on the host around the runtime call (libmspti's memory hooks), not by the device.
HOST_TIMED_CATS = {"memcpy", "memset"}
NOT_LAUNCHES = {"aclrtMalloc", "aclrtFree", "aclrtSynchronizeDevice", "aclrtSynchronizeStream"}


def run(out, *options, fmt="pftrace"):
    r = trace(out, "--format", fmt, *options, program=[WORKLOAD, "--launches", str(N)],
              env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    assert r.returncode == 0, r.stderr
    assert f"launches kernels {N + 4}" in r.stdout
    return out


def only(out, ext):
    (path,) = [os.path.join(str(out), f) for f in os.listdir(str(out))
              if f.startswith("trace.") and f.endswith("." + ext)]
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("joins")
    return {fmt: run(base / fmt, fmt=fmt) for fmt in ("pftrace", "json", "sqlite")}


# --- a minimal protobuf walk: TracePacket fields this test needs ----------------------------

def _varint(b, p):
    v = shift = 0
    while True:
        c = b[p]
        p += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, p


def _fields(b):
    """(field number, wire type, value) of one message: ints for varints and fixed, bytes else."""
    p = 0
    while p < len(b):
        key, p = _varint(b, p)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, p = _varint(b, p)
        elif wt == 1:
            v, p = struct.unpack_from("<Q", b, p)[0], p + 8
        elif wt == 2:
            n, p = _varint(b, p)
            v, p = b[p:p + n], p + n
        elif wt == 5:
            v, p = struct.unpack_from("<I", b, p)[0], p + 4
        else:
            raise ValueError(f"wire type {wt}")
        yield num, wt, v


def pftrace_slices(path):
    """[{name, cat, track_name, start, end, flows}] of every slice, BEGIN/END paired per track by
    timestamp (file order for equal ones), as Perfetto does."""
    data = open(path, "rb").read()
    names, cats, tracks, events = {}, {}, {}, []
    for num, _, packet in _fields(data):
        if num != 1:
            continue
        ts, te = None, None
        for n, _, v in _fields(packet):
            if n == 8:
                ts = v
            elif n == 11:  # TrackEvent
                te = v
            elif n == 12:  # InternedData
                for m, _, entry in _fields(v):
                    if m in (1, 2):
                        f = dict((k, x) for k, _, x in _fields(entry))
                        (cats if m == 1 else names)[f[1]] = f[2].decode()
            elif n == 60:  # TrackDescriptor
                f = {}
                for k, _, x in _fields(v):
                    f[k] = x
                name = f.get(2, b"").decode()
                for k in (4, 3):  # thread, process
                    if k in f:
                        sub = dict((a, x) for a, _, x in _fields(f[k]))
                        name = (sub.get(5) or sub.get(6) or b"").decode() or name
                tracks[f[1]] = name
        if te is None:
            continue
        ev = {"ts": ts, "flows": []}
        for n, _, v in _fields(te):
            if n == 9:
                ev["type"] = v
            elif n == 11:
                ev["track"] = v
            elif n == 10:
                ev["name"] = names[v]
            elif n == 3:
                ev["cat"] = cats[v]
            elif n == 47:
                ev["flows"].append(v)
        events.append(ev)
    per = defaultdict(list)
    for e in events:
        if e.get("type") in (1, 2):
            per[e["track"]].append(e)
    out = []
    for track, evs in per.items():
        evs.sort(key=lambda e: e["ts"])
        stack = []
        for e in evs:
            if e["type"] == 1:
                stack.append(e)
            else:
                b = stack.pop()
                out.append({"name": b.get("name", ""), "cat": b.get("cat", ""), "track_name": tracks.get(track, ""),
                            "start": b["ts"], "end": e["ts"], "flows": b["flows"]})
        assert not stack, f"BEGIN without END on {tracks.get(track)}"
    return out


def json_events(path):
    doc = json.load(open(path))
    return doc["traceEvents"]


# --- capture range -------------------------------------------------------------------------

def test_capture_range_keeps_the_kernels_launched_inside_it(runs, tmp_path):
    full = pftrace_slices(only(runs["pftrace"], "pftrace"))
    kernels = Counter(s["name"] for s in full if s["cat"] == "kernel")
    assert sum(kernels.values()) == N + 4
    matmul = [n for n, c in kernels.items() if c == N]
    assert len(matmul) == 1, kernels
    out = run(tmp_path / "capture", "--capture-range", "launched")
    kept = pftrace_slices(only(out, "pftrace"))
    names = Counter(s["name"] for s in kept if s["cat"] == "kernel")
    assert names == {matmul[0]: N}, names  # before: only those that started inside the range
    (rng,) = [s for s in kept if s["cat"] == "marker" and s["name"] == "launched"]
    late = sum(1 for s in kept if s["cat"] == "kernel" and s["start"] >= rng["end"])
    print(f"{late} of {N} kept kernels started after the range ended")
    # The host calls kept are those inside the range.
    assert all(rng["start"] <= s["start"] <= rng["end"] for s in kept if s["cat"] in API_CATS)
    # SQLite: the same rule (the filter is the same for every format).
    out = run(tmp_path / "capture_sqlite", "--capture-range", "launched", fmt="sqlite")
    db = sqlite3.connect(only(out, "sqlite"))
    assert db.execute("SELECT COUNT(*) FROM kernel").fetchone() == (N,)
    orphans = db.execute("""SELECT COUNT(*) FROM kernel k WHERE NOT EXISTS
                            (SELECT 1 FROM api a WHERE a.correlation_id = k.correlation_id)""").fetchone()
    assert orphans == (0,)


def test_capture_range_keeps_the_collectives_launched_inside_it(tmp_path):
    """HCCL records carry no correlation id: each goes with its op's COMMUNICATION record (same
    device and stream, inside the HCCL record's span), kept by that record's launch. The workload
    (--collectives M) holds its stream with gates so that the answer does not depend on timing: a
    broadcast launched before the range runs inside it, the M all-reduces launched inside run
    after it, and a reduce is launched after it."""
    m = 3
    program = [WORKLOAD, "--launches", str(N), "--collectives", str(m)]
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}

    def traced(out, *options, fmt="pftrace"):
        r = trace(out, "--format", fmt, *options, program=program, env=env)
        assert r.returncode == 0, r.stderr
        assert f"launches kernels {N + 4} collectives {m + 2}" in r.stdout
        return out

    full = pftrace_slices(only(traced(tmp_path / "full"), "pftrace"))
    hccl = [s for s in full if s["cat"] == "hccl"]
    assert Counter(s["name"] for s in hccl) == {"HcclBroadcast": 1, "HcclAllReduce": m, "HcclReduce": 1}
    assert Counter(s["name"] for s in full if s["cat"] == "communication") == {
        "hcom_broadcast_": 1, "hcom_allReduce_": m, "hcom_reduce_": 1}
    (rng,) = [s for s in full if s["cat"] == "marker" and s["name"] == "launched"]
    # The premise: the broadcast ran inside the range, the all-reduces after it.
    (bcast,) = [s for s in hccl if s["name"] == "HcclBroadcast"]
    assert rng["start"] <= bcast["start"] and bcast["end"] <= rng["end"], (rng, bcast)
    assert all(s["start"] >= rng["end"] for s in hccl if s["name"] == "HcclAllReduce"), (rng, hccl)

    kept = pftrace_slices(only(traced(tmp_path / "capture", "--capture-range", "launched"), "pftrace"))
    got = Counter(s["name"] for s in kept if s["cat"] == "hccl")
    assert got == {"HcclAllReduce": m}, got  # before: the broadcast only, by its own start
    got = Counter(s["name"] for s in kept if s["cat"] == "communication")
    assert got == {"hcom_allReduce_": m}, got
    assert sum(1 for s in kept if s["cat"] == "kernel") == N

    out = traced(tmp_path / "capture_sqlite", "--capture-range", "launched", fmt="sqlite")
    db = sqlite3.connect(only(out, "sqlite"))
    rows = db.execute("SELECT s.value, COUNT(*) FROM hccl h JOIN strings s ON s.id = h.name_id GROUP BY s.value")
    assert rows.fetchall() == [("HcclAllReduce", m)]


# --- device range names --------------------------------------------------------------------

def test_device_ranges_take_their_host_half_name_in_every_format(runs):
    sl = pftrace_slices(only(runs["pftrace"], "pftrace"))
    device = [s for s in sl if s["cat"] == "marker" and s["track_name"].startswith("stream ")]
    host = [s for s in sl if s["cat"] == "marker" and not s["track_name"].startswith("stream ")]
    assert Counter(s["name"] for s in device) == {"on_device": N}
    assert Counter(s["name"] for s in host) == {"on_device": N, "launched": 1}

    evs = json_events(only(runs["json"], "json"))
    tnames = {e["tid"]: e["args"]["name"] for e in evs if e["ph"] == "M" and e["name"] == "thread_name"}
    dev = [e for e in evs if e["ph"] == "X" and e["cat"] == "marker" and " \u00b7 stream " in tnames.get(e["tid"], "")]
    assert Counter(e["name"] for e in dev) == {"on_device": N}

    db = sqlite3.connect(only(runs["sqlite"], "sqlite"))
    rows = db.execute("""SELECT r.source_kind, s.value, COUNT(*) FROM range r JOIN strings s ON s.id = r.name_id
                         GROUP BY r.source_kind, s.value""").fetchall()
    assert sorted(rows) == [(0, "launched", 1), (0, "on_device", N), (1, "on_device", N)]
    # The marker table keeps the records as msPTI delivered them: the device half has no name.
    assert db.execute("SELECT COUNT(*) FROM marker WHERE source_kind = 1").fetchone() == (2 * N,)

    for fmt, out in runs.items():
        with open(os.path.join(str(out), "summary.csv"), encoding="utf-8") as f:
            ranges = [r for r in csv.DictReader(f) if r["scope"] == "all ranks" and r["section"] == "ranges"]
        got = sorted((r["kind"], r["name"], int(r["count"])) for r in ranges)
        assert got == [("device", "on_device", N), ("host", "launched", 1), ("host", "on_device", N)], (fmt, got)


# --- flows ---------------------------------------------------------------------------------

def test_json_flows_go_from_one_launch_call_to_its_device_work(runs):
    evs = json_events(only(runs["json"], "json"))
    xs = [e for e in evs if e["ph"] == "X"]
    starts = defaultdict(list)
    ends = defaultdict(list)
    for e in evs:
        if e["ph"] == "s":
            starts[e["id"]].append(e)
        elif e["ph"] == "f":
            ends[e["id"]].append(e)
    assert set(starts) == set(ends), "a flow without its other end"
    assert all(len(v) == 1 for v in starts.values()), "several starts with one id"
    assert all(len(v) == 1 for v in ends.values()), "several ends with one id"

    def at(ev, cats):
        return [x for x in xs if x["tid"] == ev["tid"] and x["pid"] == ev["pid"] and x["ts"] == ev["ts"]
                and x["cat"] in cats]

    launched = Counter()
    for fid, (s,) in starts.items():
        (f,) = ends[fid]
        calls, work = at(s, API_CATS), at(f, DEVICE_CATS)
        assert calls and work, (s, f)
        assert not {c["name"] for c in calls} & NOT_LAUNCHES, calls
        # A launch's device work starts after the call. A synchronous copy's or set's record is timed
        # around the runtime call by libmspti's hook, so it encloses the call's own report and may
        # start before it (by any time the thread is preempted there): they overlap.
        if work[0]["cat"] in HOST_TIMED_CATS:
            assert overlap(calls[0]["ts"], calls[0]["ts"] + calls[0]["dur"], work[0]["ts"],
                           work[0]["ts"] + work[0]["dur"]), (calls[0], work[0])
        else:
            assert s["ts"] <= f["ts"], (s, f)
        launched[work[0]["cat"]] += 1
    device = Counter(x["cat"] for x in xs if x["cat"] in DEVICE_CATS)
    # One flow per piece of device work: the N + 4 kernels and the set-up copies.
    assert device["kernel"] == N + 4
    assert launched == device, (launched, device)


def overlap(a_start, a_end, b_start, b_end):
    return a_start <= b_end and b_start <= a_end


def test_pftrace_flows_have_one_api_start_and_one_device_end(runs):
    sl = pftrace_slices(only(runs["pftrace"], "pftrace"))
    per = defaultdict(list)
    for s in sl:
        for f in s["flows"]:
            per[f].append(s)
    device = [s for s in sl if s["cat"] in DEVICE_CATS]
    assert sum(1 for s in device if s["cat"] == "kernel") == N + 4
    assert len(per) == len(device)
    for fid, ss in per.items():
        assert len(ss) == 2, [(s["name"], s["cat"]) for s in ss]
        calls = [s for s in ss if s["cat"] in API_CATS]
        works = [s for s in ss if s["cat"] in DEVICE_CATS]
        assert len(calls) == 1 and len(works) == 1, (ss,)
        call, work = calls[0], works[0]
        if work["cat"] in HOST_TIMED_CATS:  # see the JSON test
            assert overlap(call["start"], call["end"], work["start"], work["end"]), (call, work)
        else:
            assert call["start"] <= work["start"], (call, work)
        assert call["name"] not in NOT_LAUNCHES
    assert all(len(s["flows"]) == 1 for s in device)


def test_report_draws_an_arrow_to_each_piece_of_work_of_a_launch(tmp_path):
    """A launch of three kernels (one correlation id) and one of one kernel, written by hand: the
    report's arrows go from the launching call to each kernel, from a pftrace (one flow id per
    kernel, all on the call) and from SQLite (joined by correlation id)."""
    from types import SimpleNamespace
    from pftrace_writer import Writer
    from mspti_trace import report_flows
    pid = 77
    w = Writer(pid, 0)
    thread, stream = w.track("thread 7"), w.track("stream 1", parent=w.track("device 0"))
    f = [pid << 40 | n for n in (1, 2, 3, 4)]
    w.slice(thread, "aclnnFoo", "node_api", 100, 200, flows=f[:3])
    w.slice(thread, "aclnnBar", "api", 210, 220, flows=[f[3]])
    for start, flow in ((300, f[0]), (400, f[1]), (450, f[2]), (500, f[3])):
        w.slice(stream, "k", "kernel", start, start + 40, flows=[flow])
    path = tmp_path / f"trace.rank0.pid{pid}.pftrace"
    path.write_bytes(w.bytes())
    want = [(100, "aclnnFoo", 300, "kernel"), (100, "aclnnFoo", 400, "kernel"), (100, "aclnnFoo", 450, "kernel"),
            (210, "aclnnBar", 500, "kernel")]
    assert report_flows.launches(SimpleNamespace(format="pftrace", path=str(path)), 100) == want

    db_path = tmp_path / f"trace.rank0.pid{pid}.sqlite"
    db = sqlite3.connect(str(db_path))
    db.executescript("""
        CREATE TABLE strings (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE api (start INTEGER, end INTEGER, kind INTEGER, pid INTEGER, tid INTEGER,
                          correlation_id INTEGER, name_id INTEGER);
        CREATE TABLE kernel (start INTEGER, end INTEGER, device_id INTEGER, stream_id INTEGER,
                             correlation_id INTEGER, name_id INTEGER, type_id INTEGER);
        CREATE TABLE memcpy (start INTEGER, correlation_id INTEGER);
        CREATE TABLE memset (start INTEGER, correlation_id INTEGER);
        CREATE TABLE communication (start INTEGER, correlation_id INTEGER);
        INSERT INTO strings VALUES (1, 'aclnnFoo'), (2, 'aclnnBar'), (3, 'rtKernelLaunch'), (4, 'k'),
                                   (5, 'aclrtSynchronizeDevice');
        INSERT INTO api VALUES (100, 200, 11, 1, 7, 9, 1), (120, 150, 12, 1, 7, 9, 3), (210, 220, 3, 1, 7, 10, 2),
                               (600, 900, 10, 1, 7, 9, 5);
        INSERT INTO kernel VALUES (300, 340, 0, 1, 9, 4, 4), (400, 440, 0, 1, 9, 4, 4), (450, 490, 0, 1, 9, 4, 4),
                                  (500, 540, 0, 1, 10, 4, 4);
    """)
    db.commit()
    db.close()
    assert report_flows.launches(SimpleNamespace(format="sqlite", path=str(db_path)), 100) == want


# --- API calls once ------------------------------------------------------------------------

def test_summary_lists_each_api_call_once(runs):
    with open(os.path.join(str(runs["pftrace"]), "summary.csv"), encoding="utf-8") as f:
        apis = [r for r in csv.DictReader(f) if r["scope"] == "all ranks" and r["section"] == "apis"]
    by_name = defaultdict(list)
    for r in apis:
        by_name[r["name"]].append(r["kind"])
    assert all(len(kinds) == len(set(kinds)) for kinds in by_name.values())
    twins = [n for n, kinds in by_name.items() if "api" in kinds and "node_api" in kinds]
    assert twins == [], twins
    matmul = [r for r in apis if r["kind"] in ("api", "node_api") and "atmul" in r["name"]]
    assert [int(r["count"]) for r in matmul] == [N], matmul


# --- the report's timeline -------------------------------------------------------------------

def test_report_timeline_nests_host_calls_and_draws_launch_arrows(runs, tmp_path):
    """The page in headless Chromium: the host thread's row holds the range 'launched', the N
    ranges 'on_device' inside it and the calls inside those, labelled; one arrow per launch."""
    from test_trace_analysis import _chromium, _console
    out = runs["pftrace"]
    sl = pftrace_slices(only(out, "pftrace"))
    work = sum(1 for s in sl if s["cat"] in DEVICE_CATS)
    page = tmp_path / "report.html"
    r = subprocess.run([MSPTI_TRACE, "report", str(out), "-o", str(page)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    text = page.read_text()
    data = json.loads(text.split('<script type="application/json" id="data">')[1].split("</script>")[0])
    tl = data["timeline"]
    host = [row for row in tl["rows"] if not row["label"].split(" \u00b7 ", 1)[1].startswith(("device ", "comm "))]
    levels = defaultdict(set)  # name -> depths on host rows
    for row in host:
        s = row["s"]
        for j in range(0, len(s), 5):
            levels[tl["names"][s[j + 2]]].add(s[j + 4])
    # Inside the range, a level down (a call stamped on the other clock may sit beside its range).
    assert levels["launched"] == {0} and min(levels["on_device"]) >= 1, dict(levels)
    assert min(d for n, ds in levels.items() if "atmul" in n for d in ds) >= 1, dict(levels)
    assert len(tl["flows"]) == work  # one arrow per piece of device work, from its launch
    r = _chromium("--user-data-dir=" + str(tmp_path / "profile"), "--dump-dom", page.as_uri())
    assert r.returncode == 0 and _console(r.stderr) == [], r.stderr
    dom = r.stdout
    assert 'id="selfcheck" data-status="ok"' in dom, dom[-2000:]
    check = json.loads(dom.split('id="selfcheck"')[1].split(": ", 1)[1].split("</span>")[0])
    assert check["flows"] == check["arrowsDrawn"] == work
    assert check["hostSlicesDrawn"] > 0 and check["nestedDrawn"] > 0 and check["labelsDrawn"] > 0
    assert check["maxDepth"] >= 3
