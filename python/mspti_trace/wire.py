"""The protobuf wire format of a ``.pftrace``, for every Python reader and writer of the package
(reader_pftrace, pftrace_reader, merge): the field numbers, varints and fields.

The field numbers are perfetto's (TracePacket, TrackDescriptor, TrackEvent, InternedData,
DebugAnnotation), named as src/trace/proto.h names them for the C++ writer and decoder
(``kTeTrackUuid`` here is ``TE_TRACK_UUID``); the trace.wire test checks that both lists agree.
"""

import struct

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5  # wire types

TRACE_PACKET = 1  # Trace
TIMESTAMP, SEQUENCE_ID, TRACK_EVENT, INTERNED_DATA, SEQUENCE_FLAGS, TRACK_DESCRIPTOR = 8, 10, 11, 12, 13, 60
EVENT_CATEGORIES, EVENT_NAMES, DEBUG_ANNOTATION_NAMES = 1, 2, 3  # InternedData
IID, INTERNED_NAME = 1, 2  # EventName / EventCategory / DebugAnnotationName
TD_UUID, TD_NAME, TD_PROCESS, TD_THREAD, TD_PARENT_UUID, TD_COUNTER = 1, 2, 3, 4, 5, 8  # TrackDescriptor
PD_PID, PD_PROCESS_NAME = 1, 6  # ProcessDescriptor
TH_PID, TH_TID, TH_THREAD_NAME = 1, 2, 5  # ThreadDescriptor
CD_UNIT = 3  # CounterDescriptor
TE_CATEGORY_IIDS, TE_DEBUG_ANNOTATIONS, TE_TYPE, TE_NAME_IID, TE_TRACK_UUID = 3, 4, 9, 10, 11  # TrackEvent
TE_CATEGORIES, TE_NAME = 22, 23  # read, not written by our writer
TE_COUNTER_VALUE, TE_DOUBLE_COUNTER_VALUE = 30, 44
TE_FLOW_IDS, TE_TERMINATING_FLOW_IDS = 47, 48
DA_NAME_IID, DA_BOOL_VALUE, DA_UINT_VALUE, DA_INT_VALUE, DA_DOUBLE_VALUE, DA_STRING_VALUE = 1, 2, 3, 4, 5, 6
DA_NAME = 10  # DebugAnnotation's inline name
SLICE_BEGIN, SLICE_END, INSTANT, COUNTER = 1, 2, 3, 4  # TrackEvent.Type
INCREMENTAL_STATE_CLEARED, NEEDS_INCREMENTAL_STATE = 1, 2  # TracePacket.SequenceFlags

PACKET_KEY = TRACE_PACKET << 3 | LENGTH
_U64 = (1 << 64) - 1


class TruncatedError(ValueError):
    """The data ends inside a field."""


def varint(buf, pos):
    """(value, position after it) of the varint at buf[pos], as a uint64 (bits past the 64th are
    dropped, as protobuf does); TruncatedError when buf ends inside it, ValueError when it is
    longer than 10 bytes."""
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise TruncatedError("varint runs past the end")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result & _U64, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def fields(buf, start=0, end=None):
    """Yields (field number, wire type, value) of the message in buf[start:end]: ints for
    varint and fixed fields, bytes for length-delimited ones. A field running past the end
    raises TruncatedError; a wire type protobuf no longer uses, ValueError."""
    pos, end = start, len(buf) if end is None else end
    while pos < end:
        key, pos = varint(buf, pos)
        num, wt = key >> 3, key & 7
        if wt == VARINT:
            v, pos = varint(buf, pos)
            if pos > end:
                raise TruncatedError("varint runs past the end")
        elif wt == FIXED64:
            if pos + 8 > end:
                raise TruncatedError("fixed64 runs past the end")
            v = struct.unpack_from("<Q", buf, pos)[0]
            pos += 8
        elif wt == LENGTH:
            n, pos = varint(buf, pos)
            if pos + n > end:
                raise TruncatedError("length-delimited field runs past the end")
            v = bytes(buf[pos:pos + n])
            pos += n
        elif wt == FIXED32:
            if pos + 4 > end:
                raise TruncatedError("fixed32 runs past the end")
            v = struct.unpack_from("<I", buf, pos)[0]
            pos += 4
        else:
            raise ValueError(f"wire type {wt} not supported")
        yield num, wt, v


def signed(v):
    """A varint read as int64."""
    return v - (1 << 64) if v >= 1 << 63 else v


def double(bits):
    """A fixed64 read as a double."""
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def encode_varint(v):
    """The varint of v (taken modulo 2**64, as int64 values are written)."""
    out = bytearray()
    v &= (1 << 64) - 1
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def encode_field(num, wt, value):
    """One field: an int for varint and fixed wire types, bytes for a length-delimited one."""
    key = encode_varint(num << 3 | wt)
    if wt == VARINT:
        return key + encode_varint(value)
    if wt == FIXED64:
        return key + struct.pack("<Q", value)
    if wt == FIXED32:
        return key + struct.pack("<I", value)
    return key + encode_varint(len(value)) + value
