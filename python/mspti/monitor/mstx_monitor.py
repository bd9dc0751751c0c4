"""MstxMonitor: mstx markers: instantaneous marks and paired ranges."""

from .._loader import native
from ._adapters import FunctionMarkCallback, FunctionRangeCallback, as_director
from .._describe import describe
from .base_monitor import BaseMonitor, logger


class MstxMonitor(BaseMonitor):
    """Collects MARKER records.

    ``start(mark_cb, range_cb)``: ``mark_cb(MarkerData)`` per instantaneous mark (host and device
    records alike), ``range_cb(RangeMarkerData)`` per completed range (the host and the device
    half of a range are two records). Either may be omitted, not both.
    """

    _NATIVE = native.MstxMonitor

    def start(self, mark_cb=None, range_cb=None):
        """Starts delivering marks to ``mark_cb`` and ranges to ``range_cb``.

        Either may be omitted; as in msPTI, the call is rejected (MSPTI_ERROR_INVALID_PARAMETER)
        only when neither is callable. A non-callable argument beside a callable one is ignored
        with a warning. On a running monitor it switches to the new callbacks.
        """
        labelled = (("mark_cb", mark_cb, native.MarkCallback, FunctionMarkCallback),
                    ("range_cb", range_cb, native.RangeCallback, FunctionRangeCallback))
        directors = [as_director(cb, interface, adapter) for _, cb, interface, adapter in labelled]
        if directors == [None, None]:
            return self._invalid("start: mark_cb or range_cb must be callable, not "
                                 f"{describe(mark_cb)} and {describe(range_cb)}")
        for (label, cb, _, _), director in zip(labelled, directors):
            if director is None and cb is not None:
                logger.warning("MstxMonitor.start: %s is not callable (%s); it is ignored", label, describe(cb))
        mark, rng = directors
        return self._start_with("start", (mark, rng), lambda: self._native.start(mark, rng))

    def _domain_call(self, method, name):
        if not isinstance(name, str):
            return self._invalid(f"{method}: domain name must be a str, not {describe(name)}")
        if not name:
            return self._invalid(f"{method}: domain name must not be empty ('')")
        return self._result(method, getattr(self._native, method)(name))

    def enable_domain(self, name):
        """Turns collection of the domain ``name`` back on ("default" = the non-domain API)."""
        return self._domain_call("enable_domain", name)

    def disable_domain(self, name):
        """Turns collection of the domain ``name`` off, now and for domains created later."""
        return self._domain_call("disable_domain", name)
