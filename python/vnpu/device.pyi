"""Devices and streams of the virtual NPU (the ``torch.npu`` part of the API)."""

from typing import Optional, Union

from . import native

Device = Union[int, str]
"""A device: its index, or "npu:N"."""


class Stream:
    """An ACL stream. ``handle`` is the aclrtStream (an int), accepted by ``mspti.mstx`` too."""

    handle: int
    device: int
    def __init__(self, device: Optional[Device] = None, _native: Optional[native.Stream] = None) -> None: ...
    @property
    def stream_id(self) -> int:
        """The numeric stream id msPTI reports in ``stream_id`` fields."""
    def synchronize(self) -> None:
        """Blocks until every task enqueued on this stream has finished."""


def device_count() -> int:
    """Number of virtual devices."""
def set_device(device: Device) -> None:
    """Makes ``device`` (an int, or "npu:N") the calling thread's current device."""
def current_device() -> int:
    """The calling thread's current device."""
def current_stream(device: Optional[Device] = None) -> Stream:
    """The current stream of ``device`` (default: the current device)."""
def synchronize(device: Optional[Device] = None) -> None:
    """Blocks until the device's queued work has finished."""
