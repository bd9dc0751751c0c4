"""mspti-trace on MPI ranks: `mspti-trace -o DIR -- mpirun -np 4 python3 script.py` gives one file per
rank named by Open MPI's rank (OMPI_COMM_WORLD_RANK: mpirun sets no RANK), with as many HCCL records
on every rank, and `mspti-trace merge` puts them in one trace without shifting (one host, one clock);
split into two "hosts" with one clock 7 s ahead, merge brings it back on the MPI collectives."""
import glob
import json
import os
import re
import subprocess

import pytest

from mspti_trace import pftrace_reader as reader
from mspti_trace import readers

MSPTI_TRACE = os.environ.get("MSPTI_TRACE_BIN")
MPIRUN = os.environ.get("VNPU_MPIRUN", "").split(";")
HERE = os.path.dirname(os.path.abspath(__file__))
NPROC = 4
ALL_REDUCES = 2  # mpirun_train.py: one fp32 and one fp16 all-reduce

pytestmark = pytest.mark.skipif(not MSPTI_TRACE or not MPIRUN[0], reason="run by CTest")


def _run(out, *options):
    cmd = [MSPTI_TRACE, "-o", str(out), *options, "--", *MPIRUN, "-np", str(NPROC), "/usr/bin/python3",
           os.path.join(HERE, "mpirun_train.py")]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stdout + r.stderr
    return out


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    return _run(tmp_path_factory.mktemp("mpi") / "trace")


def _hccl_slices(path):
    t = reader.load_pftrace(path, strict=True)
    slices, errors = reader.slices(t)
    assert errors == []
    return [s for s in slices if s["categories"] == ["hccl"]], t


def test_one_file_per_mpi_rank_with_matching_hccl_records(traced):
    files = sorted(glob.glob(os.path.join(str(traced), "trace.*.pftrace")))
    ranks = sorted(int(re.search(r"trace\.rank(\d+)\.pid\d+\.pftrace$", f).group(1)) for f in files)
    assert ranks == list(range(NPROC)), files
    counts = []
    comms = set()
    for f in files:
        hccl, _ = _hccl_slices(f)
        counts.append(len(hccl))
        comms |= {s["args"]["comm"] for s in hccl}
        assert all(s["args"]["bandwidth_gbps"] > 0 for s in hccl)
    assert counts == [ALL_REDUCES] * NPROC
    assert len(comms) == 1  # every rank's records name the same communicator


def test_merge_of_the_mpi_ranks_keeps_the_clock(traced, tmp_path):
    merged = tmp_path / "all.pftrace"
    r = subprocess.run([MSPTI_TRACE, "merge", str(traced), "-o", str(merged)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert "shifted by" not in r.stdout + r.stderr  # one host: one clock, nothing moves
    hccl, t = _hccl_slices(str(merged))
    assert len(t.process_tracks()) == NPROC
    assert len(hccl) == NPROC * ALL_REDUCES
    singles = [reader.load_pftrace(f, strict=True) for f in glob.glob(os.path.join(str(traced), "trace.*.pftrace"))]
    assert sorted(e["ts"] for e in t.events) == sorted(e["ts"] for s in singles for e in s.events)


def test_merge_across_two_hosts_realigns_the_mpi_ranks(tmp_path):
    out = _run(tmp_path / "json", "--format", "json")
    skew = 7_000_000_000
    for name, ranks in (("a", (0, 1)), ("b", (2, 3))):
        d = tmp_path / name
        d.mkdir()
        (d / "meta.json").write_text(json.dumps({"host": name}))
        for rank in ranks:
            (path,) = glob.glob(os.path.join(str(out), f"trace.rank{rank}.pid*.json"))
            with open(path) as f:
                doc = json.load(f)
            if name == "b":
                doc["otherData"]["start_ns"] += skew
            (d / os.path.basename(path)).write_text(json.dumps(doc))
    r = subprocess.run([MSPTI_TRACE, "merge", str(tmp_path / "a"), str(tmp_path / "b"), "-o", str(tmp_path / "m.json")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    shift = int(r.stderr.split("host b: shifted by ")[1].split()[0])
    # Back to within the ranks' own spread (measured, not bounded: a loaded machine widens it) of
    # the end of the first collective, which merge aligns on.
    ends = {}
    for path in glob.glob(os.path.join(str(out), "trace.rank*.pid*.json")):
        for comm, end in readers.read(path).first_collective_end().items():
            ends.setdefault(comm, []).append(end)
    spread = max(max(v) - min(v) for v in ends.values())
    assert abs(shift + skew) <= spread, (shift, spread)
    with open(tmp_path / "m.json") as f:
        doc = json.load(f)
    assert len({e["pid"] for e in doc["traceEvents"] if e.get("cat") == "hccl"}) == NPROC
