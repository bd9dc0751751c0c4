"""CommunicationMonitor: collectives as executed on devices (CommunicationData)."""

from .._loader import native
from ._adapters import FunctionCommunicationCallback
from .base_monitor import SingleCallbackMonitor


class CommunicationMonitor(SingleCallbackMonitor):
    """Collects COMMUNICATION records: ``start(callback)`` calls ``callback(CommunicationData)``."""

    _NATIVE = native.CommunicationMonitor
    _INTERFACE = native.CommunicationCallback
    _ADAPTER = FunctionCommunicationCallback
