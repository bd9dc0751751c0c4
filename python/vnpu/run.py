"""A torchrun-like launcher for the virtual NPU.

    python3 -m vnpu.run --nproc_per_node 8 script.py [script args...]
    python3 -m vnpu.run --nproc_per_node 8 -m package.module [args...]

Starts one process per rank with RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR,
MASTER_PORT and the HCCL root info (VNPU_HCCL_ROOT_INFO) in its environment, waits for all of
them, and if one fails, terminates the others and exits with the failing rank's code.

Several hosts (``--nnodes`` above 1) go through Open MPI, like torchrun: every node runs
``python3 -m vnpu.run --nnodes N --node_rank K --master_addr A --master_port P script.py``. Node 0
listens on A:P, the others connect and give their host name (``--local_addr``, default the host
name); node 0 then starts every rank with mpirun on those hosts (``--nproc_per_node`` each, node 0's
first) and the HCCL communicators run on MPI; every node's launcher exits with the job's exit code.
With ``--hosts`` node 0 skips the rendezvous and the other nodes have nothing to start. Extra mpirun
options come from VNPU_MPIRUN_ARGS (e.g. ``--mca btl_tcp_if_include eth0``). mpirun runs with
``--enable-recovery``: a rank that dies does not end the job, so the others' collectives fail with
HCCL_E_TIMEOUT after HCCL_EXEC_TIMEOUT seconds instead.
"""

import argparse
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys

from . import _rendezvous


def _parse(argv):
    parser = argparse.ArgumentParser(prog="python3 -m vnpu.run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--nproc_per_node", "--nproc-per-node", type=int, default=1,
                        help="number of ranks to start (default 1)")
    parser.add_argument("--nnodes", type=int, default=1, help="number of hosts (above 1: through mpirun)")
    parser.add_argument("--node_rank", "--node-rank", type=int, default=0, help="this host's index (0: launches)")
    parser.add_argument("--master_addr", "--master-addr", default="127.0.0.1", help="address of node 0")
    parser.add_argument("--master_port", "--master-port", type=int, default=29500, help="port on node 0")
    parser.add_argument("--hosts", default=None,
                        help="with --nnodes above 1: the hosts, comma-separated, node 0 first (mpirun --host); "
                             "without it the nodes meet at master_addr:master_port")
    parser.add_argument("--local_addr", "--local-addr", default=None,
                        help="this node's name for mpirun (default: the host name)")
    parser.add_argument("--rdzv_timeout", "--rdzv-timeout", type=float, default=600.0,
                        help="seconds the nodes wait for each other (default 600)")
    parser.add_argument("-m", dest="module", action="store_true", help="run the target as a module")
    parser.add_argument("target", help="script (or module with -m)")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the target")
    ns = parser.parse_args(argv)
    if ns.nnodes < 1:
        parser.error("--nnodes must be at least 1")
    if not 0 <= ns.node_rank < ns.nnodes:
        parser.error("--node_rank must be in [0, nnodes)")
    if not 1 <= ns.nproc_per_node:
        parser.error("--nproc_per_node must be at least 1")
    if ns.nnodes > 1 and ns.hosts is not None:
        hosts = [h for h in ns.hosts.split(",") if h]
        if len(hosts) != ns.nnodes:
            parser.error(f"--nnodes {ns.nnodes} needs --hosts with {ns.nnodes} hosts (node 0 first), "
                         f"got {len(hosts)}")
        ns.hosts = hosts
    return ns


def mpirun_command(nnodes, nproc, hosts, command, master_addr, master_port, mpirun="mpirun"):
    """The mpirun command line that starts nnodes * nproc ranks, nproc on each host."""
    cmd = [mpirun]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")  # Open MPI refuses root otherwise
    # Without it mpirun ends the whole job when a rank dies; with it the others go on and their
    # collectives fail with an HCCL error after HCCL_EXEC_TIMEOUT.
    cmd.append("--enable-recovery")
    cmd += ["-np", str(nnodes * nproc), "--host", ",".join(f"{h}:{nproc}" for h in hosts), "--map-by", "slot"]
    cmd += shlex.split(os.environ.get("VNPU_MPIRUN_ARGS", ""))
    env = {"MASTER_ADDR": master_addr, "MASTER_PORT": str(master_port), "VNPU_HCCL_TRANSPORT": "mpi",
           "LOCAL_WORLD_SIZE": str(nproc)}
    for name in ("PYTHONPATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "ASCEND_HOME_PATH", "VNPU_DEVICE_COUNT",
                 "HCCL_EXEC_TIMEOUT", "HCCL_CONNECT_TIMEOUT"):
        if name in os.environ:
            env[name] = os.environ[name]
    for name, value in os.environ.items():  # mspti-trace's settings reach the ranks on every host
        if name.startswith("MSPTI_TRACE_"):
            env[name] = value
    for name, value in env.items():
        cmd += ["-x", f"{name}={value}"]
    return cmd + command


# Searched, not matched: another rank's output may share the line.
_RANK_EXIT = re.compile(r"vnpu\.run: rank (\S+) exited with code (\d+)")


