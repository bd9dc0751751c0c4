"""HcclMonitor: HCCL operations with bandwidth (HcclData).

The class is generated from the record schema (schema/records.py) into mspti.monitor._kinds.
"""

from ._kinds import HcclMonitor  # noqa: F401
