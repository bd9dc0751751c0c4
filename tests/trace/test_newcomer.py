"""The newcomer path of mspti-trace: the README's trace commands run exactly as written, and the
launcher's refusals (a non-empty -o, a missing program or parent, a typo for a subcommand) are one
line, exit 2 or 127, and leave nothing behind."""
import os
import re
import subprocess

import pytest

import readme_commands
from conftest import MSPTI_TRACE, ranks_program, trace

SOURCE = os.environ.get("TRACE_SOURCE_DIR", "")
BUILD = os.environ.get("TRACE_BUILD_DIR", "")


def readme_trace_commands():
    return readme_commands.commands(os.path.join(SOURCE, "README.md"))


def test_readme_commands_run_as_written(tmp_path):
    """From a folder laid out as the repository (build/ and samples/ are the real ones), with no
    PYTHONPATH: the launcher hands the program its own Python packages."""
    lines = readme_trace_commands()
    assert any(" -- " in line for line in lines) and any("analyze" in line for line in lines), lines
    os.symlink(BUILD, tmp_path / "build")
    os.symlink(os.path.join(SOURCE, "samples"), tmp_path / "samples")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_PRELOAD")}
    env["PATH"] = "/usr/bin:" + env.get("PATH", "")  # python3 as in CI: Debian's, with numpy
    for line in lines:
        r = subprocess.run(["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, f"{line}\n{r.stdout}\n{r.stderr}"
        assert "Traceback" not in r.stderr, f"{line}\n{r.stderr}"
    assert (tmp_path / "report.html").exists() and (tmp_path / "all.pftrace").exists()


def refused(args, cwd=None):
    r = subprocess.run([MSPTI_TRACE, *map(str, args)], capture_output=True, text=True, timeout=120, cwd=cwd)
    assert "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    return r


def test_non_empty_output_is_refused_unless_forced(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    r = refused(["-o", out, "--", "true"])
    assert r.returncode == 2 and "not empty" in r.stderr and "--force" in r.stderr
    assert sorted(os.listdir(out)) == ["keep.txt"]
    r = subprocess.run([MSPTI_TRACE, "-o", str(out), "--force", "--", "true"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert "meta.json" in os.listdir(out)


def test_nothing_is_created_for_a_run_that_never_starts(tmp_path):
    r = refused(["sumary", "x"], cwd=tmp_path)  # a typo for a subcommand
    assert r.returncode == 127 and "summary" in r.stderr
    r = refused(["--", "/no/such/program"], cwd=tmp_path)
    assert r.returncode == 127
    r = refused(["-o", tmp_path / "out", "--", "no-such-program-anywhere"], cwd=tmp_path)
    assert r.returncode == 127
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("where", ["missing", "file", "readonly"])
def test_bad_output_is_one_line_and_exit_2(tmp_path, where):
    if where == "missing":
        out = tmp_path / "no" / "out"
    elif where == "file":
        out = tmp_path / "f"
        out.write_text("x")
    else:
        out = "/proc/mspti-trace-out"  # a read-only parent, even for root
    r = refused(["-o", out, "--", "true"])
    assert r.returncode == 2 and str(out) in r.stderr


def test_version():
    r = subprocess.run([MSPTI_TRACE, "--version"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and re.fullmatch(r"mspti-trace \d+\.\d+\.\d+\n", r.stdout), r.stdout


def test_sqlite_leaves_no_wal_or_shm(tmp_path):
    out = tmp_path / "db"
    r = trace(out, "--format", "sqlite", program=ranks_program(2, "--iters", "2"))
    assert r.returncode == 0, r.stderr
    names = os.listdir(out)
    assert sum(n.endswith(".sqlite") for n in names) == 2, names
    assert not [n for n in names if n.endswith(("-wal", "-shm"))], names
