"""Runs one rank's command under mpirun and says on stderr when it fails.

vnpu.run starts mpirun with --enable-recovery (a dead rank must not end the others, whose
collectives then fail with an HCCL error), and then mpirun exits with 0 whatever its ranks did. So
each rank runs through this script (as a file, so that vnpu and its libraries are not loaded here):
a rank that exits non-zero or is killed prints one line that the launcher reads back.

    python3 _rank_exit.py COMMAND [ARGS...]
"""
import os
import signal
import subprocess
import sys

MARK = "vnpu.run: rank {rank} exited with code {code}"


def main(argv):
    child = subprocess.Popen(argv)

    def forward(signum, _frame):
        child.send_signal(signum)

    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2):
        signal.signal(s, forward)
    code = child.wait()
    if code < 0:
        code = 128 - code  # killed by a signal: the shell's convention
    if code != 0:
        rank = os.environ.get("OMPI_COMM_WORLD_RANK", "?")
        print(MARK.format(rank=rank, code=code), file=sys.stderr, flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
