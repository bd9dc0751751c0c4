"""Tensors on the host (numpy) and on virtual devices, with torch-like operators.

A host tensor wraps a numpy array; ``.npu()`` copies it to the current device. Device tensors own
an aclrtMalloc allocation; operators on them (``+``, ``*``, ``@``, :func:`relu`) run on the
device's current stream, asynchronously. ``.cpu()`` / ``.numpy()`` synchronise and copy back.
"""

import ctypes
import threading

import numpy as np

from . import _lib
from .device import current_device, current_stream

float32 = np.dtype(np.float32)
float16 = np.dtype(np.float16)
_ACL_DTYPE = {float32: 0, float16: 1, np.dtype(np.int32): 3, np.dtype(np.int64): 9}

# Frees of allocations that queued work may still use wait for the next synchronize.
_deferred_lock = threading.Lock()
_deferred = {}  # device -> [pointer]
_MAX_DEFERRED = 64


def _release_deferred(device):
    with _deferred_lock:
        pointers = _deferred.pop(device, [])
    for ptr in pointers:
        _lib.aclrtFree(ptr)


class _Allocation:
    """Device memory; freed when the last tensor using it goes away (after its stream is idle)."""

    __slots__ = ("ptr", "nbytes", "device", "__weakref__")

    def __init__(self, nbytes, device):
        ptr = ctypes.c_void_p()
        _lib.call(_lib.aclrtMalloc, ctypes.byref(ptr), max(nbytes, 1), _lib.ACL_MEM_MALLOC_HUGE_FIRST)
        self.ptr = ptr.value
        self.nbytes = nbytes
        self.device = device

    def __del__(self):
        ptr, self.ptr = self.ptr, None
        if not ptr:
            return
        with _deferred_lock:
            pending = _deferred.setdefault(self.device, [])
            pending.append(ptr)
            flush = len(pending) >= _MAX_DEFERRED
        if flush:
            try:
                current_stream(self.device).synchronize()
                _release_deferred(self.device)
            except Exception:  # interpreter shutdown: the process frees everything anyway
                pass


class Tensor:
    """A dense, contiguous tensor on the host (``device is None``) or on a virtual NPU."""

    __slots__ = ("shape", "dtype", "device", "_host", "_alloc")

    def __init__(self, data=None, *, shape=None, dtype=None, device=None, _alloc=None):
        if _alloc is not None:
            self.shape, self.dtype, self.device = tuple(shape), np.dtype(dtype), device
            self._host, self._alloc = None, _alloc
            return
        array = np.ascontiguousarray(np.asarray(data, dtype=dtype))
        self.shape, self.dtype, self.device = array.shape, array.dtype, None
        self._host, self._alloc = array, None
        if device is not None:
            moved = self.to(device)
            self.device, self._host, self._alloc = moved.device, None, moved._alloc

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
        return self._alloc.ptr if self._alloc is not None else self._host.ctypes.data

    # ----- moves ------------------------------------------------------------------------------
    def npu(self, device=None):
        """A copy on ``device`` (default: the current device); ``self`` if it is already there."""
        dev = current_device() if device is None else int(device)
        if self.device == dev:
            return self
        host = self.numpy()
        out = empty(self.shape, dtype=self.dtype, device=dev)
        if out.nbytes:
            _lib.call(_lib.aclrtMemcpy, out.data_ptr, out.nbytes, host.ctypes.data, out.nbytes,
                      _lib.ACL_MEMCPY_HOST_TO_DEVICE)
        return out

    def to(self, device):
        """``"cpu"`` / None for the host, an int or ``"npu[:N]"`` for a device."""
        if device in (None, "cpu"):
            return self.cpu()
        if isinstance(device, str):
            device = int(device.split(":")[1]) if ":" in device else None
        return self.npu(device)

    def cpu(self):
        """A host copy (waits for the device's queued work first)."""
        return self if self._host is not None else Tensor(self.numpy())

    def numpy(self):
        """The data as a numpy array (a copy for device tensors)."""
        if self._host is not None:
            return self._host
        current_stream(self.device).synchronize()
        host = np.empty(self.shape, dtype=self.dtype)
        if self.nbytes:
            _lib.call(_lib.aclrtMemcpy, host.ctypes.data, self.nbytes, self._alloc.ptr, self.nbytes,
                      _lib.ACL_MEMCPY_DEVICE_TO_HOST)
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
    dev = int(device.split(":")[-1]) if isinstance(device, str) else int(device)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    return Tensor(shape=shape, dtype=dtype, device=dev, _alloc=_Allocation(nbytes, dev))


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
