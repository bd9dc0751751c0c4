"""The readers on damaged trace files: truncations and bit flips over every format (seeded:
READER_FUZZ_SEED, READER_FUZZ_CASES per format), plus the inputs that gave tracebacks before
(a NULL SQLite row, JSON nested deeper than Python's recursion limit, a meta.json that is not an
object, a damaged gzip block). summary, analyze, report and merge are called in-process, so any
exception fails the test with its traceback; a truncated file never yields more records than the
whole one; the command line gives one line and exit code 2 at worst."""
import contextlib
import io
import os
import random
import shutil
import sqlite3
import subprocess

import pytest

from conftest import MSPTI_TRACE, ranks_program, trace
from mspti_trace import analyze, merge, readers, report, summary

SEED = int(os.environ.get("READER_FUZZ_SEED", "25"))
CASES = int(os.environ.get("READER_FUZZ_CASES", "12"))
FORMATS = {"pftrace": ("--format", "pftrace"), "json": ("--format", "json"),
           "json.gz": ("--format", "json", "--gzip"), "sqlite": ("--format", "sqlite")}


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    """A small 2-rank run per format: {fmt: (dir, rank 0's file, its slice count)}."""
    base = tmp_path_factory.mktemp("fuzz_src")
    out = {}
    for fmt, options in FORMATS.items():
        d = base / fmt.replace(".", "_")
        r = trace(d, *options, program=ranks_program(2, "--iters", "2"))
        assert r.returncode == 0, r.stderr
        (path,) = [os.path.join(d, n) for n in os.listdir(d) if n.startswith("trace.rank0.")]
        out[fmt] = (d, path, len(readers.read(path).slices))
    return out


def damaged_dir(tmp, src_dir, victim, data):
    """A copy of src_dir with the victim file's content replaced by data."""
    d = tmp / f"case{len(os.listdir(tmp))}"
    shutil.copytree(src_dir, d, ignore=shutil.ignore_patterns("summary.*", "report.html"))
    with open(d / os.path.basename(victim), "wb") as f:
        f.write(data)
    return d


def run_all(d, every=True):
    """The reading commands (summary and analyze; with every, report and merge too), in-process:
    an exception here is a reader bug."""
    quiet = io.StringIO()
    with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
        codes = [summary.main([str(d)]), analyze.main([str(d), "--format", "json"])]
        if every:
            codes.append(report.main([str(d), "-o", str(d / "report.html")]))
            fmt = "pftrace" if any(n.endswith(".pftrace") for n in os.listdir(d)) else "json"
            codes.append(merge.main([str(d), "-o", str(d / f"merged.{fmt}")]))
    assert set(codes) <= {0, 1, 2}, (codes, quiet.getvalue()[-2000:])
    return quiet.getvalue()


def mutate(rng, data):
    """(what, bytes): a truncation, 1-8 bit flips, or both."""
    kind = rng.choice(("truncate", "flip", "both"))
    out = bytearray(data)
    what = []
    if kind in ("flip", "both"):
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(len(out))
            out[i] ^= 1 << rng.randrange(8)
            what.append(f"flip@{i}")
    if kind in ("truncate", "both"):
        cut = rng.randrange(len(out))
        del out[cut:]
        what.append(f"cut@{cut}")
    return " ".join(what), bytes(out)


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_damaged_files_never_raise(sources, tmp_path, fmt):
    src_dir, victim, whole = sources[fmt]
    data = open(victim, "rb").read()
    rng = random.Random(f"{SEED}-{fmt}")
    for n in range(CASES):
        what, bad = mutate(rng, data)
        d = damaged_dir(tmp_path, src_dir, victim, bad)
        try:
            got = readers.read(str(d / os.path.basename(victim)))
            if "flip" not in what:
                assert len(got.slices) <= whole, (what, len(got.slices), whole)
            run_all(d, every=n % 4 == 0)
        except BaseException:
            # The source traces differ from run to run: keep the failing input to replay it.
            keep = os.path.join(os.environ.get("TRACE_ARTIFACTS") or str(tmp_path), f"fuzz-failure-{fmt}")
            shutil.copytree(d, keep, dirs_exist_ok=True)
            print(f"seed {SEED} format {fmt}: {what}; input kept in {keep}")
            raise
        shutil.rmtree(d)


def test_damaged_pftrace_warns_with_the_offset(sources, tmp_path):
    """The key of the middle packet overwritten: the read stops there, and says where."""
    src_dir, victim, whole = sources["pftrace"]
    data = bytearray(open(victim, "rb").read())
    starts, pos = [], 0
    while pos < len(data):  # packet boundaries: key 0x0A, then the length (a varint)
        starts.append(pos)
        n, shift, pos = 0, 0, pos + 1
        while True:
            b = data[pos]
            pos += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        pos += n
    middle = starts[len(starts) // 2]
    data[middle] = 0x12  # field 2, length-delimited: not a Trace.packet
    proc = readers.read(str(damaged_dir(tmp_path, src_dir, victim, bytes(data)) / os.path.basename(victim)))
    assert len(proc.slices) < whole
    assert any(f"damaged at offset {middle} " in w for w in proc.warnings), proc.warnings


def test_inputs_that_gave_tracebacks(sources, tmp_path):
    src_dir, victim, _ = sources["json"]
    deep = damaged_dir(tmp_path, src_dir, victim, b'{"traceEvents": [' + b"[" * 200000)
    run_all(deep)
    meta = damaged_dir(tmp_path, src_dir, victim, open(victim, "rb").read())
    (meta / "meta.json").write_text("[1, 2]")
    run_all(meta)
    names = damaged_dir(tmp_path, src_dir, victim,
                        open(victim, "rb").read().replace(b'"name":"', b'"name":"\xff\xfe', 5))
    run_all(names)
    src_dir, victim, whole = sources["sqlite"]
    nulls = damaged_dir(tmp_path, src_dir, victim, open(victim, "rb").read())
    db = sqlite3.connect(nulls / os.path.basename(victim))
    db.execute("UPDATE kernel SET start = NULL WHERE rowid = 1")
    db.execute("UPDATE kernel SET name_id = NULL WHERE rowid = 2")
    db.execute("UPDATE api SET end = NULL WHERE rowid = 1")
    db.commit()
    db.close()
    proc = readers.read(str(nulls / os.path.basename(victim)))
    assert len(proc.slices) == whole - 2 and any("without valid times" in w for w in proc.warnings)
    run_all(nulls)
    src_dir, victim, whole = sources["json.gz"]
    data = bytearray(open(victim, "rb").read())
    data[len(data) // 2] ^= 0x55  # inside a deflate block
    gz = damaged_dir(tmp_path, src_dir, victim, bytes(data))
    assert len(readers.read(str(gz / os.path.basename(victim))).slices) <= whole
    run_all(gz)


def test_command_line_is_one_line_at_worst(tmp_path):
    d = tmp_path / "garbage"
    d.mkdir()
    (d / "trace.rank0.pid1.pftrace").write_bytes(bytes(range(256)) * 4)
    r = subprocess.run([MSPTI_TRACE, "summary", str(d)], capture_output=True, text=True, timeout=120)
    assert "Traceback" not in r.stderr and r.returncode in (0, 2), r.stderr
    assert "offset" in r.stderr
    r = subprocess.run([MSPTI_TRACE, "analyze", str(tmp_path / "none")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
