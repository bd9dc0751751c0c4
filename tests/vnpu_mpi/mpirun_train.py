"""Started by `mpirun -np N python3 mpirun_train.py`, with no launcher: vnpu.distributed takes RANK,
WORLD_SIZE and LOCAL_RANK from Open MPI's variables and runs the world communicator on MPI."""
import os
import sys

import numpy as np

import vnpu
import vnpu.distributed as dist

dist.init_process_group(backend="hccl")
rank, world = dist.get_rank(), dist.get_world_size()
assert rank == int(os.environ["OMPI_COMM_WORLD_RANK"]), rank
assert world == int(os.environ["OMPI_COMM_WORLD_SIZE"]), world
assert vnpu.current_device() == int(os.environ["OMPI_COMM_WORLD_LOCAL_RANK"]) % vnpu.device_count()

t = vnpu.from_numpy(np.arange(1024, dtype=np.float32) + rank).npu()
dist.all_reduce(t)
h = vnpu.from_numpy(np.full(64, rank + 1, dtype=np.float16)).npu()
dist.all_reduce(h)
vnpu.synchronize()
expected = np.arange(1024, dtype=np.float32) * world + world * (world - 1) / 2
np.testing.assert_array_equal(t.numpy(), expected)
np.testing.assert_array_equal(h.numpy(), np.full(64, world * (world + 1) / 2, dtype=np.float16))
print(f"rank {rank}/{world} on device {vnpu.current_device()}: all_reduce ok, comm {dist.get_comm_name()}")
dist.destroy_process_group()
sys.exit(0)
