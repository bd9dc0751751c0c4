"""vnpu.run across hosts: the mpirun command it builds, its argument checks, and a missing mpirun."""
import os

import pytest

from vnpu import run


def test_mpirun_command_places_nproc_ranks_on_each_host(monkeypatch):
    monkeypatch.setenv("VNPU_MPIRUN_ARGS", "--mca btl_tcp_if_include eth0")
    monkeypatch.setenv("PYTHONPATH", "/opt/x")
    cmd = run.mpirun_command(2, 8, ["hostA", "hostB"], ["python3", "train.py", "--lr", "1"], "hostA", 29501)
    assert cmd[0] == "mpirun"
    assert ("--allow-run-as-root" in cmd) == (os.geteuid() == 0)
    assert cmd[cmd.index("-np") + 1] == "16"
    assert cmd[cmd.index("--host") + 1] == "hostA:8,hostB:8"
    assert cmd[cmd.index("--mca") + 1:cmd.index("--mca") + 3] == ["btl_tcp_if_include", "eth0"]
    exported = [cmd[i + 1] for i, a in enumerate(cmd) if a == "-x"]
    for kv in ("MASTER_ADDR=hostA", "MASTER_PORT=29501", "VNPU_HCCL_TRANSPORT=mpi", "PYTHONPATH=/opt/x"):
        assert kv in exported
    assert cmd[-4:] == ["python3", "train.py", "--lr", "1"]


@pytest.mark.parametrize("argv, message", [
    (["--nnodes", "2", "x.py"], "needs --hosts with 2 hosts"),
    (["--nnodes", "2", "--hosts", "a,b,c", "x.py"], "got 3"),
    (["--nnodes", "2", "--node_rank", "2", "--hosts", "a,b", "x.py"], "--node_rank"),
    (["--nnodes", "0", "x.py"], "--nnodes"),
])
def test_bad_arguments_are_rejected(argv, message, capsys):
    with pytest.raises(SystemExit):
        run.main(argv)
    assert message in capsys.readouterr().err


def test_other_nodes_start_nothing(capsys):
    assert run.main(["--nnodes", "2", "--node_rank", "1", "--hosts", "a,b", "x.py"]) == 0
    assert "node 0 (a) starts every rank" in capsys.readouterr().err


def test_missing_mpirun_is_reported(monkeypatch, capsys):
    monkeypatch.setenv("PATH", "/nonexistent")
    assert run.main(["--nnodes", "2", "--hosts", "a,b", "x.py"]) == 127
    assert "needs Open MPI's mpirun" in capsys.readouterr().err
