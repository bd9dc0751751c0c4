"""mstx markers from Python (like ``torch_npu.npu.mstx``).

Every function takes an optional ``stream``: None for a host-only marker, or a device stream (a
``vnpu.Stream``, anything with an int ``handle``, or the handle itself) to also mark the point the
stream reaches (a DEVICE record). Markers are recorded while an :class:`mspti.MstxMonitor` runs.

    from mspti import mstx
    mstx.mark("step")
    rid = mstx.range_start("matmul", stream); ...; mstx.range_end(rid)
    with mstx.range("forward", stream): ...
    @mstx.range("train_step")
    def train_step(): ...
    d = mstx.Domain("my_domain"); with d.range("io"): ...
"""

import ctypes
import functools
import logging

from ._loader import LIBMSPTI, ext

_mark = ext.mstx_mark
_range_start = ext.mstx_range_start
_range_end = ext.mstx_range_end
_MAX_NAME_BYTES = 254  # msPTI records messages and domain names of at most 254 bytes
_RANGE_ID_LIMIT = 2**64

_last_error = LIBMSPTI.msptiExtGetLastError
_last_error.restype = ctypes.c_char_p
_last_error.argtypes = []

logger = logging.getLogger("mspti")


def _valid_message(api, message, what="message"):
    """Whether libmspti would record ``message``; raises TypeError for a non-str, logs a long one."""
    if not isinstance(message, str):
        raise TypeError(f"{api}(): {what} must be a str, not {type(message).__name__}")
    if len(message) > _MAX_NAME_BYTES // 4 and len(message.encode()) > _MAX_NAME_BYTES:
        logger.warning("mstx.%s: the %s has %d bytes (at most %d are recorded); it is not recorded", api, what,
                       len(message.encode()), _MAX_NAME_BYTES)
        return False
    return True


def _on_stream(api, stream, call, *args):
    """Runs a marker call with a stream; raises ValueError when libmspti could not mark on it."""
    before = _last_error()
    result = call(*args, stream)
    after = _last_error()
    if after != before:  # each failure message names its marker id, so a new failure always differs
        raise ValueError(f"{api}(): stream {stream!r} was rejected: {after.decode(errors='replace')}")
    return result


def _check_range_id(api, range_id):
    if not isinstance(range_id, int):
        raise TypeError(f"{api}(): range_id must be an int, not {type(range_id).__name__}")
    if not 0 <= range_id < _RANGE_ID_LIMIT:
        raise ValueError(f"{api}(): range_id must be in 0..2**64-1, not {range_id}")


def mark(message, stream=None):
    """Records an instantaneous marker named ``message`` (a str of at most 254 UTF-8 bytes).

    ``stream``: None for a host marker only, or a device stream (a ``vnpu.Stream``, an object
    with an int ``handle``, or the handle) to also mark the point the stream reaches. Recorded
    while an MstxMonitor runs. A longer message is not recorded (a warning on the ``mspti``
    logger), as in msPTI. Raises TypeError for a non-str message or an unusable stream type and
    ValueError for a stream handle the runtime rejects.
    """
    if not _valid_message("mark", message):
        return
    if stream is None:
        _mark(message)
    else:
        _on_stream("mark", stream, _mark, message)


def range_start(message, stream=None):
    """Starts a range named ``message``; returns its id for :func:`range_end`.

    Arguments as :func:`mark`. Returns 0 when the range is not recorded (no MstxMonitor running,
    the message too long, or the default domain disabled); range_end(0) does nothing.
    """
    if not _valid_message("range_start", message):
        return 0
    if stream is None:
        return _range_start(message)
    return _on_stream("range_start", stream, _range_start, message)


def range_end(range_id):
    """Ends the range ``range_id`` returned by :func:`range_start` (on its stream too, if it had one).

    An unknown id, or 0, does nothing, as in msPTI. Raises TypeError for a non-int id.
    """
    try:
        _range_end(range_id)
    except (TypeError, OverflowError):  # checked only on failure: range_end is on the hot path
        _check_range_id("range_end", range_id)
        raise


class range:  # noqa: A001  (mirrors torch_npu.npu.mstx.range)
    """A range as a context manager or decorator: started on entry, ended on exit."""

    __slots__ = ("message", "stream", "domain", "_ids")

    def __init__(self, message, stream=None, domain=None):
        if not isinstance(message, str):
            raise TypeError(f"range(): message must be a str, not {type(message).__name__}")
        self.message, self.stream, self.domain = message, stream, domain
        self._ids = []  # a stack: the same object may be entered recursively or from a decorator

    def __enter__(self):
        if self.domain is None:
            self._ids.append(range_start(self.message, self.stream))
        else:
            self._ids.append(self.domain.range_start(self.message, self.stream))
        return self

    def __exit__(self, *exc):
        rid = self._ids.pop()
        if self.domain is None:
            _range_end(rid)  # an id from range_start: no check needed
        else:
            self.domain.range_end(rid)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with range(self.message, self.stream, self.domain):
                return fn(*args, **kwargs)
        return wrapper


class Domain:
    """An mstx domain: markers that MstxMonitor.enable_domain/disable_domain switch by name."""

    __slots__ = ("name", "_handle")

    def __init__(self, name):
        if not isinstance(name, str):
            raise TypeError(f"Domain(): name must be a str, not {type(name).__name__}")
        if not name:
            raise ValueError("Domain(): name must not be empty")
        self.name = name
        self._handle = ext.mstx_domain_create(name) if _valid_message("Domain", name, "name") else None

    @property
    def valid(self):
        """False when no tool records markers or the name was rejected ("default", 255+ bytes)."""
        return self._handle is not None

    def mark(self, message, stream=None):
        """An instantaneous marker in this domain (arguments as :func:`mspti.mstx.mark`)."""
        if not _valid_message("Domain.mark", message) or self._handle is None:
            return
        if stream is None:
            ext.mstx_domain_mark(self._handle, message)
        else:
            _on_stream("Domain.mark", stream, ext.mstx_domain_mark, self._handle, message)

    def range_start(self, message, stream=None):
        """Starts a range in this domain; returns its id (0 when not recorded)."""
        if not _valid_message("Domain.range_start", message) or self._handle is None:
            return 0
        if stream is None:
            return ext.mstx_domain_range_start(self._handle, message)
        return _on_stream("Domain.range_start", stream, ext.mstx_domain_range_start, self._handle, message)

    def range_end(self, range_id):
        """Ends a range of this domain (an unknown id does nothing)."""
        _check_range_id("Domain.range_end", range_id)
        if self._handle is not None:
            ext.mstx_domain_range_end(self._handle, range_id)

    def range(self, message, stream=None):
        """A context manager / decorator for a range in this domain."""
        return range(message, stream, self)

    def destroy(self):
        """Marks the domain destroyed (its markers stop being recorded)."""
        if self._handle is not None:
            ext.mstx_domain_destroy(self._handle)
            self._handle = None

    def __repr__(self):
        return f"mstx.Domain({self.name!r})"


def domain_create(name):
    """Creates (or finds) the domain ``name``."""
    return Domain(name)


__all__ = ["mark", "range_start", "range_end", "range", "Domain", "domain_create"]
