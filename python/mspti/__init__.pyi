"""mspti: NPU profiling data in Python (msPTI's Python API), typed.

The monitors, record classes and enums come from the record schema (generated stubs); the
callback interfaces below are the native classes to subclass instead of passing a function.
"""

from . import batch as batch, mstx as mstx
from ._enums import (MsptiActivityFlag as MsptiActivityFlag, MsptiActivityKind as MsptiActivityKind,
                     MsptiActivitySourceKind as MsptiActivitySourceKind,
                     MsptiCommunicationDataType as MsptiCommunicationDataType, MsptiResult as MsptiResult)
from .activity_data import *
from .batch import Batch
from .activity_data import MarkerData, RangeMarkerData
from .monitor._kinds import *
from .monitor.base_monitor import MonitorStats as MonitorStats
from .monitor.mstx_monitor import MstxMonitor as MstxMonitor
from .device import DeviceStats as DeviceStats, device_stats as device_stats

__version__: str
"""libmspti.so's version (major.minor.patch)."""


class MarkCallback:
    """MstxMonitor's mark callback interface: subclass it and override ``on_record``."""

    def __init__(self) -> None: ...
    def on_record(self, data: MarkerData) -> None:
        """Called once per mark record (host or device), on the delivery thread."""


class RangeCallback:
    """MstxMonitor's range callback interface: subclass it and override ``on_record``."""

    def __init__(self) -> None: ...
    def on_record(self, data: RangeMarkerData) -> None:
        """Called once per completed range half (host or device), on the delivery thread."""


class BatchCallback:
    """The batch callback interface of every monitor's ``start_batch``: override ``on_batch``."""

    def __init__(self) -> None: ...
    def on_batch(self, batch: Batch) -> None:
        """Called once per block of records; ``batch`` is valid only during the call."""
