"""Tensors on the host (numpy) and on virtual devices, with torch-like operators.

A host tensor wraps a numpy array; ``.npu()`` copies it to the current device. Device tensors hold
a ``vnpu.native.Tensor`` (device memory, freed after the device's next synchronisation once no
tensor uses it); operators on them (``+``, ``*``, ``@``, :func:`relu`) run on the
device's current stream, asynchronously. ``.cpu()`` / ``.numpy()`` synchronise and copy back.
"""

import numpy as np

from . import native
from .device import _device_index, current_device

float32 = np.dtype(np.float32)
float16 = np.dtype(np.float16)
# numpy dtype -> the facade's element type (aclDataType). Device tensors hold any of them; the
# operators and collectives take float32, float16, int32 and int64 (the facade says which it rejects).
_ACL_DTYPE = {np.dtype(t): getattr(native, k) for t, k in (
    (np.float32, "kFloat32"), (np.float16, "kFloat16"), (np.int8, "kInt8"), (np.int32, "kInt32"),
    (np.uint8, "kUInt8"), (np.int16, "kInt16"), (np.uint16, "kUInt16"), (np.uint32, "kUInt32"),
    (np.int64, "kInt64"), (np.uint64, "kUInt64"), (np.float64, "kFloat64"), (np.bool_, "kBool"))}


class Tensor:
    """A dense, contiguous tensor on the host (``device is None``) or on a virtual NPU."""

    __slots__ = ("shape", "dtype", "device", "_host", "_native")

    def __init__(self, data=None, *, shape=None, dtype=None, device=None, _native=None):
        if _native is not None:
            self.shape, self.dtype, self.device = tuple(shape), np.dtype(dtype), device
            self._host, self._native = None, _native
            return
        array = np.ascontiguousarray(np.asarray(data, dtype=dtype))
        self.shape, self.dtype, self.device = array.shape, array.dtype, None
        self._host, self._native = array, None
        if device is not None:
            moved = self.to(device)
            self.device, self._host, self._native = moved.device, None, moved._native

    # ----- properties -------------------------------------------------------------------------
    @property
    def is_npu(self):
        """True for a device tensor."""
        return self.device is not None

    @property
    def numel(self):
        """Number of elements."""
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self):
        """Size in bytes."""
        return self.numel * self.dtype.itemsize

    @property
    def data_ptr(self):
        """Device address (device tensors) or host address."""
        return self._native.address() if self._native is not None else self._host.__array_interface__["data"][0]

    # ----- moves ------------------------------------------------------------------------------
    def npu(self, device=None):
        """A copy on ``device`` (default: the current device); ``self`` if it is already there."""
        dev = current_device() if device is None else _device_index(device)
        if self.device == dev:
            return self
        host = self.numpy()
        out = empty(self.shape, dtype=self.dtype, device=dev)
        out._native.copy_from_host(host)
        return out

    def to(self, device):
        """``"cpu"`` / None for the host, an int or ``"npu[:N]"`` for a device."""
        if device in (None, "cpu"):
            return self.cpu()
        if isinstance(device, str):
            device = _device_index(device) if ":" in device else None  # "npu": the current device
        return self.npu(device)

    def cpu(self):
        """A host copy (waits for the device's queued work first)."""
        return self if self._host is not None else Tensor(self.numpy())

    def numpy(self):
        """The data as a numpy array (a copy for device tensors)."""
        if self._host is not None:
            return self._host
        host = np.empty(self.shape, dtype=self.dtype)
        self._native.copy_to_host(host)  # after the device's queued work
        return host

    def tolist(self):
        """The data as nested Python lists."""
        return self.numpy().tolist()

    # ----- operators --------------------------------------------------------------------------
    def __add__(self, other):
        from .ops import add
        return add(self, other)

    def __mul__(self, other):
        from .ops import mul
        return mul(self, other)

    def __matmul__(self, other):
        from .ops import matmul
        return matmul(self, other)

    def relu(self):
        """max(self, 0)."""
        from .ops import relu
        return relu(self)

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        where = "cpu" if self.device is None else f"npu:{self.device}"
        return f"vnpu.Tensor(shape={self.shape}, dtype={self.dtype}, device={where})"


def _dims(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    return tuple(int(s) for s in size)


def empty(*size, dtype=float32, device=None):
    """An uninitialised tensor (host unless ``device`` is given)."""
    shape = _dims(size)
    dtype = np.dtype(dtype)
    if device is None:
        return Tensor(np.empty(shape, dtype=dtype))
    if dtype not in _ACL_DTYPE:
        raise TypeError(f"unsupported dtype {dtype} on a device")
    dev = _device_index(device)
    return Tensor(shape=shape, dtype=dtype, device=dev, _native=native.Tensor.empty(list(shape), _ACL_DTYPE[dtype], dev))


def tensor(data, dtype=None, device=None):
    """A tensor from array-like data (copied to ``device`` if given)."""
    return Tensor(data, dtype=dtype, device=device)


def from_numpy(array):
    """A host tensor sharing ``array``'s data (made contiguous)."""
    return Tensor(array)


def randn(*size, dtype=float32, device=None, generator=None):
    """Standard-normal samples."""
    rng = generator if generator is not None else np.random.default_rng()
    return Tensor(rng.standard_normal(_dims(size)).astype(dtype), device=device)


def zeros(*size, dtype=float32, device=None):
    """Zeros."""
    return Tensor(np.zeros(_dims(size), dtype=dtype), device=device)


def ones(*size, dtype=float32, device=None):
    """Ones."""
    return Tensor(np.ones(_dims(size), dtype=dtype), device=device)
