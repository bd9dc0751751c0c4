"""libmspti's device-channel counters (``msptiExtDeviceGetStats``): what the kernel, HCCL and
communication records were read from, and the device records that gave none."""
from typing import NamedTuple

from ._loader import native


class DeviceStats(NamedTuple):
    """Counters of what libmspti read from the device's profiling channels since the process started."""
    available: bool  #: False where the libmspti.so in use lacks the call (msPTI's own): all counts 0
    bytes: int  #: bytes read from the channels and parsed
    records: int  #: whole device records decoded and handed on
    skipped: int  #: whole records of types libmspti does not read
    malformed: int  #: whole records whose fields contradict their type (no activity record)
    unmatched: int  #: task begin or end records with no task track from the runtime (no activity record)
    read_errors: int  #: failed polls or reads of a channel
    short_flushes: int  #: flushes that gave up waiting (1 s) for bytes the driver said it held


def device_stats() -> DeviceStats:
    """The device-channel counters now (all zero, ``available`` False, on msPTI's own library)."""
    s = native.device_stats()
    return DeviceStats(bool(s.available), int(s.bytes), int(s.records), int(s.skipped), int(s.malformed),
                       int(s.unmatched), int(s.read_errors), int(s.short_flushes))
