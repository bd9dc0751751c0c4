"""vnpu.run across hosts: the mpirun command it builds, its argument checks, the nodes' rendezvous
(in threads of this process) and a missing mpirun."""
import os
import socket
import subprocess
import sys
import threading

import pytest

from vnpu import _rendezvous, run


def test_mpirun_command_places_nproc_ranks_on_each_host(monkeypatch):
    monkeypatch.setenv("VNPU_MPIRUN_ARGS", "--mca btl_tcp_if_include eth0")
    monkeypatch.setenv("PYTHONPATH", "/opt/x")
    monkeypatch.setenv("HCCL_EXEC_TIMEOUT", "30")
    monkeypatch.setenv("MSPTI_TRACE_DIR", "/tmp/t")
    cmd = run.mpirun_command(2, 8, ["hostA", "hostB"], ["python3", "train.py", "--lr", "1"], "hostA", 29501)
    assert cmd[0] == "mpirun"
    assert ("--allow-run-as-root" in cmd) == (os.geteuid() == 0)
    assert "--enable-recovery" in cmd  # a dead rank must not end the job: the others get an HCCL error
    assert cmd[cmd.index("-np") + 1] == "16"
    assert cmd[cmd.index("--host") + 1] == "hostA:8,hostB:8"
    assert cmd[cmd.index("--mca") + 1:cmd.index("--mca") + 3] == ["btl_tcp_if_include", "eth0"]
    exported = [cmd[i + 1] for i, a in enumerate(cmd) if a == "-x"]
    for kv in ("MASTER_ADDR=hostA", "MASTER_PORT=29501", "VNPU_HCCL_TRANSPORT=mpi", "PYTHONPATH=/opt/x",
               "HCCL_EXEC_TIMEOUT=30", "MSPTI_TRACE_DIR=/tmp/t"):
        assert kv in exported
    assert cmd[-4:] == ["python3", "train.py", "--lr", "1"]


@pytest.mark.parametrize("argv, message", [
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
    assert run.main(["--nnodes", "2", "x.py"]) == 127  # before the rendezvous
    assert "needs Open MPI's mpirun" in capsys.readouterr().err


def test_job_exit_code_is_the_first_failing_ranks(capsys):
    # mpirun --enable-recovery exits with 0 whatever its ranks did: the ranks' lines decide.
    say = "import sys; sys.stderr.write('other output\\nxyz vnpu.run: rank 2 exited with code 5\\n" \
          "vnpu.run: rank 0 exited with code 7\\n')"
    assert run.run_mpirun([sys.executable, "-c", say]) == 5
    assert "rank 0 exited with code 7" in capsys.readouterr().err  # passed on unchanged
    assert run.run_mpirun([sys.executable, "-c", "pass"]) == 0
    assert run.run_mpirun([sys.executable, "-c", "raise SystemExit(4)"]) == 4  # mpirun's own failure


def test_each_rank_runs_through_the_exit_reporter():
    cmd = run.rank_command([sys.executable, "-c", "raise SystemExit(6)"])
    r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, OMPI_COMM_WORLD_RANK="3"))
    assert r.returncode == 6 and r.stderr == "vnpu.run: rank 3 exited with code 6\n"
    r = subprocess.run(run.rank_command([sys.executable, "-c", "pass"]), capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == ""


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_rendezvous_gathers_hosts_by_node_rank_and_returns_the_exit_code():
    port = _free_port()
    rdzv = _rendezvous.Rendezvous("127.0.0.1", port, 3, 4, 30)
    codes = {}

    def node(k):
        codes[k] = _rendezvous.join("127.0.0.1", port, k, 3, 4, f"host{k}", 30)

    threads = [threading.Thread(target=node, args=(k,)) for k in (2, 1)]
    for t in threads:
        t.start()
    assert rdzv.gather("host0") == ["host0", "host1", "host2"]
    rdzv.finish(7)
    for t in threads:
        t.join()
    assert codes == {1: 7, 2: 7}


def test_rendezvous_refuses_a_node_with_other_arguments_and_keeps_waiting():
    port = _free_port()
    rdzv = _rendezvous.Rendezvous("127.0.0.1", port, 2, 4, 30)
    errors, codes = [], []

    def bad_then_good():
        for nproc, rank in ((8, 1), (4, 5), (4, 1)):
            try:
                codes.append(_rendezvous.join("127.0.0.1", port, rank, 2, nproc, "hostB", 30))
            except RuntimeError as exc:
                errors.append(str(exc))

    t = threading.Thread(target=bad_then_good)
    t.start()
    assert rdzv.gather("hostA") == ["hostA", "hostB"]
    rdzv.finish(0)
    t.join()
    assert codes == [0]
    assert "--nproc_per_node 4, this node --nnodes 2 --nproc_per_node 8" in errors[0]
    assert "--node_rank 5 is out of range" in errors[1]


def test_rendezvous_times_out_when_a_node_never_comes():
    rdzv = _rendezvous.Rendezvous("127.0.0.1", _free_port(), 2, 1, 0.5)
    with pytest.raises(TimeoutError, match=r"nodes \[1\] did not join within 0.5 s"):
        rdzv.gather("hostA")
    rdzv.finish(1)


def test_node_without_node_0_gives_up_after_its_timeout(capsys):
    port = _free_port()  # nobody listens there
    assert run.main(["--nnodes", "2", "--node_rank", "1", "--master_port", str(port), "--rdzv_timeout", "1",
                     "x.py"]) == 1
    assert "not reachable within 1 s" in capsys.readouterr().err
