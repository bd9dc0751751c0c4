"""CommunicationMonitor: collectives as executed on devices (CommunicationData).

The class is generated from the record schema (schema/records.py) into mspti.monitor._kinds.
"""

from ._kinds import CommunicationMonitor  # noqa: F401