def run_mpirun(cmd):
    """Runs mpirun and returns the job's exit code: mpirun's, or the first failing rank's.

    Under --enable-recovery mpirun exits with 0 even when ranks failed, so every rank runs through
    _rank_exit.py, whose line on stderr (passed on unchanged) says which one failed and how.
    """
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, errors="replace")
    failed = 0
    for line in proc.stderr:
        sys.stderr.write(line)
        sys.stderr.flush()
        m = _RANK_EXIT.search(line)
        if m and failed == 0:
            failed = int(m.group(2))
    code = proc.wait()
    return code if code != 0 else failed


def rank_command(command):
    """The command each rank runs under mpirun: ``command`` through _rank_exit.py."""
    return [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "_rank_exit.py")] + command


def launch_mpi(ns, command):
    """Starts the job across nodes; returns its exit code (on every node)."""
    if ns.hosts is not None and ns.node_rank != 0:
        print(f"vnpu.run: node {ns.node_rank}: node 0 ({ns.hosts[0]}) starts every rank through mpirun; "
              "nothing to start here", file=sys.stderr)
        return 0
    own_host = ns.local_addr or socket.gethostname()
    if ns.node_rank != 0:
        try:
            return _rendezvous.join(ns.master_addr, ns.master_port, ns.node_rank, ns.nnodes, ns.nproc_per_node,
                                    own_host, ns.rdzv_timeout)
        except (RuntimeError, TimeoutError) as exc:
            print(f"vnpu.run: node {ns.node_rank}: {exc}", file=sys.stderr)
            return 1
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        print("vnpu.run: --nnodes above 1 needs Open MPI's mpirun on PATH (Debian: apt-get install openmpi-bin)",
              file=sys.stderr)
        return 127
    if ns.hosts is not None:
        return run_mpirun(mpirun_command(ns.nnodes, ns.nproc_per_node, ns.hosts, rank_command(command),
                                         ns.master_addr, ns.master_port, mpirun))
    try:
        rdzv = _rendezvous.Rendezvous(ns.master_addr, ns.master_port, ns.nnodes, ns.nproc_per_node,
                                      ns.rdzv_timeout)
    except OSError as exc:
        print(f"vnpu.run: node 0 cannot listen on {ns.master_addr}:{ns.master_port}: {exc}", file=sys.stderr)
        return 1
    code = 1
    try:
        hosts = rdzv.gather(own_host)
        print(f"vnpu.run: {ns.nnodes} nodes joined: {','.join(hosts)}; starting "
              f"{ns.nnodes * ns.nproc_per_node} ranks through mpirun", file=sys.stderr, flush=True)
        code = run_mpirun(mpirun_command(ns.nnodes, ns.nproc_per_node, hosts, rank_command(command),
                                         ns.master_addr, ns.master_port, mpirun))
    except TimeoutError as exc:
        print(f"vnpu.run: {exc}", file=sys.stderr)
    finally:
        rdzv.finish(code)
    return code


def _exit_code(status):
    """A shell-style exit code from an os.wait() status."""
    return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


def launch(nproc, command, env=None, master_addr="127.0.0.1", master_port=29500):
    """Runs ``command`` as ``nproc`` ranks; returns 0 or the first failing rank's exit code."""
    from .distributed import ROOT_INFO_ENV, new_root_info

    base = dict(os.environ if env is None else env)
    base.update({"WORLD_SIZE": str(nproc), "LOCAL_WORLD_SIZE": str(nproc), "MASTER_ADDR": master_addr,
                 "MASTER_PORT": str(master_port), ROOT_INFO_ENV: new_root_info()})
    procs = {}
    for rank in range(nproc):
        rank_env = dict(base, RANK=str(rank), LOCAL_RANK=str(rank), GROUP_RANK="0")
        p = subprocess.Popen(command, env=rank_env)
        procs[p.pid] = (rank, p)

    def signal_ranks(signum):
        # os.kill, not Popen.send_signal: that polls first and so may reap a rank that has exited,
        # which the os.wait() below then never sees (ChildProcessError). A zombie takes the signal harmlessly.
        for pid in procs:
            os.kill(pid, signum)

    def forward(signum, _frame):
        signal_ranks(signum)

    old = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    failure = 0
    try:
        while procs:
            pid, status = os.wait()  # any child; no polling
            entry = procs.pop(pid, None)
            if entry is None:
                continue
            rank, p = entry
            p.returncode = code = _exit_code(status)
            if code != 0 and failure == 0:
                failure = code
                print(f"vnpu.run: rank {rank} (pid {pid}) failed with exit code {code}; stopping the others",
                      file=sys.stderr, flush=True)
                signal_ranks(signal.SIGTERM)
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
    return failure


def main(argv=None):
    ns = _parse(sys.argv[1:] if argv is None else argv)
    command = [sys.executable] + (["-m", ns.target] if ns.module else [ns.target]) + ns.args
    if ns.nnodes > 1:
        return launch_mpi(ns, command)
    return launch(ns.nproc_per_node, command, master_addr=ns.master_addr, master_port=ns.master_port)


if __name__ == "__main__":
    sys.exit(main())
