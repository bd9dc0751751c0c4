"""MstxMonitor: mstx markers: instantaneous marks and paired ranges."""

from typing import Callable, Optional, Union

from .. import MarkCallback, RangeCallback
from .._enums import MsptiResult
from ..activity_data import MarkerData, RangeMarkerData
from .base_monitor import BaseMonitor

_MarkCb = Union[Callable[[MarkerData], object], MarkCallback]
_RangeCb = Union[Callable[[RangeMarkerData], object], RangeCallback]


class MstxMonitor(BaseMonitor):
    """Collects MARKER records: ``mark_cb(MarkerData)`` per mark, ``range_cb(RangeMarkerData)`` per range."""

    def start(self, mark_cb: Optional[_MarkCb] = None, range_cb: Optional[_RangeCb] = None) -> MsptiResult:
        """Starts delivering marks to ``mark_cb`` and ranges to ``range_cb`` (either may be omitted, not both)."""
    def enable_domain(self, name: str) -> MsptiResult:
        """Turns collection of the domain ``name`` back on ("default" = the non-domain API)."""
    def disable_domain(self, name: str) -> MsptiResult:
        """Turns collection of the domain ``name`` off, now and for domains created later."""
