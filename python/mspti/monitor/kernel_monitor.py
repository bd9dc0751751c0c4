"""KernelMonitor: kernels executed on devices (KernelData)."""

from .._loader import native
from ._adapters import FunctionKernelCallback
from .base_monitor import SingleCallbackMonitor


class KernelMonitor(SingleCallbackMonitor):
    """Collects KERNEL records: ``start(callback)`` calls ``callback(KernelData)`` per kernel."""

    _NATIVE = native.KernelMonitor
    _INTERFACE = native.KernelCallback
    _ADAPTER = FunctionKernelCallback
