"""Tensors on the host (numpy) and on virtual devices, with torch-like operators."""

from typing import Any, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from . import native
from .device import Device

float32: np.dtype[np.float32]
float16: np.dtype[np.float16]

_Size = Union[int, Sequence[int]]
_Where = Union[Device, None]


class Tensor:
    """A dense, contiguous tensor on the host (``device is None``) or on a virtual NPU."""

    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    device: Optional[int]
    def __init__(self, data: Optional[npt.ArrayLike] = None, *, shape: Optional[Sequence[int]] = None,
                 dtype: npt.DTypeLike = None, device: _Where = None, _native: Optional[native.Tensor] = None) -> None: ...
    @property
    def is_npu(self) -> bool:
        """True for a device tensor."""
    @property
    def numel(self) -> int:
        """Number of elements."""
    @property
    def nbytes(self) -> int:
        """Size in bytes."""
    @property
    def data_ptr(self) -> int:
        """Device address (device tensors) or host address."""
    def npu(self, device: Optional[Device] = None) -> Tensor:
        """A copy on ``device`` (default: the current device)."""
    def to(self, device: _Where) -> Tensor:
        """``"cpu"`` / None for the host, an int or ``"npu[:N]"`` for a device."""
    def cpu(self) -> Tensor:
        """A host copy (waits for the device's queued work first)."""
    def numpy(self) -> npt.NDArray[Any]:
        """The data as a numpy array (a copy for device tensors)."""
    def tolist(self) -> Any:
        """The data as nested Python lists."""
    def __add__(self, other: Tensor) -> Tensor: ...
    def __mul__(self, other: Tensor) -> Tensor: ...
    def __matmul__(self, other: Tensor) -> Tensor: ...
    def relu(self) -> Tensor:
        """max(self, 0)."""
    def __len__(self) -> int: ...


def empty(*size: _Size, dtype: npt.DTypeLike = ..., device: _Where = None) -> Tensor:
    """An uninitialised tensor (host unless ``device`` is given)."""
def tensor(data: npt.ArrayLike, dtype: npt.DTypeLike = None, device: _Where = None) -> Tensor:
    """A tensor from array-like data (copied to ``device`` if given)."""
def from_numpy(array: npt.NDArray[Any]) -> Tensor:
    """A host tensor sharing ``array``'s data (made contiguous)."""
def randn(*size: _Size, dtype: npt.DTypeLike = ..., device: _Where = None,
          generator: Optional[np.random.Generator] = None) -> Tensor:
    """Standard-normal samples."""
def zeros(*size: _Size, dtype: npt.DTypeLike = ..., device: _Where = None) -> Tensor:
    """Zeros."""
def ones(*size: _Size, dtype: npt.DTypeLike = ..., device: _Where = None) -> Tensor:
    """Ones."""
