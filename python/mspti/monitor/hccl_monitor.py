"""HcclMonitor: HCCL operations with bandwidth (HcclData)."""

from .._loader import native
from ._adapters import FunctionHcclCallback
from .base_monitor import SingleCallbackMonitor


class HcclMonitor(SingleCallbackMonitor):
    """Collects HCCL records: ``start(callback)`` calls ``callback(HcclData)`` per operation.

    Needs libmspti.so interposing the runtime (``LD_PRELOAD=libmspti.so``); otherwise start()
    returns MSPTI_ERROR_WITHOUT_LD_PRELOAD.
    """

    _NATIVE = native.HcclMonitor
    _INTERFACE = native.HcclCallback
    _ADAPTER = FunctionHcclCallback
