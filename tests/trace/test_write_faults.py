"""Write failures while tracing (docs/trace.md, "Write failures"), in every format: a disk full
for a while (transient) and for good (permanent), made two ways: the library's write-failure
injection (MSPTI_TRACE_WRITE_FAULT, ENOSPC and EIO) and a real, small tmpfs (skipped where mount
is refused).

The oracle is the workload's known size and readers written apart from the writer (a strict
pftrace decode, Python's json, SQLite's own integrity check): the file reads to its end, every
kernel is either in the file or counted as dropped in the file's own stats, stderr names the
file once, and the launcher exits 3 unless --allow-loss."""
import contextlib
import gzip
import json
import os
import re
import sqlite3
import subprocess
import tempfile
import threading

import pytest

from conftest import MSPTI_TRACE, WORKLOAD, trace
from mspti_trace import pftrace_reader

FORMATS = {"pftrace": ("--format", "pftrace"), "json": ("--format", "json"),
           "json.gz": ("--format", "json", "--gzip"), "sqlite": ("--format", "sqlite")}
WARMUP, ITERS, KERNELS = 1, 1000, 20
EXPECTED_KERNELS = (WARMUP + ITERS) * KERNELS
WORKLOAD_ARGS = ["--warmup", str(WARMUP), "--iters", str(ITERS), "--kernels", str(KERNELS)]
API_KINDS = ("api", "acl_api", "node_api", "runtime_api")
LOSS_EXIT = 3


def trace_file(out, fmt):
    (name,) = [n for n in os.listdir(out) if n.startswith("trace.") and n.endswith("." + fmt)]
    return os.path.join(out, name)


def read_strictly(path):
    """(kernels, API calls, stats) of a trace file, read by readers that accept no damage."""
    return read_all_strictly(path)[:3]


def read_all_strictly(path):
    """(kernels, API calls, stats, copies device-to-host)."""
    if path.endswith(".pftrace"):
        t = pftrace_reader.load_pftrace(path, strict=True)  # raises on a packet cut short
        slices, errors = pftrace_reader.slices(t)
        assert errors == [], errors[:5]
        cats = [s["categories"][0] for s in slices if s["categories"]]
        stats = [e["args"] for e in t.events if e["name"] == "mspti-trace stats"]
        d2h = sum(1 for s in slices if s["name"] == "Memcpy DtoH")
        return cats.count("kernel"), sum(cats.count(c) for c in API_KINDS), stats[-1] if stats else None, d2h
    if path.endswith((".json", ".json.gz")):
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            doc = json.load(f)  # no repair: the file must be whole JSON (a gzip CRC error raises too)
        events = doc["traceEvents"]
        assert events[-1]["name"] == "mspti_trace_end"
        cats = [e.get("cat") for e in events if e.get("ph") == "X"]
        stats = [e["args"] for e in events if e.get("name") == "mspti-trace stats"]
        d2h = sum(1 for e in events if e.get("ph") == "X" and e.get("name") == "Memcpy DtoH")
        return cats.count("kernel"), sum(cats.count(c) for c in API_KINDS), stats[-1] if stats else None, d2h
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        kernels = db.execute("SELECT COUNT(*) FROM kernel").fetchone()[0]
        apis = db.execute("SELECT COUNT(*) FROM api").fetchone()[0]
        stats = {}
        for kind, produced, delivered, dropped in db.execute("SELECT * FROM stats"):
            if kind in ("filtered", "unmatched_ranges", "lost_to_write_failures"):
                stats[kind] = dropped
            else:
                stats.update({f"produced.{kind}": produced, f"delivered.{kind}": delivered,
                              f"dropped.{kind}": dropped})
        d2h = db.execute("SELECT COUNT(*) FROM memcpy WHERE copy_kind = 3").fetchone()[0]
        return kernels, apis, stats or None, d2h
    finally:
        db.close()


def check_counts(path, lost_expected):
    """Every kernel and API call produced is in the file or counted as dropped in its stats.
    Returns the number of records the stats count as lost to write failures."""
    kernels, apis, stats = read_strictly(path)
    assert stats is not None, f"{path}: no final stats"
    assert stats["produced.kernel"] == EXPECTED_KERNELS  # msPTI's count: the workload's size
    assert kernels + stats["dropped.kernel"] == EXPECTED_KERNELS, (kernels, stats)
    produced = sum(stats.get(f"produced.{k}", 0) for k in API_KINDS)
    dropped = sum(stats.get(f"dropped.{k}", 0) for k in API_KINDS)
    assert apis + dropped == produced, (apis, dropped, produced)
    lost = stats.get("lost_to_write_failures", 0)
    if lost_expected:
        # A lost window may hold no kernel (host records only, when the device's lag behind): the
        # counts above still add up.
        assert lost > 0 and kernels + apis < EXPECTED_KERNELS + produced, (kernels, apis, stats)
    else:
        assert lost == 0 and kernels == EXPECTED_KERNELS, (kernels, stats)
    return lost


