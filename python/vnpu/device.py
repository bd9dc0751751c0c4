"""Devices and streams of the virtual NPU (the ``torch.npu`` part of the API).

The current device is per thread, as in ACL. Each device has one process-wide *current stream*,
created on first use, on which every operator and collective of this package is enqueued.
"""

import ctypes
import threading

from . import _lib

_lock = threading.Lock()
_streams = {}  # device id -> Stream


class Stream:
    """An ACL stream. ``handle`` is the aclrtStream (an int), accepted by ``mspti.mstx`` too."""

    __slots__ = ("handle", "device", "_id")

    def __init__(self, device=None):
        dev = current_device() if device is None else device
        with _on_device(dev):
            handle = ctypes.c_void_p()
            _lib.call(_lib.aclrtCreateStream, ctypes.byref(handle))
            sid = ctypes.c_int32()
            _lib.call(_lib.aclrtStreamGetId, handle, ctypes.byref(sid))
        self.handle = handle.value
        self.device = dev
        self._id = sid.value

    @property
    def stream_id(self):
        """The numeric stream id msPTI reports in ``stream_id`` fields."""
        return self._id

    def synchronize(self):
        """Blocks until every task enqueued on this stream has finished (GIL released)."""
        _lib.call(_lib.aclrtSynchronizeStream, self.handle)

    def __repr__(self):
        return f"vnpu.Stream(device={self.device}, stream_id={self._id}, handle={self.handle:#x})"


class _on_device:
    """Temporarily makes ``device`` the calling thread's current device."""

    def __init__(self, device):
        self.device = device
        self.previous = None

    def __enter__(self):
        self.previous = _get_device()
        if self.previous != self.device:
            _lib.call(_lib.aclrtSetDevice, self.device)

    def __exit__(self, *exc):
        if self.previous is not None and self.previous != self.device:
            _lib.call(_lib.aclrtSetDevice, self.previous)


def _get_device():
    dev = ctypes.c_int32()
    return dev.value if _lib.aclrtGetDevice(ctypes.byref(dev)) == _lib.ACL_SUCCESS else None


def device_count():
    """Number of virtual devices."""
    n = ctypes.c_uint32()
    _lib.call(_lib.aclrtGetDeviceCount, ctypes.byref(n))
    return n.value


def set_device(device):
    """Makes ``device`` (an int, or "npu:N") the calling thread's current device."""
    if isinstance(device, str):
        device = int(device.split(":")[-1])
    _lib.call(_lib.aclrtSetDevice, int(device))


def current_device():
    """The calling thread's current device; device 0 is selected if none was set (as torch does)."""
    dev = _get_device()
    if dev is None:
        set_device(0)
        dev = 0
    return dev


def current_stream(device=None):
    """The current stream of ``device`` (default: the current device), created on first use."""
    dev = current_device() if device is None else int(device)
    stream = _streams.get(dev)
    if stream is None:
        with _lock:
            stream = _streams.get(dev)
            if stream is None:
                stream = _streams[dev] = Stream(dev)
    return stream


def synchronize(device=None):
    """Blocks until the device's current stream has finished its work; frees deferred memory."""
    dev = current_device() if device is None else int(device)
    stream = _streams.get(dev)
    if stream is not None:
        stream.synchronize()
    from .tensors import _release_deferred  # deferred frees wait for the stream
    _release_deferred(dev)
