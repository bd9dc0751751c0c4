"""What every monitor shares: lifecycle, buffer size, flushing, stop timeout, counters.

The process-wide settings are classmethods: ``KernelMonitor.set_buffer_size(64)`` and
``monitor.set_buffer_size(64)`` do the same, and reject bad input alike (a logged message naming
the value, and MSPTI_ERROR_INVALID_PARAMETER).
"""

import logging
from types import TracebackType
from typing import Callable, NamedTuple, Optional, Type, TypeVar, Union

from .. import BatchCallback
from .._enums import MsptiResult
from ..batch import Batch

logger: logging.Logger

_M = TypeVar("_M", bound="BaseMonitor")


class MonitorStats(NamedTuple):
    """Counters of one monitor since it was created."""

    delivered: int
    """Records handed to the callback (batch records included)."""
    callback_errors: int
    """Callback calls that raised (reported; delivery went on)."""
    unpaired_dropped: int
    """MstxMonitor: open range halves evicted from its bounded table."""
    dropped: int = ...
    """Records collected for the monitor but never handed to it."""


class BaseMonitor:
    """Lifecycle shared by the monitors: ``start(...)``, run the workload, ``stop()``."""

    def __init__(self) -> None: ...
    def start_batch(self, callback: Union[Callable[[Batch], object], BatchCallback]) -> MsptiResult:
        """Delivers records in blocks: ``callback(batch)`` per block (see :mod:`mspti.batch`)."""
    def stop(self) -> MsptiResult:
        """Stops collecting; returns once the records collected so far were delivered (bounded by
        the stop timeout)."""
    @classmethod
    def flush_all(cls) -> MsptiResult:
        """Delivers every record collected so far (process-wide), then returns."""
    @classmethod
    def flush_period(cls, time_ms: int) -> MsptiResult:
        """Delivers partly filled buffers every ``time_ms`` ms (0..2**32-1; 0 turns it off)."""
    @classmethod
    def set_buffer_size(cls, size: int) -> MsptiResult:
        """Sets the size of each activity buffer in MB (1..256; default 8)."""
    @classmethod
    def set_stop_timeout(cls, seconds: Optional[float]) -> MsptiResult:
        """How long stop() waits for the backlog, in seconds (0..86400); None: no bound."""
    @classmethod
    def get_stop_timeout(cls) -> Optional[float]:
        """The stop timeout in seconds (None: no bound)."""
    def is_running(self) -> bool:
        """Whether start() succeeded and stop() has not been called since."""
    def stats(self) -> MonitorStats:
        """This monitor's counters."""
    def __enter__(self: _M) -> _M: ...
    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None: ...


class SingleCallbackMonitor(BaseMonitor):
    """A monitor with one per-record callback (its ``start`` is typed per kind)."""
