"""libmspti's device-channel counters (``msptiExtDeviceGetStats``), typed."""
from typing import NamedTuple


class DeviceStats(NamedTuple):
    """Counters of what libmspti read from the device's profiling channels since the process started."""
    available: bool
    bytes: int
    records: int
    skipped: int
    malformed: int
    unmatched: int
    read_errors: int
    short_flushes: int


def device_stats() -> DeviceStats:
    """The device-channel counters now (all zero, ``available`` False, on msPTI's own library)."""
