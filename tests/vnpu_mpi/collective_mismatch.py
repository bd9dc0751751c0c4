"""One rank of a collective the ranks get wrong (argv: case, report folder); rank 1 is the odd one out.

case: count (1024 against 4096 floats), dtype (float32 against float16), op (sum against max), root
(broadcast from 0 against from 1), absent (the last rank never runs the all-reduce). Each rank that
runs the collective writes what the synchronisation after it raised (or "no error") to
<folder>/rank<R>.txt, waits until every such rank has written its file (so that a launcher stopping
the others after the first failure cannot cut one short), then exits 1 if it raised, else 0.
"""
import os
import sys
import time

import numpy as np

import vnpu
import vnpu.distributed as dist

case, folder = sys.argv[1], sys.argv[2]
dist.init_process_group(backend="hccl")
rank, world = dist.get_rank(), dist.get_world_size()
odd = rank == 1
count = 4096 if case == "count" and odd else 1024
dtype = np.float16 if case == "dtype" and odd else np.float32
t = vnpu.from_numpy(np.ones(count, dtype=dtype)).npu()
if case == "absent" and rank == world - 1:
    sys.exit(0)  # never comes
try:
    if case == "root":
        dist.broadcast(t, src=1 if odd else 0)
    else:
        dist.all_reduce(t, dist.ReduceOp.MAX if case == "op" and odd else dist.ReduceOp.SUM)
    t.numpy()  # synchronises
    outcome, code = "no error", 0
except vnpu.NpuError as e:
    outcome, code = str(e), 1
with open(os.path.join(folder, f"rank{rank}.tmp"), "w") as f:
    f.write(outcome)
os.rename(os.path.join(folder, f"rank{rank}.tmp"), os.path.join(folder, f"rank{rank}.txt"))
participants = world - 1 if case == "absent" else world
deadline = time.monotonic() + 120
while len([n for n in os.listdir(folder) if n.endswith(".txt")]) < participants and time.monotonic() < deadline:
    time.sleep(0.05)  # polling for the other ranks' files, bounded
sys.exit(code)