def check_messages(result, path, lost):
    """The library names the file once; the launcher gives the count and the exit code."""
    said = [line for line in result.stderr.splitlines() if "cannot write" in line]
    assert len(said) == 1 and path in said[0], said
    m = re.search(re.escape(path) + r": (\d+) records lost to write failures \(counted", result.stderr)
    assert m is not None and int(m.group(1)) == lost, result.stderr[-3000:]


def check_sqlite_full_for_good(result, path):
    """SQLite needs new pages for any commit, the last stats included: the database is whole up
    to its last commit, what it counts adds up, and stderr has the loss."""
    kernels, apis, stats = read_strictly(path)
    assert kernels < EXPECTED_KERNELS
    if stats is not None and "produced.kernel" in stats:
        assert kernels + stats["dropped.kernel"] <= stats["produced.kernel"] <= EXPECTED_KERNELS
    said = [line for line in result.stderr.splitlines() if "cannot write" in line]
    assert len(said) == 1 and path in said[0], said
    assert re.search(re.escape(path) + r": \d+ records lost to write failures", result.stderr), result.stderr[-3000:]


def check_sqlite_never_created(result, path):
    """SQLite cannot even create its tables on a disk full from the start: nothing is in the file,
    and the launcher hears of every record kept (the workload's kernels at least) as lost, not
    counted in the file."""
    said = [line for line in result.stderr.splitlines() if "nothing is written" in line]
    assert len(said) == 1 and path in said[0] and "disk is full" in said[0], said
    m = re.search(re.escape(path) + r": (\d+) records lost to write failures \(NOT in its stats", result.stderr)
    assert m is not None and int(m.group(1)) >= EXPECTED_KERNELS, result.stderr[-3000:]


def test_no_fault_no_loss(tmp_path):
    """The control: the same workload, nothing lost, exit 0, nothing said."""
    r = trace(tmp_path / "out", program=[WORKLOAD, *WORKLOAD_ARGS])
    assert r.returncode == 0, r.stderr[-3000:]
    check_counts(trace_file(tmp_path / "out", "pftrace"), lost_expected=False)
    assert "cannot write" not in r.stderr and "lost to write failures" not in r.stderr


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("fault", ["enospc@FROM+1", "eio@FROM+1", "enospc@FROM", "enospc@0"])
def test_injected_write_failures(tmp_path, fmt, fault):
    """ENOSPC or EIO for the one write that meets byte FROM (transient: one window lost), or ENOSPC from FROM on
    (permanent): the file reads to its end, the losses are counted, writing resumes after a
    transient fault, and the exit code is 3 (the program's own, 0, with --allow-loss).
    enospc@0: the disk is full before the first window fits (on a loaded machine the first
    window can pass FROM too); the space held from the file's creation still takes its header,
    stats and end, so even an empty trace reads whole and counts every record."""
    transient = "+" in fault
    # About a tenth into the file (JSON is larger, gzip much smaller): the window that meets the
    # fault is not the last one.
    fault = fault.replace("FROM", str({"json": 600000, "json.gz": 30000}.get(fmt, 200000)))
    allow = fault.startswith("eio")  # one run of each kind with --allow-loss
    out = tmp_path / "out"
    options = [*FORMATS[fmt], "--flush-ms", "20"] + (["--allow-loss"] if allow else [])
    r = trace(out, *options, program=[WORKLOAD, *WORKLOAD_ARGS], env={**os.environ, "MSPTI_TRACE_WRITE_FAULT": fault})
    assert r.returncode == (0 if allow else LOSS_EXIT), r.stderr[-3000:]
    path = trace_file(out, fmt)
    if fmt == "sqlite" and fault == "enospc@0":
        check_sqlite_never_created(r, path)
        return
    if fmt == "sqlite" and not transient:
        check_sqlite_full_for_good(r, path)
        return
    lost = check_counts(path, lost_expected=True)
    check_messages(r, path, lost)
    kernels, _, stats, d2h = read_all_strictly(path)
    if transient:
        # Writing resumed: the final stats (read above) were written after the failure, and the
        # workload's last record (its device-to-host copy) is in the file, unless it was in the lost
        # window itself, where it is counted. On a loaded machine the writer lags so far that the
        # window meeting the fault can hold every kernel (0 in the file, all counted as dropped).
        assert d2h == 1 or stats.get("dropped.memcpy", 0) > 0, (kernels, d2h, stats)
    with open(out / "meta.json") as f:
        assert json.load(f)["write_failures"][path]["lost"] == lost


