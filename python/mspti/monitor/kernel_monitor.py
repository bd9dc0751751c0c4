"""KernelMonitor: kernels executed on devices (KernelData).

The class is generated from the record schema (schema/records.py) into mspti.monitor._kinds.
"""

from ._kinds import KernelMonitor  # noqa: F401
