"""Collectives across ranks (the ``torch.distributed`` part), over HCCL root info.

``python3 -m vnpu.run --nproc_per_node N script.py`` starts the ranks with RANK, WORLD_SIZE,
LOCAL_RANK and the HCCL root info (VNPU_HCCL_ROOT_INFO); :func:`init_process_group` joins them
with HcclCommInitRootInfo. Collectives are enqueued on the current stream and work in place. The
communicator is a ``vnpu.native.Communicator``.
"""

import enum
import os

from . import native
from ._errors import describe
from .device import set_device
from .tensors import Tensor, empty

ROOT_INFO_ENV = "VNPU_HCCL_ROOT_INFO"


class ReduceOp(enum.IntEnum):
    """HcclReduceOp values."""
    SUM = 0
    PRODUCT = 1
    MAX = 2
    MIN = 3


class _Group:
    def __init__(self, comm, rank, world_size):
        self.comm, self.rank, self.world_size = comm, rank, world_size


_group = None


def new_root_info():
    """A fresh HCCL root info (hex string) to hand to every rank."""
    return native.Communicator.new_root_info()


def _under_mpirun():
    return "OMPI_COMM_WORLD_SIZE" in os.environ


def _env_int(*names):
    """The first of the variables that is set (torchrun's, then Open MPI's), as an int; None if none is."""
    for name in names:
        if name in os.environ:
            return int(os.environ[name])
    return None


def world_root_info():
    """Under mpirun: the root info of all MPI ranks, the same on every rank without any exchange."""
    return native.Communicator.world_root_info()


def init_process_group(backend="hccl", rank=None, world_size=None, root_info=None):
    """Joins the group: sets the device to LOCAL_RANK and creates the communicator (blocks until all ranks join).

    Started by ``vnpu.run``, the ranks find RANK, WORLD_SIZE, LOCAL_RANK and the root info in their
    environment; started by ``mpirun``, they take them from Open MPI's variables, and the communicator of
    all ranks runs on MPI.
    """
    global _group
    if _group is not None:
        raise RuntimeError("the process group is already initialised")
    if backend not in ("hccl", None):
        raise ValueError(f"unsupported backend {backend!r}")
    rank = _env_int("RANK", "OMPI_COMM_WORLD_RANK") if rank is None else rank
    world_size = _env_int("WORLD_SIZE", "OMPI_COMM_WORLD_SIZE") if world_size is None else world_size
    if rank is None or world_size is None:
        raise RuntimeError("RANK and WORLD_SIZE are not set: start the ranks with python3 -m vnpu.run or mpirun")
    root_info = os.environ.get(ROOT_INFO_ENV) if root_info is None else root_info
    if not root_info and _under_mpirun():
        root_info = world_root_info()
    if not root_info:
        raise RuntimeError(f"{ROOT_INFO_ENV} is not set: start the ranks with python3 -m vnpu.run")
    local_rank = _env_int("LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK")
    set_device(rank if local_rank is None else local_rank)
    comm = native.Communicator(int(world_size), root_info, int(rank))  # blocks until every rank joined
    _group = _Group(comm, rank, world_size)


def is_initialized():
    """Whether init_process_group() was called."""
    return _group is not None


def _require():
    if _group is None:
        raise RuntimeError("call init_process_group() first")
    return _group


def get_rank():
    """This process's rank."""
    return _require().rank


def get_world_size():
    """Number of ranks."""
    return _require().world_size


def get_comm_name():
    """The HCCL communicator name (the ``comm_name`` msPTI reports)."""
    return _require().comm.name()


def _operand(t):
    """The native tensor of a device tensor (dtypes are checked by the facade: TypeError)."""
    if not isinstance(t, Tensor) or t.device is None:
        raise ValueError(f"collectives need a device tensor, not {describe(t)}")
    return t._native


def all_reduce(tensor, op=ReduceOp.SUM):
    """Reduces ``tensor`` across ranks, in place (HcclAllReduce)."""
    _require().comm.all_reduce(_operand(tensor), int(op))


def broadcast(tensor, src=0):
    """Copies rank ``src``'s tensor to every rank, in place (HcclBroadcast)."""
    _require().comm.broadcast(_operand(tensor), int(src))


def all_gather_into_tensor(output, input):
    """Concatenates every rank's ``input`` into ``output`` (HcclAllGather)."""
    _require().comm.all_gather(_operand(output), _operand(input))


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM):
    """Reduces ``input`` across ranks and gives each rank its slice in ``output`` (HcclReduceScatter)."""
    _require().comm.reduce_scatter(_operand(output), _operand(input), int(op))


def barrier():
    """Waits until every rank reached the barrier."""
    _require().comm.barrier()


def destroy_process_group():
    """Destroys the communicator (after the current device's work has finished)."""
    global _group
    if _group is None:
        return
    group, _group = _group, None
    group.comm.destroy()


__all__ = ["ReduceOp", "init_process_group", "is_initialized", "get_rank", "get_world_size", "get_comm_name",
           "all_reduce", "broadcast", "all_gather_into_tensor", "reduce_scatter_tensor", "barrier",
           "destroy_process_group", "new_root_info", "world_root_info", "empty"]
