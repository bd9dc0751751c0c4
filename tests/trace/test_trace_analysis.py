"""mspti-trace summary, merge and report: on a real 4-rank vnpu workload recorded with the launcher
(every format), on synthetic multi-host traces with known clock offsets, and the report page in
a headless browser with the network off."""
import csv
import glob
import gzip
import json
import os
import shutil
import subprocess
from collections import defaultdict

import pytest

from conftest import MSPTI_TRACE, WORKLOAD, ranks_program, trace
from mspti_trace import pftrace_reader as reader
from mspti_trace import readers
from pftrace_writer import Writer

NPROC, WARMUP, ITERS, KERNELS = 4, 1, 3, 4
STEPS = WARMUP + ITERS
ARTIFACTS = os.environ.get("TRACE_ARTIFACTS")


def record(out, fmt, *extra):
    r = trace(out, "--format", fmt, *extra,
              program=ranks_program(NPROC, "--warmup", str(WARMUP), "--iters", str(ITERS), "--kernels", str(KERNELS)))
    assert r.returncode == 0, r.stderr
    return r


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One 4-rank run per format: {fmt: (dir, CompletedProcess)}."""
    base = tmp_path_factory.mktemp("runs")
    return {fmt: (base / fmt, record(base / fmt, fmt)) for fmt in ("pftrace", "json", "sqlite")}


def cli(*args):
    return subprocess.run([MSPTI_TRACE, *map(str, args)], capture_output=True, text=True, timeout=120)


def summary_rows(directory):
    rows = defaultdict(list)
    with open(os.path.join(str(directory), "summary.csv")) as f:
        for r in csv.DictReader(f):
            rows[(r["scope"], r["section"])].append(r)
    return rows


def counts(directory):
    """What must not depend on the format: every count in the summary, per scope label."""
    out = set()
    for (scope, section), rows in summary_rows(directory).items():
        scope = scope.split(" (pid")[0]
        for r in rows:
            out.add((scope, section, r["name"], r["kind"], r["count"], r["produced"], r["delivered"], r["dropped"]))
    return out


# --- summary ---------------------------------------------------------------------------------

def test_end_of_run_summary_is_printed_and_saved(runs):
    out, r = runs["pftrace"]
    assert "==== all ranks ====" in r.stderr
    for rank in range(NPROC):
        assert f"==== rank {rank} (pid " in r.stderr
    assert "summary saved as" in r.stderr
    assert "Kernels" not in r.stdout  # the program's stdout stays its own
    text = open(os.path.join(str(out), "summary.txt")).read()
    for title in ("Kernels", "Collectives", "mstx ranges", "API calls", "Records per kind"):
        assert title in text


def test_summary_matches_the_workload(runs):
    out, _ = runs["pftrace"]
    rows = summary_rows(out)
    scopes = {s for s, _ in rows}
    assert "all ranks" in scopes and sum(1 for s in scopes if s.startswith("rank ")) == NPROC
    (k,) = rows[("all ranks", "kernels")]
    assert int(k["count"]) == NPROC * STEPS * KERNELS and float(k["percent"]) == 100.0
    assert int(k["min_ns"]) <= float(k["avg_ns"]) <= int(k["max_ns"])
    # Totals are exactly those of the slices decoded independently from the files.
    total = 0
    for path in glob.glob(os.path.join(str(out), "trace.rank*.pftrace")):
        slices, errors = reader.slices(reader.load_pftrace(path, strict=True))
        assert errors == []
        total += sum(s["end"] - s["start"] for s in slices if s["categories"] == ["kernel"])
    assert int(k["total_ns"]) == total
    coll = {(r["kind"], r["name"]): r for r in rows[("all ranks", "collectives")]}
    apis = {(r["kind"], r["name"]): int(r["count"]) for r in rows[("all ranks", "apis")]}
    assert int(coll[("hccl", "HcclAllReduce")]["count"]) == NPROC * STEPS
    assert int(coll[("communication", "hcom_allReduce_")]["count"]) == NPROC * STEPS
    for r in coll.values():  # the rank the others wait for (analyze's finding), if any
        assert r["slowest_rank"] == "" or r["slowest_rank"].startswith("rank ")
    # Each API call once: an operator is reported as API and NODE_API records alike.
    assert not [n for (kind, n) in apis if kind == "api" and ("node_api", n) in apis]
    ranges = {r["name"]: int(r["count"]) for r in rows[("all ranks", "ranges")]}
    assert ranges == {"warmup": NPROC * WARMUP, "step": NPROC * ITERS}
    assert apis[("runtime_api", "rtKernelLaunch")] == NPROC * STEPS * KERNELS
    assert apis[("acl_api", "aclrtSynchronizeStream")] == NPROC * STEPS
    drops = {r["name"]: r for r in rows[("all ranks", "dropped")]}
    assert int(drops["kernel"]["produced"]) == int(drops["kernel"]["delivered"]) == NPROC * STEPS * KERNELS
    assert all(int(r["dropped"]) == 0 for r in drops.values())
    for rank in range(NPROC):
        scope = next(s for s in scopes if s.startswith(f"rank {rank} "))
        (kr,) = rows[(scope, "kernels")]
        assert int(kr["count"]) == STEPS * KERNELS


def test_every_format_gives_the_same_counts(runs):
    base = counts(runs["pftrace"][0])
    assert counts(runs["json"][0]) == base
    assert counts(runs["sqlite"][0]) == base


def test_summary_command_reprints_the_files(runs, tmp_path):
    out, _ = runs["sqlite"]
    before = open(os.path.join(str(out), "summary.txt")).read()
    os.remove(os.path.join(str(out), "summary.csv"))
    r = cli("summary", out)
    assert r.returncode == 0, r.stderr
    assert r.stdout == before == open(os.path.join(str(out), "summary.txt")).read()
    assert os.path.exists(os.path.join(str(out), "summary.csv"))
    r = cli("summary", tmp_path)
    assert r.returncode == 1 and "no trace." in r.stderr
    r = cli("summary", tmp_path / "missing")
    assert r.returncode == 1 and "not a directory" in r.stderr


def test_summary_counts_dropped_records_per_kind(tmp_path):
    # A finished process (final stats) and a killed one (only the dropped-records counter).
    w = Writer(pid=100, rank=0)
    s = w.track("stream 1", parent=w.track("device 0"))
    w.slice(s, "k", "kernel", 1000, 2000)
    w.instant(w.proc, "mspti-trace stats", "mspti-trace", 3000,
              {"dropped.kernel": 7, "produced.kernel": 10, "delivered.kernel": 3, "dropped.api": 2,
               "produced.api": 5, "delivered.api": 3, "filtered": 4})
    (tmp_path / "trace.rank0.pid100.pftrace").write_bytes(w.bytes())
    w = Writer(pid=101, rank=1)
    drop = w.track("dropped records")
    for ts, v in ((1000, 1), (2000, 9)):
        w._event(ts, 4, drop, counter=v)
    (tmp_path / "trace.rank1.pid101.pftrace").write_bytes(w.bytes())
    r = cli("summary", tmp_path)
    assert r.returncode == 0, r.stderr
    rows = summary_rows(tmp_path)
    drops = {r["name"]: int(r["dropped"]) for r in rows[("all ranks", "dropped")]}
    assert drops == {"kernel": 7, "api": 2, "all (no final stats)": 9, "filtered": 4, "unmatched_ranges": 0}
    assert "no final stats (killed?): rank 1" in r.stdout


def test_summary_reads_cut_and_gzipped_files(runs, tmp_path):
    # A pftrace cut inside a packet (what SIGKILL leaves): read up to there, without final stats.
    (path,) = glob.glob(os.path.join(str(runs["pftrace"][0]), "trace.rank0.pid*.pftrace"))
    data = open(path, "rb").read()
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / os.path.basename(path)).write_bytes(data[: len(data) * 2 // 3 + 1])
    r = cli("summary", cut)
    assert r.returncode == 0, r.stderr
    rows = summary_rows(cut)
    assert 0 < int(rows[("all ranks", "kernels")][0]["count"]) <= STEPS * KERNELS
    # The JSON run gzipped (--gzip names) gives the same counts as the plain files.
    gz = tmp_path / "gz"
    gz.mkdir()
    for p in glob.glob(os.path.join(str(runs["json"][0]), "trace.*.json")):
        with open(p, "rb") as src, gzip.open(str(gz / (os.path.basename(p) + ".gz")), "wb") as dst:
            dst.write(src.read())
    r = cli("summary", gz)
    assert r.returncode == 0, r.stderr
    assert counts(gz) == counts(runs["json"][0])


def test_summary_of_a_run_that_dropped_records(tmp_path):
    # One activity buffer at a time and no periodic writes: msPTI drops records, and the
    # end-of-run summary shows exactly what the trace's final stats say.
    out = tmp_path / "out"
    env = dict(os.environ, MSPTI_TRACE_MAX_BUFFERS="1")
    r = trace(out, "--flush-ms", "3600000", program=[WORKLOAD, "--warmup", "0", "--iters", "100", "--kernels", "100"],
              env=env)
    assert r.returncode == 0, r.stderr
    (path,) = glob.glob(os.path.join(str(out), "trace.*.pftrace"))
    t = reader.load_pftrace(path, strict=True)
    st = [e for e in t.events if e["name"] == "mspti-trace stats"][0]["args"]
    rows = {r["name"]: r for r in summary_rows(out)[("all ranks", "dropped")]}
    total = 0
    for key, value in st.items():
        if key.startswith("dropped."):
            kind = key.split(".", 1)[1]
            total += value
            if st[f"produced.{kind}"] or value:
                assert int(rows[kind]["dropped"]) == value and int(rows[kind]["produced"]) == st[f"produced.{kind}"]
    assert total > 0
    kernels = summary_rows(out)[("all ranks", "kernels")]  # none at all when every kernel was dropped
    assert sum(int(k["count"]) for k in kernels) == st["delivered.kernel"]
    assert "Records per kind" in r.stderr


# --- merge -----------------------------------------------------------------------------------

def test_merge_one_host_keeps_the_clock(runs, tmp_path):
    out, _ = runs["pftrace"]
    merged = tmp_path / "all.pftrace"
    r = cli("merge", out, "-o", merged)
    assert r.returncode == 0, r.stderr
    t = reader.load_pftrace(str(merged), strict=True)
    assert len(t.process_tracks()) == NPROC and len(t.sequences) == NPROC
    singles = [reader.load_pftrace(p, strict=True) for p in glob.glob(os.path.join(str(out), "trace.rank*.pftrace"))]
    assert t.packets == sum(s.packets for s in singles)
    assert sorted(e["ts"] for e in t.events) == sorted(e["ts"] for s in singles for e in s.events)
    slices, errors = reader.slices(t)
    assert errors == []
    assert sum(1 for s in slices if s["categories"] == ["kernel"]) == NPROC * STEPS * KERNELS


def test_merge_json_and_sqlite(runs, tmp_path):
    for fmt in ("json", "sqlite"):
        merged = tmp_path / f"{fmt}.json"
        r = cli("merge", runs[fmt][0], "-o", merged)
        assert r.returncode == 0, r.stderr
        doc = json.load(open(merged))
        xs = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
        assert len({e["pid"] for e in xs}) == NPROC
        assert sum(1 for e in xs if e["cat"] == "kernel") == NPROC * STEPS * KERNELS
    r = cli("merge", runs["sqlite"][0], "-o", tmp_path / "x.pftrace")
    assert r.returncode == 1 and "merge into a .json or .json.gz file" in r.stderr


def _host_dir(path, host, writers):
    path.mkdir()
    (path / "meta.json").write_text(json.dumps({"format": 1, "host": host}))
    for w in writers:
        (path / f"trace.rank{w.rank}.pid{w.pid}.pftrace").write_bytes(w.bytes())


def _synthetic_rank(pid, rank, clock, arrive, comms):
    """A rank whose clock reads true time + `clock`: it launches a kernel, then joins collectives
    that end at the same true instant on every rank (comms: {name: true end})."""
    w = Writer(pid, rank)
    stream = w.track("stream 1", parent=w.track(f"device {rank}"))
    flow = pid << 40 | 1
    w.slice(stream, "k", "kernel", clock + arrive - 500, clock + arrive - 100, flows=[flow])
    for comm, end in comms.items():
        track = w.track(f"comm {comm}")
        w.slice(track, "HcclAllReduce", "hccl", clock + arrive, clock + end,
                {"bytes": 1024, "bandwidth_gbps": 1.0, "comm": comm})
    return w


def test_merge_aligns_hosts_on_the_first_collective(tmp_path):
    # Three hosts; C shares a communicator with B only (the offset propagates A -> B -> C). Host B
    # reuses host A's pids, as containers do.
    T, U = 5_000_000, 9_000_000  # true ends of the first collective on "world" and on "pair"
    base = 10_000_000_000  # every clock reads a positive time
    offs = {"A": base, "B": base + 3_200_000_000, "C": base - 1_700_000_000}
    ranks = {"A": [(10, 0), (11, 1)], "B": [(10, 2), (11, 3)], "C": [(20, 4)]}
    comms = {"A": {"world": T}, "B": {"world": T, "pair": U}, "C": {"pair": U}}
    for host, members in ranks.items():
        _host_dir(tmp_path / host, host, [_synthetic_rank(pid, rank, offs[host], 1000 * (rank + 1), comms[host])
                                          for pid, rank in members])
    merged = tmp_path / "all.pftrace"
    r = cli("merge", tmp_path / "A", tmp_path / "B", tmp_path / "C", "-o", merged)
    assert r.returncode == 0, r.stderr
    assert "host B: shifted by -3200000000 ns" in r.stderr and "host C: shifted by 1700000000 ns" in r.stderr
    t = reader.load_pftrace(str(merged), strict=True)
    assert len(t.sequences) == 5 and len(t.process_tracks()) == 5  # the reused pids were renamed
    slices, errors = reader.slices(t)
    assert errors == []
    ends = defaultdict(set)
    for s in slices:
        if s["categories"] == ["hccl"]:
            ends[s["args"]["comm"]].add(s["end"])
    assert ends == {"world": {base + T}, "pair": {base + U}}
    kernels = sorted(s["start"] for s in slices if s["categories"] == ["kernel"])
    assert kernels == sorted(base + 1000 * (rank + 1) - 500 for rank in range(5))
    # Every kernel keeps a flow id of its own process, renamed pids included.
    owners = {u >> 32 for u in t.tracks}
    flows = [f for s in slices for f in s["flows"]]
    assert len(set(flows)) == 5 and {f >> 40 for f in flows} == owners
    # Without alignment the clocks stay apart.
    r = cli("merge", tmp_path / "A", tmp_path / "B", "-o", tmp_path / "raw.pftrace", "--no-align")
    assert r.returncode == 0, r.stderr
    raw, _ = reader.slices(reader.load_pftrace(str(tmp_path / "raw.pftrace")))
    assert {s["end"] for s in raw if s["categories"] == ["hccl"] and s["args"]["comm"] == "world"} == \
        {offs["A"] + T, offs["B"] + T}


def test_merge_recovers_a_host_offset_in_a_real_run(runs, tmp_path):
    # The real 4-rank JSON run split into two "hosts", the second one's clock 7 s ahead.
    out, _ = runs["json"]
    skew = 7_000_000_000
    for name, ranks in (("a", (0, 1)), ("b", (2, 3))):
        d = tmp_path / name
        d.mkdir()
        (d / "meta.json").write_text(json.dumps({"host": name}))
        for rank in ranks:
            (path,) = glob.glob(os.path.join(str(out), f"trace.rank{rank}.pid*.json"))
            doc = json.load(open(path))
            if name == "b":
                doc["otherData"]["start_ns"] += skew
            (d / os.path.basename(path)).write_text(json.dumps(doc))
    r = cli("merge", tmp_path / "a", tmp_path / "b", "-o", tmp_path / "m.json")
    assert r.returncode == 0, r.stderr
    shift = int(r.stderr.split("host b: shifted by ")[1].split()[0])
    # Back to within the ranks' own spread: the end of the first collective, which merge aligns
    # on, differs between ranks of one run by up to a few ms on a loaded machine.
    ends = defaultdict(list)
    for path in glob.glob(os.path.join(str(out), "trace.rank*.pid*.json")):
        for comm, end in readers.read(path).first_collective_end().items():
            ends[comm].append(end)
    spread = max(max(v) - min(v) for v in ends.values())  # ns; no bound: a loaded machine widens it
    assert abs(shift + skew) <= spread, (shift, spread)
    doc = json.load(open(tmp_path / "m.json"))
    assert doc["otherData"]["host_offsets_ns"]["b"] == shift
    first_end = {}
    for e in sorted((e for e in doc["traceEvents"] if e.get("cat") == "hccl"), key=lambda e: e["ts"]):
        first_end.setdefault(e["pid"], e["ts"] + e["dur"])
    # Merged, the ranks of both hosts end it within the ranks' own spread (us, +1 for rounding).
    assert len(first_end) == NPROC and max(first_end.values()) - min(first_end.values()) <= spread / 1000 + 1


# --- report ----------------------------------------------------------------------------------

def _chromium(*args):
    """Headless Chromium without network: a fresh network namespace when unshare allows it,
    and no proxy or DNS either way."""
    exe = shutil.which("chromium")
    if exe is None:
        pytest.skip("chromium is not installed (.ci/setup installs it)")
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
           "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
           "--enable-logging=stderr", "--v=0", "--virtual-time-budget=3000", *args]
    if subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0:
        cmd = ["unshare", "-n"] + cmd
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def _console(stderr):
    """Console messages of our pages (Chromium's own chrome:// pages may log their own)."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line and "source: file://" in line]


def test_browser_check_sees_console_errors(tmp_path):
    # The console check below works: a page that logs an error is caught.
    page = tmp_path / "bad.html"
    page.write_text("<!DOCTYPE html><html><body><script>console.error('broken'); nope();</script></body></html>")
    r = _chromium("--user-data-dir=" + str(tmp_path / "profile"), "--dump-dom", page.as_uri())
    assert any("broken" in line for line in _console(r.stderr)), r.stderr
    assert any("nope is not defined" in line for line in _console(r.stderr))


def test_report_page_in_a_headless_browser(runs, tmp_path):
    out, _ = runs["pftrace"]
    page = tmp_path / "report.html"
    r = cli("report", out, "-o", page)
    assert r.returncode == 0, r.stderr
    text = page.read_text()
    # Self-contained: nothing to fetch, and a policy that forbids fetching.
    assert "default-src 'none'" in text
    for needle in ("http://", "https://", " src=", "<link", "@import", "url("):
        assert needle not in text, needle
    r = _chromium("--user-data-dir=" + str(tmp_path / "profile"), "--dump-dom", page.as_uri())
    assert r.returncode == 0, r.stderr
    assert _console(r.stderr) == []
    dom = r.stdout
    assert 'id="selfcheck" data-status="ok"' in dom, dom[-2000:]
    check = json.loads(dom.split('id="selfcheck"')[1].split(": ", 1)[1].split("</span>")[0])
    # One row per rank and stream, per communicator and per host thread with ranges.
    assert check["rows"] == check["rowsDrawn"] >= NPROC * 2 and check["slicesDrawn"] > 0
    assert check["bars"] == check["ranks"] == NPROC
    assert check["topKernels"] == 1 and check["collectives"] == 1 and check["bandwidthBars"] == NPROC
    assert check["errors"] == [] and check["zoomOk"] is True
    for rank in range(NPROC):
        assert f"rank {rank}" in dom
    shot = tmp_path / "report.png"
    r = _chromium("--user-data-dir=" + str(tmp_path / "profile2"), "--window-size=1400,1300",
                  "--screenshot=" + str(shot), page.as_uri())
    assert r.returncode == 0 and _console(r.stderr) == [], r.stderr
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20000
    if ARTIFACTS:
        os.makedirs(ARTIFACTS, exist_ok=True)
        shutil.copy(shot, os.path.join(ARTIFACTS, "report.png"))
        shutil.copy(page, os.path.join(ARTIFACTS, "report.html"))


def test_report_from_sqlite_and_json(runs, tmp_path):
    for fmt in ("sqlite", "json"):
        page = tmp_path / f"{fmt}.html"
        r = cli("report", runs[fmt][0], "-o", page)
        assert r.returncode == 0, r.stderr
        r = _chromium("--user-data-dir=" + str(tmp_path / f"profile-{fmt}"), "--dump-dom", page.as_uri())
        assert _console(r.stderr) == [] and 'data-status="ok"' in r.stdout, r.stdout[-2000:]
    # One process without rank, collectives or ranges, and one with only API calls.
    small = tmp_path / "small"
    small.mkdir()
    w = Writer(pid=7, rank=0)
    w.slice(w.track("stream 2", parent=w.track("device 0")), "<b>k</b>", "kernel", 10**9, 10**9 + 5000)
    (small / "trace.pid7.pftrace").write_bytes(w.bytes())
    w = Writer(pid=8, rank=0)
    w.slice(w.track("main 8"), "aclInit", "acl_api", 10**9, 10**9 + 100)
    (small / "trace.pid8.pftrace").write_bytes(w.bytes())
    r = cli("report", small, "-o", tmp_path / "small.html")
    assert r.returncode == 0, r.stderr
    r = _chromium("--user-data-dir=" + str(tmp_path / "profile-small"), "--dump-dom", (tmp_path / "small.html").as_uri())
    assert _console(r.stderr) == [] and 'data-status="ok"' in r.stdout, r.stdout[-2000:]
    assert "no collectives recorded" in r.stdout and "&lt;b&gt;k&lt;/b&gt;" in r.stdout
    r = cli("report", tmp_path / "nothing-here", "-o", tmp_path / "x.html")
    assert r.returncode == 1 and "mspti-trace report:" in r.stderr
