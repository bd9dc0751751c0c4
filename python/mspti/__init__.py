"""mspti: NPU profiling data in Python (msPTI's Python API).

Monitors collect one kind of data each and call a Python callback per record, on the library's
delivery thread::

    from mspti import KernelMonitor, KernelData
    monitor = KernelMonitor()
    monitor.start(lambda data: print(data.name, data.end - data.start))
    ...  # run the workload
    monitor.stop()

Also: :mod:`mspti.mstx` (markers from Python) and :mod:`mspti.batch` (numpy batch delivery via
``monitor.start_batch``). libmspti.so is loaded into the global scope on import unless it is
already there (``LD_PRELOAD=libmspti.so``, which HCCL data needs); ``MSPTI_LIBRARY`` names another
(docs/install.md, "Which libmspti.so is used": msPTI's own library works too).
"""


from . import _loader
from ._loader import native as _native  # noqa: F401  (loads libmspti and the extension)
from .activity_data import __all__ as _RECORDS
from .activity_data import *  # noqa: F401,F403  (KernelData, ...: generated from schema/records.py)
from .activity_data import RECORD_CLASSES as _RECORD_CLASSES
from ._fields import add_field_tables as _add_field_tables
from .constant import (MsptiActivityFlag, MsptiActivityKind, MsptiActivitySourceKind,
                       MsptiCommunicationDataType, MsptiResult)
from .monitor._kinds import CALLBACKS as _CALLBACKS
from .monitor._kinds import MONITORS as _MONITORS
from .monitor._kinds import *  # noqa: F401,F403  (KernelMonitor, KernelCallback, ...: generated)
from .monitor.base_monitor import MonitorStats
from .monitor.mstx_monitor import MstxMonitor
from .device import DeviceStats, device_stats
from . import batch, mstx  # noqa: E402

_add_field_tables(_RECORD_CLASSES.values())  # dataclasses.fields(KernelData) lists the typed fields

# The native callback interfaces, for subclassing instead of passing a function.
MarkCallback = _native.MarkCallback
RangeCallback = _native.RangeCallback
BatchCallback = _native.BatchCallback


__version__ = _native.libmspti_version() or "unknown"  # libmspti.so's version (major.minor.patch), where it says; the package ships with it

__all__ = [*_MONITORS, "MstxMonitor", *_RECORDS, "MsptiResult", "MsptiActivityKind",
           "MsptiCommunicationDataType", "MsptiActivityFlag", "MsptiActivitySourceKind"]

# What dir(mspti) shows: the public API, not the loader and the native module behind it.
_PUBLIC = frozenset(__all__) | set(_CALLBACKS) | {
    "MarkCallback", "RangeCallback", "BatchCallback", "MonitorStats", "DeviceStats", "device_stats", "batch",
    "mstx", "__version__",
    "__all__", "__doc__", "__name__", "__file__", "__path__", "__package__", "__spec__", "__loader__"}


def __dir__():
    return sorted(_PUBLIC)
