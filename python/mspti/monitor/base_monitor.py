"""What every monitor shares: lifecycle, buffer size, flushing, callback lifetime, shutdown."""

import atexit
import logging
import os
import threading
import weakref
from typing import NamedTuple

from .._loader import native
from ..constant import MAX_BUFFER_SIZE_MB, MsptiResult
from ._adapters import FunctionBatchCallback, as_director

logger = logging.getLogger("mspti")

_running = weakref.WeakSet()  # monitors to stop at interpreter exit
_deferred_lock = threading.Lock()
_deferred = []  # callbacks released by a stop() inside a callback; dropped off the delivery thread


def _release_deferred():
    """Drops callbacks that a stop() from inside a callback could not drop on the spot."""
    if native.on_delivery_thread():
        return
    with _deferred_lock:
        _deferred.clear()


def _after_fork_in_child():
    """A forked child keeps its running monitors (see the README); only the thread that forked
    exists there, so a lock another thread held at the fork would never be released: renew them."""
    global _deferred_lock
    _deferred_lock = threading.Lock()
    for monitor in list(_running):
        monitor._lock = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)


class MonitorStats(NamedTuple):
    """Counters of one monitor since it was created."""
    delivered: int
    callback_errors: int
    unpaired_dropped: int


class BaseMonitor:
    """Lifecycle shared by the monitors: ``start(...)``, run the workload, ``stop()``.

    While a monitor runs it holds a strong reference to its callbacks (the native side only
    borrows them); the reference is taken once the native start succeeded and dropped after stop.
    """

    _NATIVE = None  # the native monitor class

    def __init__(self):
        self._native = self._NATIVE()
        self._callbacks = None
        self._lock = threading.Lock()

    # ----- lifecycle --------------------------------------------------------------------------
    def _invalid(self, what):
        logger.error("%s: %s", type(self).__name__, what)
        return MsptiResult.MSPTI_ERROR_INVALID_PARAMETER

    def _result(self, method, code):
        result = MsptiResult(code)
        if result != MsptiResult.MSPTI_SUCCESS:
            logger.error("%s.%s: %s (%s)", type(self).__name__, method, result.name,
                         native.last_error_message() or "no detail")
        return result

    def _start_with(self, method, callbacks, start):
        """Runs the native ``start`` (GIL released) and keeps ``callbacks`` alive if it succeeded."""
        _release_deferred()
        result = self._result(method, start())
        if result == MsptiResult.MSPTI_SUCCESS:
            with self._lock:
                self._callbacks = callbacks
            _running.add(self)
            if not self._native.is_running():  # stopped from another thread meanwhile
                self._drop_callbacks()
        return result

    def start_batch(self, callback):
        """Delivers records in blocks: ``callback(batch)`` per block (see :mod:`mspti.batch`)."""
        director = as_director(callback, native.BatchCallback, FunctionBatchCallback)
        if director is None:
            return self._invalid(f"start_batch: callback must be callable, not {type(callback).__name__}")
        return self._start_with("start_batch", (director,), lambda: self._native.start_batch(director))

    def stop(self):
        """Stops collecting; returns once every record collected so far was delivered.

        Safe from any thread and from inside a callback; a no-op (SUCCESS) when not running.
        """
        result = self._result("stop", self._native.stop())
        self._drop_callbacks()
        _running.discard(self)
        return result

    def _drop_callbacks(self):
        with self._lock:
            callbacks, self._callbacks = self._callbacks, None
        if callbacks is not None and native.on_delivery_thread():
            # stop() from inside a callback: that callback is still on the stack of the native
            # director; drop it later, from another thread.
            with _deferred_lock:
                _deferred.append(callbacks)
        else:
            _release_deferred()

    # ----- settings and state -----------------------------------------------------------------
    def flush_all(self):
        """Delivers every record collected so far (of every running monitor), then returns."""
        return self._result("flush_all", self._native.flush_all())

    def set_buffer_size(self, size):
        """Sets the activity buffer size in MB (int, 1..256); takes effect when collection next starts."""
        if isinstance(size, bool) or not isinstance(size, int):
            return self._invalid(f"set_buffer_size: size must be an int (MB), not {type(size).__name__}")
        if not 1 <= size <= MAX_BUFFER_SIZE_MB:
            return self._invalid(f"set_buffer_size: size must be in 1..{MAX_BUFFER_SIZE_MB} MB, not {size}")
        return self._result("set_buffer_size", self._native.set_buffer_size(size))

    def is_running(self):
        """Whether start() succeeded and stop() has not been called since."""
        return self._native.is_running()

    def stats(self):
        """This monitor's counters (delivered records, callback errors, unpaired ranges dropped)."""
        s = self._native.stats()
        return MonitorStats(int(s.delivered), int(s.callback_errors), int(s.unpaired_dropped))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def __repr__(self):
        state = "running" if self.is_running() else "stopped"
        return f"<mspti.{type(self).__name__} {state}>"


class SingleCallbackMonitor(BaseMonitor):
    """A monitor with one per-record callback (kernel, HCCL, communication)."""

    _INTERFACE = None  # native callback interface
    _ADAPTER = None  # adapter class for plain callables

    def start(self, callback):
        """Starts delivering records: ``callback(record)`` per record, on the delivery thread.

        ``callback`` is any callable, or an instance of the native callback class. Returns a
        :class:`MsptiResult`; a non-callable callback gives MSPTI_ERROR_INVALID_PARAMETER.
        """
        director = as_director(callback, self._INTERFACE, self._ADAPTER)
        if director is None:
            return self._invalid(f"start: callback must be callable, not {type(callback).__name__}")
        return self._start_with("start", (director,), lambda: self._native.start(director))


@atexit.register
def _stop_all():
    """Stops monitors still running at interpreter exit (before the interpreter goes away)."""
    for monitor in list(_running):
        try:
            monitor.stop()
        except Exception:  # exiting: never raise from here
            logger.exception("stopping %r at exit failed", monitor)
    with _deferred_lock:
        _deferred.clear()
