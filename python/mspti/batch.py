"""Batch delivery: blocks of records as numpy structured arrays over msPTI's packed layouts.

``monitor.start_batch(cb)`` calls ``cb(batch)`` once per block. With numpy importable, ``batch``
is a read-only structured array viewing the library's buffer (zero-copy) with the dtype of the
monitor's kind (:data:`DTYPES`); without numpy it is a ``memoryview`` of the raw bytes. Either way
it is valid **only during the call**: used afterwards it raises ValueError (it never reads memory
the library reuses); keep ``batch.copy()`` (or ``bytes(batch)``) made during the call instead.

String fields (``name``, ``type``, ``domain``, ...) hold addresses of NUL-terminated strings the
library owns; :func:`resolve_string` and :func:`strings` read them. A marker's ``name`` (the mstx
message) is reclaimed once delivered, so read it **during the call**; the other strings live as
long as the process.
For a marker record, ``process_id``/``thread_id`` (host) and ``device_id``/``stream_id`` (device)
overlay the same 8 bytes, as msPTI's objectId union does.
"""

import ctypes
import functools

from .constant import MsptiActivityKind

try:
    import numpy as _np
    from . import _batch_lifetime
except ImportError:  # batches are then memoryviews
    _np = None

_K = MsptiActivityKind

# (name, format, offset) per kind: packed msPTI layouts (mspti_activity.h; record_layout_test.cpp).
LAYOUTS = {
    _K.MSPTI_ACTIVITY_KIND_KERNEL: (56, [
        ("kind", "<i4", 0), ("start", "<u8", 4), ("end", "<u8", 12), ("device_id", "<u4", 20),
        ("stream_id", "<u4", 24), ("correlation_id", "<u8", 28), ("type", "<u8", 36), ("name", "<u8", 44)]),
    _K.MSPTI_ACTIVITY_KIND_HCCL: (56, [
        ("kind", "<i4", 0), ("start", "<u8", 4), ("end", "<u8", 12), ("device_id", "<u4", 20),
        ("stream_id", "<u4", 24), ("bandwidth", "<f8", 28), ("name", "<u8", 36), ("comm_name", "<u8", 44)]),
    _K.MSPTI_ACTIVITY_KIND_COMMUNICATION: (72, [
        ("kind", "<i4", 0), ("data_type", "<i4", 4), ("count", "<u8", 8), ("device_id", "<u4", 16),
        ("stream_id", "<u4", 20), ("start", "<u8", 24), ("end", "<u8", 32), ("alg_type", "<u8", 40),
        ("name", "<u8", 48), ("comm_name", "<u8", 56), ("correlation_id", "<u8", 64)]),
    _K.MSPTI_ACTIVITY_KIND_MARKER: (56, [
        ("kind", "<i4", 0), ("flag", "<i4", 4), ("source_kind", "<i4", 8), ("timestamp", "<u8", 12),
        ("id", "<u8", 20), ("process_id", "<u4", 28), ("thread_id", "<u4", 32), ("device_id", "<u4", 28),
        ("stream_id", "<u4", 32), ("name", "<u8", 36), ("domain", "<u8", 44)]),
}

STRING_FIELDS = {
    _K.MSPTI_ACTIVITY_KIND_KERNEL: ("type", "name"),
    _K.MSPTI_ACTIVITY_KIND_HCCL: ("name", "comm_name"),
    _K.MSPTI_ACTIVITY_KIND_COMMUNICATION: ("alg_type", "name", "comm_name"),
    _K.MSPTI_ACTIVITY_KIND_MARKER: ("name", "domain"),
}


def _dtype(kind):
    itemsize, fields = LAYOUTS[kind]
    names, formats, offsets = zip(*fields)
    return _np.dtype({"names": list(names), "formats": list(formats), "offsets": list(offsets),
                      "itemsize": itemsize})


DTYPES = {kind: _dtype(kind) for kind in LAYOUTS} if _np is not None else {}
"""numpy dtype of each kind's record (empty without numpy)."""
KERNEL_DTYPE = DTYPES.get(_K.MSPTI_ACTIVITY_KIND_KERNEL)
HCCL_DTYPE = DTYPES.get(_K.MSPTI_ACTIVITY_KIND_HCCL)
COMMUNICATION_DTYPE = DTYPES.get(_K.MSPTI_ACTIVITY_KIND_COMMUNICATION)
MARKER_DTYPE = DTYPES.get(_K.MSPTI_ACTIVITY_KIND_MARKER)


@functools.lru_cache(maxsize=65536)
def resolve_string(address):
    """The string at a library-owned address from a batch's string field ('' for 0/NULL)."""
    address = int(address)
    return ctypes.string_at(address).decode("utf-8", "replace") if address else ""


def strings(batch, field):
    """The strings of ``field`` for every record of ``batch``, as a list of str."""
    return [resolve_string(a) for a in batch[field].tolist()]


def make_batch(kind, view, count):
    """Builds the object a batch callback receives (used by the native module)."""
    dtype = DTYPES.get(kind)
    if dtype is None:
        return view
    return _batch_lifetime.batch_array(view, dtype, count)


__all__ = ["DTYPES", "KERNEL_DTYPE", "HCCL_DTYPE", "COMMUNICATION_DTYPE", "MARKER_DTYPE", "LAYOUTS",
           "STRING_FIELDS", "resolve_string", "strings", "make_batch"]
