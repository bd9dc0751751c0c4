"""Devices and streams of the virtual NPU (the ``torch.npu`` part of the API), on :mod:`vnpu.native`.

The current device is per thread, as in ACL. Each device has one process-wide *current stream*
(the facade's default stream), on which every operator and collective of this package is enqueued.
"""

import threading
import typing

from . import native

Device = typing.Union[int, str]
"""A device (for annotations): its index, or "npu:N"."""

_lock = threading.Lock()
_streams = {}  # device id -> Stream wrapping the device's default stream


class Stream:
    """An ACL stream. ``handle`` is the aclrtStream (an int), accepted by ``mspti.mstx`` too."""

    __slots__ = ("_native", "handle", "device", "_id")

    def __init__(self, device=None, _native=None):
        if _native is None:
            _native = native.Stream(-1 if device is None else _device_index(device))
        self._native = _native
        self.handle = _native.handle()
        self.device = _native.device()
        self._id = _native.id()

    @property
    def stream_id(self):
        """The numeric stream id msPTI reports in ``stream_id`` fields."""
        return self._id

    def synchronize(self):
        """Blocks until every task enqueued on this stream has finished (GIL released)."""
        self._native.synchronize()

    def __repr__(self):
        return f"vnpu.Stream(device={self.device}, stream_id={self._id}, handle={self.handle:#x})"


def _device_index(device):
    """An int device from an int or "npu[:N]"."""
    try:
        return int(device.split(":")[-1]) if isinstance(device, str) else int(device)
    except (TypeError, ValueError):
        raise ValueError(f'device must be an int or "npu:N", not {device!r}') from None


def device_count():
    """Number of virtual devices."""
    return native.device_count()


def set_device(device):
    """Makes ``device`` (an int, or "npu:N") the calling thread's current device."""
    native.set_device(_device_index(device))


def current_device():
    """The calling thread's current device; device 0 is selected if none was set (as torch does)."""
    return native.current_device()


def current_stream(device=None):
    """The current stream of ``device`` (default: the current device), created on first use."""
    dev = current_device() if device is None else _device_index(device)
    stream = _streams.get(dev)
    if stream is None:
        with _lock:
            stream = _streams.get(dev)
            if stream is None:
                stream = _streams[dev] = Stream(_native=native.Stream.default_stream(dev))
    return stream


def synchronize(device=None):
    """Blocks until the device's queued work has finished; frees the memory tensors released meanwhile."""
    native.synchronize(-1 if device is None else _device_index(device))
