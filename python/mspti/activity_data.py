"""Records handed to monitor callbacks: owned, immutable values.

Each class is a named tuple (fields in the order of the user guide), so a record stays valid after
the callback, has a readable repr, compares by value (and by type), hashes, and pickles (it can
go through a ``multiprocessing.Queue``). Records are built by the native module directly from the
C++ values. ``_asdict()`` gives a dict. Ids that do not apply to a record are -1.
"""

from typing import NamedTuple

from .constant import (MsptiActivityFlag, MsptiActivityKind, MsptiActivitySourceKind,
                       MsptiCommunicationDataType)

_K = MsptiActivityKind


class _Record:
    """Equality by type and value (a KernelData never equals a plain tuple or another record type)."""

    __slots__ = ()

    def __eq__(self, other):
        return type(self) is type(other) and tuple.__eq__(self, other)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = tuple.__hash__


class _ObjectIdFields(NamedTuple):
    process_id: int = -1
    thread_id: int = -1
    device_id: int = -1
    stream_id: int = -1


class MsptiObjectId(_Record, _ObjectIdFields):
    """Who a marker belongs to: process/thread (host records) or device/stream (device records)."""

    __slots__ = ()
    PROCESS_ID, THREAD_ID, DEVICE_ID, STREAM_ID = "processId", "threadId", "deviceId", "streamId"


class _KernelFields(NamedTuple):
    kind: MsptiActivityKind = _K.MSPTI_ACTIVITY_KIND_KERNEL
    start: int = 0
    end: int = 0
    device_id: int = -1
    stream_id: int = -1
    correlation_id: int = 0
    type: str = ""
    name: str = ""


class KernelData(_Record, _KernelFields):
    """A kernel executed on a device: start/end in ns since the epoch, type e.g. "KERNEL_AIVEC"."""

    __slots__ = ()
    KIND, START, END, DEVICE_ID, STREAM_ID = "kind", "start", "end", "deviceId", "streamId"
    CORRELATION_ID, TYPE, NAME = "correlationId", "type", "name"


class _HcclFields(NamedTuple):
    kind: MsptiActivityKind = _K.MSPTI_ACTIVITY_KIND_HCCL
    start: int = 0
    end: int = 0
    device_id: int = -1
    stream_id: int = -1
    bandwidth: float = 0.0
    name: str = ""
    comm_name: str = ""


class HcclData(_Record, _HcclFields):
    """An HCCL operation: bandwidth in GB/s (1 GB = 1e9 bytes), name e.g. "HcclAllReduce"."""

    __slots__ = ()
    KIND, START, END, DEVICE_ID, STREAM_ID = "kind", "start", "end", "deviceId", "streamId"
    BANDWIDTH, NAME, COMM_NAME = "bandWidth", "name", "commName"


class _CommunicationFields(NamedTuple):
    kind: MsptiActivityKind = _K.MSPTI_ACTIVITY_KIND_COMMUNICATION
    data_type: MsptiCommunicationDataType = MsptiCommunicationDataType.MSPTI_ACTIVITY_COMMUNICATION_INVALID_TYPE
    count: int = 0
    device_id: int = -1
    stream_id: int = -1
    start: int = 0
    end: int = 0
    alg_type: str = ""
    name: str = ""
    comm_name: str = ""
    correlation_id: int = 0


class CommunicationData(_Record, _CommunicationFields):
    """A collective as executed on a device: element type and count, algorithm, name e.g. "hcom_allReduce_"."""

    __slots__ = ()
    KIND, DATA_TYPE, COUNT, DEVICE_ID, STREAM_ID = "kind", "dataType", "count", "deviceId", "streamId"
    START, END, ALG_TYPE, NAME, COMM_NAME, CORRELATION_ID = "start", "end", "algType", "name", "commName", \
        "correlationId"


class _MarkerFields(NamedTuple):
    kind: MsptiActivityKind = _K.MSPTI_ACTIVITY_KIND_MARKER
    flag: MsptiActivityFlag = MsptiActivityFlag.MSPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS
    source_kind: MsptiActivitySourceKind = MsptiActivitySourceKind.MSPTI_ACTIVITY_SOURCE_KIND_HOST
    timestamp: int = 0
    id: int = 0
    object_id: MsptiObjectId = MsptiObjectId()
    name: str = ""
    domain: str = ""


class MarkerData(_Record, _MarkerFields):
    """One marker record: a mark or one end of a range, on the host or a device."""

    __slots__ = ()
    KIND, FLAG, SOURCE_KIND, TIMESTAMP, ID = "kind", "flag", "sourceKind", "timestamp", "id"
    NAME, DOMAIN = "name", "domain"


class _RangeFields(NamedTuple):
    kind: MsptiActivityKind = _K.MSPTI_ACTIVITY_KIND_MARKER
    source_kind: MsptiActivitySourceKind = MsptiActivitySourceKind.MSPTI_ACTIVITY_SOURCE_KIND_HOST
    id: int = 0
    object_id: MsptiObjectId = MsptiObjectId()
    name: str = ""
    domain: str = ""
    start: int = 0
    end: int = 0


class RangeMarkerData(_Record, _RangeFields):
    """A range, start and end paired (host and device halves are separate records)."""

    __slots__ = ()


__all__ = ["MsptiObjectId", "KernelData", "HcclData", "CommunicationData", "MarkerData", "RangeMarkerData"]
