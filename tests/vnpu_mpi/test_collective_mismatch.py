"""Collectives the ranks get wrong fail loudly on both transports, with 2 and 4 ranks: every rank that
runs one raises vnpu.NpuError at its next synchronisation, with a message naming the HCCL error, the
ranks and their values, and the launcher (vnpu.run on shared memory, mpirun on MPI) exits non-zero.
The expected messages are written out here, apart from the code that makes them.
"""
import os
import subprocess
import sys

import pytest

MPIRUN = [a for a in os.environ.get("VNPU_MPIRUN", "").split(";") if a]
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "collective_mismatch.py")
TIMEOUT_S = 2


def split(n, common, odd):
    """Rank 1 against the others, as the message lists them."""
    return f"{common} on rank 0, {odd} on rank 1" if n == 2 else f"{common} on ranks 0, 2, 3, {odd} on rank 1"


def expected(case, n, transport):
    """(HCCL error, API, the end of the message) for one case."""
    if case == "count":
        return "HCCL_E_PARA", "HcclAllReduce", "the ranks disagree: count differs: " + split(n, "1024", "4096")
    if case == "dtype":
        return "HCCL_E_PARA", "HcclAllReduce", "the ranks disagree: data type differs: " + split(n, "fp32", "fp16")
    if case == "op":
        return "HCCL_E_PARA", "HcclAllReduce", "the ranks disagree: reduction differs: " + split(n, "sum", "max")
    if case == "root":
        return "HCCL_E_PARA", "HcclBroadcast", "the ranks disagree: root differs: " + split(n, "0", "1")
    if transport == "shm":
        return "HCCL_E_TIMEOUT", "HcclAllReduce", f"rank {n - 1} did not reach it within HCCL_EXEC_TIMEOUT ({TIMEOUT_S} s)"
    # MPI cannot tell which peer is missing
    return ("HCCL_E_TIMEOUT", "HcclAllReduce", f"a peer did not reach it within HCCL_EXEC_TIMEOUT ({TIMEOUT_S} s) "
            "(or the communicator broke in an earlier timeout)")


def launch(transport, n, case, folder):
    env = dict(os.environ, HCCL_EXEC_TIMEOUT=str(TIMEOUT_S))
    if transport == "shm":
        cmd = [sys.executable, "-m", "vnpu.run", "--nproc_per_node", str(n), SCRIPT, case, str(folder)]
    else:
        cmd = MPIRUN + ["-x", "PYTHONPATH", "-x", "HCCL_EXEC_TIMEOUT", "-np", str(n), sys.executable, SCRIPT, case,
                        str(folder)]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240)


@pytest.mark.parametrize("case", ["count", "dtype", "op", "root", "absent"])
@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("transport", ["shm", "mpi"])
def test_every_rank_reports_the_disagreement(transport, n, case, tmp_path):
    if transport == "mpi" and not MPIRUN:
        pytest.skip("VNPU_MPIRUN is not set")
    r = launch(transport, n, case, tmp_path)
    log = r.stdout + r.stderr
    assert r.returncode != 0, log
    code, api, tail = expected(case, n, transport)
    ranks = range(n - 1) if case == "absent" else range(n)
    for rank in ranks:
        report = (tmp_path / f"rank{rank}.txt").read_text()
        assert report.startswith("aclrtSynchronizeDevice failed with code 507000: "), (rank, report, log)
        assert f"{code}: {api} on rank {rank} of {n} (communicator " in report, (rank, report)
        assert report.endswith("): " + tail), (rank, report)
    assert not (tmp_path / f"rank{n - 1}.txt").exists() or case != "absent"
