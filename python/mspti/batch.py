"""Batch delivery: blocks of records as numpy structured arrays over msPTI's packed layouts.

``monitor.start_batch(cb)`` calls ``cb(batch)`` once per block. With numpy importable, ``batch``
is a read-only structured array viewing the library's buffer (zero-copy) with the dtype of the
monitor's kind (:data:`DTYPES`); without numpy it is a ``memoryview`` of the raw bytes. Either way
it is valid **only during the call**: used afterwards it raises ValueError (it never reads memory
the library reuses); keep ``batch.copy()`` (or ``bytes(batch)``) made during the call instead.

String fields (``name``, ``type``, ``domain``, ...) hold addresses of NUL-terminated strings;
:func:`resolve_string` and :func:`strings` read them, **during the call**. A marker's ``name`` (the
mstx message) lies in the same buffer as its record, so it goes with the buffer when the call
returns, and its address may hold another name later: nothing is cached by address.
For a marker record, ``process_id``/``thread_id`` (host) and ``device_id``/``stream_id`` (device)
overlay the same 8 bytes, as msPTI's objectId union does.
"""

import ctypes
import typing

try:
    import numpy as _np
    from . import _batch_lifetime
except ImportError:  # batches are then memoryviews
    _np = None

# (name, format, offset) per kind: msPTI's packed layouts, generated from the record schema
# (schema/records.py), whose offsets the C++ build checks against mspti_activity.h.
from ._layouts import DTYPE_NAMES, LAYOUTS, STRING_FIELDS  # noqa: E402


def _dtype(kind):
    itemsize, fields = LAYOUTS[kind]
    names, formats, offsets = zip(*fields)
    return _np.dtype({"names": list(names), "formats": list(formats), "offsets": list(offsets),
                      "itemsize": itemsize})


Batch = typing.Union[_np.ndarray, memoryview] if _np is not None else memoryview
"""What a batch callback receives (for annotations): a structured array, or a memoryview without numpy."""

DTYPES = {kind: _dtype(kind) for kind in LAYOUTS} if _np is not None else {}
"""numpy dtype of each kind's record (empty without numpy)."""
# KERNEL_DTYPE, HCCL_DTYPE, ...: each kind's dtype (None without numpy).
globals().update({name: DTYPES.get(kind) for kind, name in DTYPE_NAMES.items()})
_DTYPE_BY_VALUE = {kind.value: dtype for kind, dtype in DTYPES.items()}  # the native side passes ints


def resolve_string(address):
    """The string at an address read from a live batch's string field ('' for 0/NULL).

    Invalid UTF-8 (a C program may mark any bytes) is decoded with U+FFFD in place of bad bytes."""
    address = int(address)
    return ctypes.string_at(address).decode("utf-8", "replace") if address else ""


def strings(batch, field):
    """The strings of ``field`` for every record of ``batch`` (read during its callback), as a list of str.

    Repeated addresses within the one batch are read once: inside a batch an address names one text."""
    seen = {}
    out = []
    for address in batch[field].tolist():
        text = seen.get(address)
        if text is None:
            text = seen[address] = resolve_string(address)
        out.append(text)
    return out


def make_batch(kind, view, count):
    """Builds the object a batch callback receives (used by the native module)."""
    dtype = _DTYPE_BY_VALUE.get(kind)
    if dtype is None:
        return view
    return _batch_lifetime.batch_array(view, dtype, count)


__all__ = ["DTYPES", *DTYPE_NAMES.values(), "LAYOUTS", "STRING_FIELDS", "resolve_string", "strings",
           "make_batch"]
