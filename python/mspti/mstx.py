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

import functools
import logging
import typing

from . import _loader  # noqa: F401  (loads libmspti.so globally before the extension binds to it)
from . import _mstx
from ._describe import describe


class _HasHandle(typing.Protocol):
    """A device stream: anything with an int ``handle`` (a ``vnpu.Stream``)."""

    @property
    def handle(self) -> int: ...


Stream = typing.Union[_HasHandle, int, None]
"""What the ``stream`` arguments take (for annotations): a stream object, its int handle, or None."""

_MAX_NAME_BYTES = 254  # msPTI records messages and domain names of at most 254 bytes

logger = logging.getLogger("mspti")


def _too_long(api, what, nbytes):
    """Logs a message or domain name that msPTI does not record (called by _mstx on that path only)."""
    logger.warning("mstx.%s: the %s has %d bytes (at most %d are recorded); it is not recorded", api, what,
                   nbytes, _MAX_NAME_BYTES)


_mstx._set_too_long_hook(_too_long)

# The marker calls are the extension's own functions: checking, converting and recording happen in
# one C call (see swig/python/mstx_fast.cpp for the behaviour and the docstrings).
mark = _mstx.mark
range_start = _mstx.range_start
range_end = _mstx.range_end
for _fn in (mark, range_start, range_end):
    _fn.__module__ = __name__
del _fn

_domain_create = _mstx._domain_create
_domain_destroy = _mstx._domain_destroy


class range:  # noqa: A001  (mirrors torch_npu.npu.mstx.range)
    """A range as a context manager or decorator: started on entry, ended on exit."""

    __slots__ = ("message", "stream", "domain", "_ids")

    def __init__(self, message, stream=None, domain=None):
        if not isinstance(message, str):
            raise TypeError(f"range(): message must be a str, not {describe(message)}")
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
            range_end(rid)
        else:
            self.domain.range_end(rid)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with range(self.message, self.stream, self.domain):
                return fn(*args, **kwargs)
        return wrapper


class Domain(_mstx.DomainBase):
    """An mstx domain: markers that MstxMonitor.enable_domain/disable_domain switch by name.

    mark, range_start and range_end (arguments as the module's functions) come from the extension,
    as does ``_handle``.
    """

    __slots__ = ("name",)

    def __init__(self, name):
        if not isinstance(name, str):
            raise TypeError(f"Domain(): name must be a str, not {describe(name)}")
        if not name:
            raise ValueError("Domain(): name must not be empty ('')")
        self.name = name
        self._handle = _domain_create(name)  # an int, or None when nothing records this domain

    @property
    def valid(self):
        """False when no tool records markers or the name was rejected ("default", 255+ bytes)."""
        return self._handle is not None

    def range(self, message, stream=None):
        """A context manager / decorator for a range in this domain."""
        return range(message, stream, self)

    def destroy(self):
        """Marks the domain destroyed (its markers stop being recorded)."""
        if self._handle is not None:
            _domain_destroy(self._handle)
            self._handle = None

    def __repr__(self):
        return f"mstx.Domain({self.name!r})"


def domain_create(name):
    """Creates (or finds) the domain ``name``."""
    return Domain(name)


__all__ = ["mark", "range_start", "range_end", "range", "Domain", "domain_create"]
