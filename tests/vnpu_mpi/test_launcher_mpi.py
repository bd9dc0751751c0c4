"""vnpu.run across "nodes" on this host (127.0.0.1), with mpirun underneath: every node runs its own
launcher and they meet at master_addr:master_port, and a rank that dies mid-collective makes the others
fail with HCCL_E_TIMEOUT within the bound (the launcher passes mpirun --enable-recovery)."""
import os
import re
import socket
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
EXEC_TIMEOUT_S = 2


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _launcher(node_rank, port, script, *args, hosts=None):
    cmd = [sys.executable, "-m", "vnpu.run", "--nnodes", "2", "--node_rank", str(node_rank), "--nproc_per_node",
           "2", "--master_addr", "127.0.0.1", "--master_port", str(port)]
    cmd += ["--hosts", hosts] if hosts else ["--rdzv_timeout", "120"]
    env = dict(os.environ, HCCL_EXEC_TIMEOUT=str(EXEC_TIMEOUT_S))
    return subprocess.Popen(cmd + [os.path.join(HERE, script), *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


# The ranks' lines come from separate processes through one pipe and may interleave: no ^/$ anchors.
def _finish(proc):
    out, _ = proc.communicate(timeout=200)
    print(out)
    return proc.returncode, out


def test_two_launchers_meet_and_run_four_ranks():
    port = _free_port()
    node1 = _launcher(1, port, "mpirun_train.py")  # before node 0: it waits for node 0 to listen
    node0 = _launcher(0, port, "mpirun_train.py")
    code0, out0 = _finish(node0)
    code1, out1 = _finish(node1)
    assert (code0, code1) == (0, 0)
    assert "vnpu.run: 2 nodes joined" in out0
    assert sorted(re.findall(r"rank (\d)/4 on device \d: all_reduce ok", out0)) == ["0", "1", "2", "3"]


def _check_dead_rank(out):
    waits = re.findall(r"rank ([0-2]): all-reduce with a dead rank: HCCL error 9 after ([0-9]+\.[0-9]{2}) s", out)
    assert sorted(r for r, _ in waits) == ["0", "1", "2"], out
    assert all(EXEC_TIMEOUT_S - 0.1 <= float(s) for _, s in waits)  # not before the timeout
    assert re.findall(r"vnpu\.run: rank (\d) exited with code (\d+)", out) == [("3", "3")]


def test_dead_rank_fails_the_others_with_hccl_timeout_through_the_launcher():
    code, out = _finish(_launcher(0, _free_port(), "dead_rank_train.py", str(EXEC_TIMEOUT_S), hosts="localhost,localhost"))
    assert code == 3  # the dead rank's exit code, although mpirun --enable-recovery exits with 0
    _check_dead_rank(out)


def test_dead_rank_exit_code_reaches_every_node():
    port = _free_port()
    node0 = _launcher(0, port, "dead_rank_train.py", str(EXEC_TIMEOUT_S))
    node1 = _launcher(1, port, "dead_rank_train.py", str(EXEC_TIMEOUT_S))
    code0, out0 = _finish(node0)
    code1, _ = _finish(node1)
    assert (code0, code1) == (3, 3)
    _check_dead_rank(out0)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