def _tmpfs(size):
    """A tmpfs of `size`, unmounted afterwards; skipped where mount is refused."""
    d = tempfile.mkdtemp(prefix="mspti_trace_tmpfs_")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", d], capture_output=True, text=True)
    if r.returncode != 0:
        os.rmdir(d)
        pytest.skip(f"cannot mount a tmpfs here (mount: {r.stderr.strip() or r.returncode}); "
                    "the injected faults above cover the same paths")
    try:
        yield d
    finally:
        subprocess.run(["umount", "-l", d], check=False)
        os.rmdir(d)


@pytest.fixture
def roomy_tmpfs():
    """64 MiB: room for the trace once the filler is gone."""
    yield from _tmpfs("64m")


@pytest.mark.parametrize("fmt", FORMATS)
def test_tmpfs_full_for_good(fmt):
    """A real disk that fills up and stays full (3 MiB; 512 kB for gzip; 1 MiB for SQLite, whose
    file size depends on how often the WAL was checkpointed, so that at load, with fewer and larger
    windows, the whole trace once fitted in 3 MiB): the file holds what fit and reads to its end;
    the launcher says how many records were lost and exits 3."""
    with contextlib.contextmanager(_tmpfs)({"json.gz": "512k", "sqlite": "1m"}.get(fmt, "3m")) as d:
        full_for_good(d, fmt)


def full_for_good(small_tmpfs, fmt):
    out = os.path.join(small_tmpfs, "out")
    r = trace(out, *FORMATS[fmt], "--flush-ms", "20", program=[WORKLOAD, *WORKLOAD_ARGS])
    assert r.returncode == LOSS_EXIT, r.stderr[-3000:]
    path = trace_file(out, fmt)
    if fmt == "sqlite":
        check_sqlite_full_for_good(r, path)
    else:
        lost = check_counts(path, lost_expected=True)
        check_messages(r, path, lost)


@pytest.mark.parametrize("fmt", FORMATS)
def test_tmpfs_full_for_a_while(roomy_tmpfs, fmt):
    """A real disk full while the first half runs, with space again for the second: the second
    half is in the file, the lost windows of the first (whatever records they held) are counted."""
    out = os.path.join(roomy_tmpfs, "out")
    st = os.statvfs(roomy_tmpfs)
    filler = os.path.join(roomy_tmpfs, "filler")
    # Room for the file's start, not for the first half (gzip: ten times smaller).
    room = (48 if fmt == "json.gz" else 512) * 1024
    with open(filler, "wb") as f:
        f.write(b"\0" * max(0, st.f_bavail * st.f_frsize - room))
    iters = 400  # a shorter run: the writer has less to do at exit on a loaded machine
    cmd = [MSPTI_TRACE, "-o", out, *FORMATS[fmt], "--flush-ms", "20", "--",
           WORKLOAD, "--warmup", str(WARMUP), "--iters", str(iters), "--kernels", str(KERNELS), "--phase2"]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watchdog = threading.Timer(300, p.kill)  # a run that never fails would wait for stdin forever
    watchdog.start()
    try:
        # The first failure is said on stderr: then space comes back, and the second half runs.
        err = []
        for line in p.stderr:
            err.append(line)
            if "cannot write" in line:
                break
        assert any("cannot write" in line for line in err), "".join(err)[-3000:]
        os.unlink(filler)
        p.stdin.write("\n")
        p.stdin.close()
        p.stdout.read()
        err.append(p.stderr.read())
        code = p.wait(timeout=240)
    finally:
        watchdog.cancel()
        if p.poll() is None:
            p.kill()
    stderr = "".join(err)
    assert code == LOSS_EXIT, stderr[-3000:]
    path = trace_file(out, fmt)
    kernels, _, stats, _ = read_all_strictly(path)
    # Twice the iterations: the first half was (partly) lost, the second is in the file.
    expected = (WARMUP + 2 * iters) * KERNELS
    assert stats["produced.kernel"] == expected
    assert kernels + stats["dropped.kernel"] == expected, (kernels, stats)
    assert kernels >= iters * KERNELS and stats["lost_to_write_failures"] > 0, (kernels, stats)
    assert len([line for line in stderr.splitlines() if "cannot write" in line]) == 1, stderr[-3000:]
