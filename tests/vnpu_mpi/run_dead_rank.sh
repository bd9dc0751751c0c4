#!/usr/bin/env bash
# A rank dies in the middle of an all-reduce. Open MPI's mpirun would end the job; with --enable-recovery
# the others go on, and each must report HCCL_E_TIMEOUT after HCCL_EXEC_TIMEOUT (2 s) and then "OK".
# mpirun itself fails (a rank exited with 3), so the survivors' lines decide.
# Usage: run_dead_rank.sh <mpirun and its options...> -- <program>
set -uo pipefail
mpirun=()
while [ "$1" != "--" ]; do mpirun+=("$1"); shift; done
shift
out=$("${mpirun[@]}" --enable-recovery -x HCCL_EXEC_TIMEOUT=2 -np 4 "$1" dies 2>&1)
echo "$out"
timeouts=$(grep -cE '^rank [0-2]: all-reduce without the last rank: timeout after [0-9.]+ s$' <<<"$out")
oks=$(grep -cE '^rank [0-2]: OK$' <<<"$out")
[ "$timeouts" -eq 3 ] && [ "$oks" -eq 3 ] || { echo "FAIL: $timeouts timeouts, $oks OK lines (want 3 and 3)"; exit 1; }
echo "dead rank: the 3 others failed with HCCL_E_TIMEOUT in bounded time"
