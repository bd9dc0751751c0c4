"""Collectives across ranks (the ``torch.distributed`` part), over HCCL root info."""

import enum
from typing import Optional

from .tensors import Tensor, empty as empty

ROOT_INFO_ENV: str


class ReduceOp(enum.IntEnum):
    """HcclReduceOp values."""

    SUM = 0
    PRODUCT = 1
    MAX = 2
    MIN = 3


def new_root_info() -> str:
    """A fresh HCCL root info (hex string) to hand to every rank."""
def world_root_info() -> str:
    """Under mpirun: the root info of all MPI ranks."""
def init_process_group(backend: Optional[str] = "hccl", rank: Optional[int] = None, world_size: Optional[int] = None,
                       root_info: Optional[str] = None) -> None:
    """Joins the group: sets the device to LOCAL_RANK and creates the communicator."""
def is_initialized() -> bool:
    """Whether init_process_group() was called."""
def get_rank() -> int:
    """This process's rank."""
def get_world_size() -> int:
    """Number of ranks."""
def get_comm_name() -> str:
    """The HCCL communicator name (the ``comm_name`` msPTI reports)."""
def all_reduce(tensor: Tensor, op: ReduceOp = ReduceOp.SUM) -> None:
    """Reduces ``tensor`` across ranks, in place (HcclAllReduce)."""
def broadcast(tensor: Tensor, src: int = 0) -> None:
    """Copies rank ``src``'s tensor to every rank, in place (HcclBroadcast)."""
def all_gather_into_tensor(output: Tensor, input: Tensor) -> None:
    """Concatenates every rank's ``input`` into ``output`` (HcclAllGather)."""
def reduce_scatter_tensor(output: Tensor, input: Tensor, op: ReduceOp = ReduceOp.SUM) -> None:
    """Reduces ``input`` across ranks and gives each rank its slice in ``output``."""
def barrier() -> None:
    """Waits until every rank reached the barrier."""
def destroy_process_group() -> None:
    """Destroys the communicator (after the current device's work has finished)."""


__all__ = ["ReduceOp", "init_process_group", "is_initialized", "get_rank", "get_world_size", "get_comm_name",
           "all_reduce", "broadcast", "all_gather_into_tensor", "reduce_scatter_tensor", "barrier",
           "destroy_process_group", "new_root_info", "world_root_info", "empty"]
