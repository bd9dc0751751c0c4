"""A torchrun-like launcher for the virtual NPU.

    python3 -m vnpu.run --nproc_per_node 8 script.py [script args...]
    python3 -m vnpu.run --nproc_per_node 8 -m package.module [args...]

Starts one process per rank with RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR,
MASTER_PORT and the HCCL root info (VNPU_HCCL_ROOT_INFO) in its environment, waits for all of
them, and if one fails, terminates the others and exits with the failing rank's code.
"""

import argparse
import os
import signal
import subprocess
import sys


def _parse(argv):
    parser = argparse.ArgumentParser(prog="python3 -m vnpu.run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--nproc_per_node", "--nproc-per-node", type=int, default=1,
                        help="number of ranks to start (default 1)")
    parser.add_argument("--nnodes", type=int, default=1, help="only 1 is supported")
    parser.add_argument("-m", dest="module", action="store_true", help="run the target as a module")
    parser.add_argument("target", help="script (or module with -m)")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the target")
    ns = parser.parse_args(argv)
    if ns.nnodes != 1:
        parser.error("only --nnodes 1 is supported")
    if not 1 <= ns.nproc_per_node:
        parser.error("--nproc_per_node must be at least 1")
    return ns


def _exit_code(status):
    """A shell-style exit code from an os.wait() status."""
    return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


def launch(nproc, command, env=None):
    """Runs ``command`` as ``nproc`` ranks; returns 0 or the first failing rank's exit code."""
    from .distributed import ROOT_INFO_ENV, new_root_info

    base = dict(os.environ if env is None else env)
    base.update({"WORLD_SIZE": str(nproc), "LOCAL_WORLD_SIZE": str(nproc), "MASTER_ADDR": "127.0.0.1",
                 "MASTER_PORT": "29500", ROOT_INFO_ENV: new_root_info()})
    procs = {}
    for rank in range(nproc):
        rank_env = dict(base, RANK=str(rank), LOCAL_RANK=str(rank), GROUP_RANK="0")
        p = subprocess.Popen(command, env=rank_env)
        procs[p.pid] = (rank, p)

    def forward(signum, _frame):
        for _, p in procs.values():
            if p.returncode is None:
                p.send_signal(signum)

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
                for _, other in procs.values():
                    other.terminate()
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
    return failure


def main(argv=None):
    ns = _parse(sys.argv[1:] if argv is None else argv)
    command = [sys.executable] + (["-m", ns.target] if ns.module else [ns.target]) + ns.args
    return launch(ns.nproc_per_node, command)


if __name__ == "__main__":
    sys.exit(main())
