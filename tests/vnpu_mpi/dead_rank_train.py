"""A rank that dies in the middle of an all-reduce, started by vnpu.run across "nodes" (mpirun underneath).

The last rank exits with 3 right after enqueueing its all-reduce. Every other rank must see its
all-reduce fail with HCCL_E_TIMEOUT (the communicator's async error), not before HCCL_EXEC_TIMEOUT
(given again as argv[1] seconds; a loaded machine only makes the wait longer, so no upper bound is
checked), print one line saying so, and then exit normally (exit code 0 when all of that held).
"""
import os
import sys
import time

import numpy as np

import vnpu
import vnpu.distributed as dist

HCCL_E_TIMEOUT = 9
exec_timeout = float(sys.argv[1])
dist.init_process_group(backend="hccl")
rank, world = dist.get_rank(), dist.get_world_size()
t = vnpu.from_numpy(np.ones(1 << 16, dtype=np.float32)).npu()
dist.all_reduce(t)
vnpu.synchronize()  # one that works: every rank is in, the job is up
if rank == world - 1:
    dist.all_reduce(t)
    os._exit(3)
start = time.monotonic()
dist.all_reduce(t)
try:
    vnpu.synchronize()
except vnpu.NpuError:
    pass
waited = time.monotonic() - start
code = dist._group.comm.async_error()  # HcclGetCommAsyncError
print(f"rank {rank}: all-reduce with a dead rank: HCCL error {code} after {waited:.2f} s", flush=True)
sys.exit(0 if code == HCCL_E_TIMEOUT and waited >= exec_timeout - 0.1 else 1)
