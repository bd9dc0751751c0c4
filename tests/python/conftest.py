"""Shared helpers of the Python tests: subprocess runners (plain, LD_PRELOAD, launcher) and
capture of exceptions reported through sys.unraisablehook."""

import os
import subprocess
import sys
import threading

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
GUIDE = os.path.join(HERE, "guide")


def _lib_dir():
    import mspti._loader as loader  # the build tree's library directory
    return os.environ.get("MSPTI_LIB_DIR") or loader._BUILD_LIB_DIR


LIB_DIR = _lib_dir()
LIBMSPTI = os.path.join(LIB_DIR, "libmspti.so")


def run_python(args, preload=False, nproc=None, timeout=120, env=None, check=True):
    """Runs ``python3 [args]`` (under ``vnpu.run`` with ``nproc`` ranks); returns CompletedProcess."""
    e = dict(os.environ)
    e.pop("LD_PRELOAD", None)
    if preload:
        e["LD_PRELOAD"] = LIBMSPTI
    e.update(env or {})
    cmd = [sys.executable]
    if nproc:
        cmd += ["-m", "vnpu.run", "--nproc_per_node", str(nproc)]
    cmd += list(args)
    proc = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"{cmd} exited with {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


def run_code(code, **kwargs):
    """Runs a snippet of Python in a fresh interpreter."""
    return run_python(["-c", code], **kwargs)


@pytest.fixture
def unraisable():
    """Collects what goes to sys.unraisablehook during the test (thread-safe)."""
    seen = []
    lock = threading.Lock()
    old = sys.unraisablehook

    def hook(info):
        with lock:
            seen.append((info.exc_type, str(info.exc_value), info.exc_traceback, info.object))

    sys.unraisablehook = hook
    yield seen
    sys.unraisablehook = old


def pytest_collection_finish(session):
    """No collected test is a failure, not pytest's silent-looking exit code 5."""
    if not session.items:
        raise pytest.UsageError("no tests were collected")
