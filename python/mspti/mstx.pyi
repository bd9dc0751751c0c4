"""mstx markers from Python (like ``torch_npu.npu.mstx``), typed."""

from types import TracebackType
from typing import Any, Callable, Literal, Optional, Protocol, Type, TypeVar, Union


class _HasHandle(Protocol):
    """A device stream: anything with an int ``handle`` (a ``vnpu.Stream``)."""

    @property
    def handle(self) -> int: ...


Stream = Union[_HasHandle, int, None]
"""None (host marker only), a stream object with an int ``handle``, or the handle itself."""

_F = TypeVar("_F", bound=Callable[..., Any])


def mark(message: str, stream: Stream = None) -> None:
    """Records an instantaneous marker named ``message`` (at most 254 UTF-8 bytes)."""
def range_start(message: str, stream: Stream = None) -> int:
    """Starts a range named ``message``; returns its id for :func:`range_end` (0: not recorded)."""
def range_end(range_id: int) -> None:
    """Ends the range ``range_id`` returned by :func:`range_start`."""


class range:
    """A range as a context manager or decorator: started on entry, ended on exit."""

    message: str
    stream: Stream
    domain: Optional[Domain]
    def __init__(self, message: str, stream: Stream = None, domain: Optional[Domain] = None) -> None: ...
    def __enter__(self) -> range: ...
    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> Literal[False]: ...
    def __call__(self, fn: _F) -> _F: ...


class Domain:
    """An mstx domain: markers that MstxMonitor.enable_domain/disable_domain switch by name."""

    name: str
    def __init__(self, name: str) -> None: ...
    @property
    def valid(self) -> bool:
        """False when no tool records markers or the name was rejected."""
    def mark(self, message: str, stream: Stream = None) -> None: ...
    def range_start(self, message: str, stream: Stream = None) -> int: ...
    def range_end(self, range_id: int) -> None: ...
    def range(self, message: str, stream: Stream = None) -> range:
        """A context manager / decorator for a range in this domain."""
    def destroy(self) -> None:
        """Marks the domain destroyed (its markers stop being recorded)."""


def domain_create(name: str) -> Domain:
    """Creates (or finds) the domain ``name``."""


__all__ = ["mark", "range_start", "range_end", "range", "Domain", "domain_create"]
