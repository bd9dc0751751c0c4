import os
import subprocess
import sys

import pytest

MSPTI_TRACE = os.environ.get("MSPTI_TRACE_BIN")
WORKLOAD = os.environ.get("TRACE_WORKLOAD")
HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"


def pytest_collection_modifyitems(config, items):
    if not MSPTI_TRACE or not WORKLOAD:
        skip = pytest.mark.skip(reason="run by CTest (needs MSPTI_TRACE_BIN and TRACE_WORKLOAD)")
        for item in items:
            item.add_marker(skip)


def trace(out, *options, program, timeout=240, **kw):
    """Runs `mspti-trace -o out OPTIONS -- PROGRAM` to completion."""
    cmd = [MSPTI_TRACE, "-o", str(out), *options, "--", *program]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


def ranks_program(nproc, *workload_args):
    """vnpu.run starting nproc Python ranks, each exec'ing the native workload."""
    return [PYTHON, "-m", "vnpu.run", "--nproc_per_node", str(nproc), os.path.join(HERE, "exec_rank.py"),
            WORKLOAD, *workload_args]
