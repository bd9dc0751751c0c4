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

from ._loader import ext

_mark = ext.mstx_mark
_range_start = ext.mstx_range_start
_range_end = ext.mstx_range_end

mark = _mark  # mark(message, stream=None): an instantaneous marker
range_start = _range_start  # range_start(message, stream=None) -> range id (0 if not recorded)
range_end = _range_end  # range_end(range_id)


class range:  # noqa: A001  (mirrors torch_npu.npu.mstx.range)
    """A range as a context manager or decorator: started on entry, ended on exit."""

    __slots__ = ("message", "stream", "domain", "_ids")

    def __init__(self, message, stream=None, domain=None):
        if not isinstance(message, str):
            raise TypeError(f"message must be a str, not {type(message).__name__}")
        self.message, self.stream, self.domain = message, stream, domain
        self._ids = []  # a stack: the same object may be entered recursively or from a decorator

    def __enter__(self):
        if self.domain is None:
            self._ids.append(_range_start(self.message, self.stream))
        else:
            self._ids.append(self.domain.range_start(self.message, self.stream))
        return self

    def __exit__(self, *exc):
        rid = self._ids.pop()
        if self.domain is None:
            _range_end(rid)
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
        if not isinstance(name, str) or not name:
            raise ValueError("domain name must be a non-empty str")
        self.name = name
        self._handle = ext.mstx_domain_create(name)

    @property
    def valid(self):
        """False when no tool records markers or the name was rejected (e.g. "default")."""
        return self._handle is not None

    def mark(self, message, stream=None):
        """An instantaneous marker in this domain."""
        if self._handle is not None:
            ext.mstx_domain_mark(self._handle, message, stream)

    def range_start(self, message, stream=None):
        """Starts a range in this domain; returns its id (0 when not recorded)."""
        if self._handle is None:
            return 0
        return ext.mstx_domain_range_start(self._handle, message, stream)

    def range_end(self, range_id):
        """Ends a range of this domain."""
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
