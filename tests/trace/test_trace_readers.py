"""The native pftrace decoder (libmspti_trace_reader.so, src/trace_reader) against the Python
reader (reader_pftrace, written apart from it), field by field: on the pftrace files of a traced
2-rank run, on truncated copies and on bit-flipped ones (seeded: READER_FUZZ_SEED). summary and
analyze give the same output on either reader. The Python wire module's field numbers are
src/trace/proto.h's."""
import os
import random
import re
import subprocess

import pytest

from conftest import MSPTI_TRACE, HERE, ranks_program, trace
from mspti_trace import reader_native, wire
from mspti_trace.columns import Columns
from mspti_trace.model import Process, parse_name
from mspti_trace.reader_common import sanitize
from mspti_trace.reader_pftrace import read_pftrace as python_read

SEED = int(os.environ.get("READER_FUZZ_SEED", "25"))
PROTO_H = os.path.join(HERE, "..", "..", "src", "trace", "proto.h")


def record(proc):
    """Everything a reader fills, comparable; the reason in a damage warning is left out (the two
    readers word it apart), its offset kept."""
    return {"slices": [(s.name, s.cat, s.start, s.end, s.row, s.bytes, s.bandwidth, s.comm) for s in proc.slices],
            "rank": proc.rank, "marks": proc.marks, "unended": proc.unended_ranges, "stats": proc.stats,
            "filtered": proc.filtered, "dropped_total": proc.dropped_total,
            "stats_unavailable": proc.stats_unavailable, "write_lost": getattr(proc, "write_lost", 0),
            "warnings": [re.sub(r" \(.*\); read up", " (...); read up", w) for w in proc.warnings]}


def both(path):
    """(native, Python) records of one file."""
    rank, pid, fmt = parse_name(path)
    native = Process(path, fmt, pid, rank)
    reader_native.read_pftrace(path, native)
    ref = Process(path, fmt, pid, rank)
    python_read(path, ref)
    sanitize(ref)  # names never interned read as None there, "?" once read
    return record(native), record(ref)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("readers") / "run"
    r = trace(d, "--format", "pftrace", program=ranks_program(2, "--iters", "3", "--mix"))
    assert r.returncode == 0, r.stderr
    return d


def pftraces(d):
    return sorted(os.path.join(d, n) for n in os.listdir(d) if n.endswith(".pftrace"))


def test_the_library_is_found_from_the_build_tree():
    # PYTHONPATH is the build tree's python/: mspti/_paths.py there names the library folder.
    assert reader_native.available(), list(reader_native.native_lib.candidates())


def test_native_reads_what_python_reads(run_dir):
    files = pftraces(run_dir)
    assert len(files) == 2
    for path in files:
        native, ref = both(path)
        cats = {s[1] for s in ref["slices"]}
        assert {"kernel", "hccl", "marker"} <= cats, cats  # every kind the analysis uses is compared
        assert ref["stats"] and ref["rank"] is not None
        assert native == ref


def test_damaged_files_read_alike(run_dir, tmp_path):
    rng = random.Random(SEED)
    path = pftraces(run_dir)[0]
    data = open(path, "rb").read()
    for n in range(40):
        out = bytearray(data)
        if n % 2:
            for _ in range(rng.randint(1, 4)):
                i = rng.randrange(len(out))
                out[i] ^= 1 << rng.randrange(8)
        else:
            del out[rng.randrange(len(out)):]
        victim = tmp_path / os.path.basename(path)
        victim.write_bytes(bytes(out))
        native, ref = both(str(victim))
        assert native == ref, f"case {n} (seed {SEED})"


def test_garbage_and_empty_files(tmp_path):
    for data in (b"", bytes(range(256)) * 4, b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"):
        victim = tmp_path / "trace.rank0.pid1.pftrace"
        victim.write_bytes(data)
        native, ref = both(str(victim))
        assert native == ref


def test_columns_keep_every_field(run_dir):
    path = pftraces(run_dir)[0]
    rank, pid, fmt = parse_name(path)
    ref = Process(path, fmt, pid, rank)
    python_read(path, ref)
    sanitize(ref)
    slices = [(s.name, s.cat, s.start, s.end, s.row, s.bytes, s.bandwidth, s.comm) for s in ref.slices]
    back = Columns.from_slices(ref.slices).to_slices()
    assert [(s.name, s.cat, s.start, s.end, s.row, s.bytes, s.bandwidth, s.comm) for s in back] == slices


def test_summary_and_analyze_agree_on_either_reader(run_dir):
    out = {}
    for reader in ("native", "python"):
        env = dict(os.environ, MSPTI_TRACE_READER=reader)
        r = subprocess.run([MSPTI_TRACE, "summary", str(run_dir)], capture_output=True, text=True, env=env,
                           timeout=300)
        assert r.returncode == 0, r.stderr
        csv = open(os.path.join(run_dir, "summary.csv"), encoding="utf-8").read()
        a = subprocess.run([MSPTI_TRACE, "analyze", str(run_dir), "--format", "json"], capture_output=True,
                           text=True, env=env, timeout=300)
        assert a.returncode == 0, a.stderr
        out[reader] = (csv, a.stdout)
    assert out["native"] == out["python"]
    assert "kernel" in out["native"][0]


def test_wire_field_numbers_are_proto_h_ones():
    text = open(PROTO_H, encoding="utf-8").read()
    found = re.findall(r"\bk([A-Z]\w*) = (\d+)", text)
    assert len(found) > 30
    for name, value in found:
        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper()
        assert getattr(wire, snake) == int(value), (name, snake)
