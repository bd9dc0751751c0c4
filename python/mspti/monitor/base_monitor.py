"""What every monitor shares: lifecycle, buffer size, flushing, callback lifetime, shutdown."""

import atexit
import logging
import math
import os
import threading
import weakref
from typing import NamedTuple

from .._loader import native
from .._describe import describe
from ..constant import MAX_BUFFER_SIZE_MB, MsptiResult
from ._adapters import FunctionBatchCallback, as_director

logger = logging.getLogger("mspti")

_running = weakref.WeakSet()  # monitors whose locks a forked child renews
#: (native monitor, callbacks) a callback may still use: a stop() interrupted by Ctrl-C, or one that
#: left a stuck callback running. Never freed: the native side may still call or stop them.
_abandoned = []


def _after_fork_in_child():
    """A forked child keeps its running monitors (see the README); only the thread that forked
    exists there, so a lock another thread held at the fork would never be released: renew them."""
    for monitor in list(_running):
        monitor._lock = threading.RLock()  # reentrant, as in __init__


os.register_at_fork(after_in_child=_after_fork_in_child)


class MonitorStats(NamedTuple):
    """Counters of one monitor since it was created."""
    delivered: int  #: records handed to the callback (batch records included)
    callback_errors: int  #: callback calls that raised (reported; delivery went on)
    unpaired_dropped: int  #: MstxMonitor: open range halves evicted from its bounded table
    #: records collected for the monitor, never handed to it: its kind's drops in libmspti since the
    #: monitor was created (buffer declined or full, the backlog of a stop() that reached its time
    #: bound -- see :meth:`BaseMonitor.set_stop_timeout` -- or of the exit), plus those it left that
    #: another monitor of its kind received; each record counts once
    dropped: int = 0


_MAX_FLUSH_PERIOD_MS = 2**32 - 1


def _name_of(monitor):
    """The class name of a monitor or monitor class (process-wide calls work on either)."""
    return monitor.__name__ if isinstance(monitor, type) else type(monitor).__name__


_settings_monitor = None
_settings_lock = threading.Lock()


def _settings():
    """A native monitor that is never started, for the process-wide settings the C++ API sets through
    an instance (set_stop_timeout, stop_timeout) when they are called on a class."""
    global _settings_monitor
    with _settings_lock:
        if _settings_monitor is None:
            _settings_monitor = native.MstxMonitor()
        return _settings_monitor


class BaseMonitor:
    """Lifecycle shared by the monitors: ``start(...)``, run the workload, ``stop()``.

    While a monitor runs it holds a strong reference to its callbacks (the native side only
    borrows them); the reference is taken once the native start succeeded and dropped after stop.
    """

    _NATIVE = None  # the native monitor class

    def __init__(self):
        self._native = self._NATIVE()
        self._callbacks = None
        self._lock = threading.RLock()  # reentrant: stop() may run in a signal handler that interrupted a holder

    # ----- lifecycle --------------------------------------------------------------------------
    def _invalid(self, what):
        logger.error("%s: %s", _name_of(self), what)
        return MsptiResult.MSPTI_ERROR_INVALID_PARAMETER

    def _result(self, method, code, detail=None):
        result = MsptiResult(code)
        if result != MsptiResult.MSPTI_SUCCESS:
            logger.error("%s.%s: %s (%s)", _name_of(self), method, result.name,
                         (native.last_error_message() if detail is None else detail) or "no detail")
        return result

    def _start_with(self, method, callbacks, start):
        """Runs the native ``start`` (GIL released) and keeps ``callbacks`` alive if it succeeded.

        On a running monitor the native start switches to the new callbacks; once it returned the
        old ones are no longer called (except, from inside a callback, for the rest of the buffer
        being delivered: the native side keeps them until that buffer is done).
        """
        was_running = self._native.is_running()
        result = self._result(method, start())
        if result == MsptiResult.MSPTI_SUCCESS:
            with self._lock:
                old, self._callbacks = self._callbacks, callbacks
            _running.add(self)
            self._release(old)
            if not self._native.is_running():  # stopped from another thread meanwhile
                self._drop_callbacks()
        elif result == MsptiResult.MSPTI_ERROR_INNER and was_running and self._native.is_running():
            # A switch whose old callback was still running past the stop timeout and its grace:
            # the new callbacks are in place, the old ones were left running and are never freed.
            with self._lock:
                old, self._callbacks = self._callbacks, callbacks
            _abandoned.append((self._native, old))
        return result

    def start_batch(self, callback):
        """Delivers records in blocks: ``callback(batch)`` per block (see :mod:`mspti.batch`)."""
        director = as_director(callback, native.BatchCallback, FunctionBatchCallback)
        if director is None:
            return self._invalid(f"start_batch: callback must be callable, not {describe(callback)}")
        return self._start_with("start_batch", (director,), lambda: self._native.start_batch(director))

    def stop(self):
        """Stops collecting; returns once every record collected so far was delivered, or once the
        stop timeout (:meth:`set_stop_timeout`, default 2 s) has passed. Records left undelivered
        then are counted in ``stats().dropped``. A callback call in progress then is waited for 5 s
        more; one still running is left running (MSPTI_ERROR_INNER, the monitor stopped all the
        same; see the README): its callback is kept alive and never called again.

        Safe from any thread, from a signal handler and from inside a callback; a no-op (SUCCESS)
        when not running. On the main thread Ctrl-C interrupts the wait (KeyboardInterrupt); the
        stop then completes in the background.
        """
        if (self._native.is_running() and threading.current_thread() is threading.main_thread()
                and not native.on_delivery_thread()):
            try:
                code, detail = native.stop_interruptibly(self._native)  # Ctrl-C interrupts the wait
            except BaseException:
                # The native stop goes on in the background and a callback may still run: what
                # they use must outlive them.
                _abandoned.append((self._native, self._callbacks))
                raise
        else:
            code, detail = self._native.stop(), None
        if MsptiResult(code) != MsptiResult.MSPTI_SUCCESS:
            # A callback still running past the stop timeout and its grace was left running (see
            # the README): its callback object must never be freed.
            _abandoned.append((self._native, self._callbacks))
        result = self._result("stop", code, detail)
        self._drop_callbacks()
        _running.discard(self)
        return result

    def _drop_callbacks(self):
        with self._lock:
            callbacks, self._callbacks = self._callbacks, None
        self._release(callbacks)

    @staticmethod
    def _release(callbacks):
        if callbacks is not None:
            # From inside a callback, that callback is still on the stack of the native director:
            # the native side keeps it until the delivery thread is done with the buffer.
            native.keep_until_buffer_end(callbacks)

    # ----- process-wide settings: classmethods, callable on the class or on a monitor -----------
    @classmethod
    def flush_all(cls):
        """Delivers every record collected so far (of every running monitor), then returns.

        Process-wide: ``KernelMonitor.flush_all()`` or ``monitor.flush_all()``. From inside a
        callback it returns at once; the records follow once the callback has returned.
        On the main thread the wait can be interrupted: Ctrl-C raises KeyboardInterrupt at once
        and signal handlers run (delivery goes on in the background), however large the backlog.
        """
        if threading.current_thread() is not threading.main_thread() or native.on_delivery_thread():
            return BaseMonitor._result(cls, "flush_all", native.Monitor.flush_all())
        # The native wait runs on a native thread (never on a Python one: see py_interruptible.h);
        # this one waits in short steps and runs the signal handlers between them.
        return BaseMonitor._result(cls, "flush_all", *native.flush_all_interruptibly())

    @classmethod
    def flush_period(cls, time_ms):
        """Delivers partly filled buffers every ``time_ms`` milliseconds while collecting.

        Records then reach the callbacks during a long run, not only when a buffer fills or at
        stop(). Process-wide; 0 (the default) turns it off. ``time_ms`` is an int, 0..2**32-1.
        """
        if isinstance(time_ms, bool) or not isinstance(time_ms, int):
            return BaseMonitor._invalid(cls, f"flush_period: time_ms must be an int (ms), not {describe(time_ms)}")
        if not 0 <= time_ms <= _MAX_FLUSH_PERIOD_MS:
            return BaseMonitor._invalid(cls, f"flush_period: time_ms must be in 0..{_MAX_FLUSH_PERIOD_MS}, "
                                             f"not {time_ms}")
        return BaseMonitor._result(cls, "flush_period", native.Monitor.flush_period(time_ms))

    @classmethod
    def set_buffer_size(cls, size):
        """Sets the size of each activity buffer in MB (an int, 1..256; the default is 8 MB).

        Process-wide. Takes effect when collection next starts: called while a monitor runs, it
        logs a warning and the running monitors keep the current size until all have stopped.
        """
        if isinstance(size, bool) or not isinstance(size, int):
            return BaseMonitor._invalid(cls, f"set_buffer_size: size must be an int (MB), not {describe(size)}")
        if not 1 <= size <= MAX_BUFFER_SIZE_MB:
            return BaseMonitor._invalid(cls, f"set_buffer_size: size must be in 1..{MAX_BUFFER_SIZE_MB} MB, "
                                             f"not {size}")
        running = native.Monitor.any_running()
        result = BaseMonitor._result(cls, "set_buffer_size", native.Monitor.set_buffer_size(size))
        if running and result == MsptiResult.MSPTI_SUCCESS:
            logger.warning("%s.set_buffer_size: monitors are running; %d MB applies when collection next starts",
                           _name_of(cls), size)
        return result

    @classmethod
    def set_stop_timeout(cls, seconds):
        """Sets how long :meth:`stop` (and the stop at interpreter exit) waits for the records
        collected before it, in seconds (int or float, up to one day); None waits without bound.
        Process-wide: ``KernelMonitor.set_stop_timeout(5)`` or ``monitor.set_stop_timeout(5)``.
        Default 2 s, or ``MSPTI_STOP_TIMEOUT_MS`` (milliseconds) from the environment.
        """
        if seconds is None:
            return BaseMonitor._result(cls, "set_stop_timeout", _settings().set_stop_timeout(-1))
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            return BaseMonitor._invalid(cls, "set_stop_timeout: seconds must be a number or None, "
                                             f"not {describe(seconds)}")
        if not 0 <= seconds <= _MAX_STOP_TIMEOUT_S or math.isnan(seconds):
            return BaseMonitor._invalid(cls, f"set_stop_timeout: seconds must be in 0..{_MAX_STOP_TIMEOUT_S}, "
                                             f"not {seconds}")
        return BaseMonitor._result(cls, "set_stop_timeout", _settings().set_stop_timeout(int(round(seconds * 1000))))

    @classmethod
    def get_stop_timeout(cls):
        """The stop timeout in seconds (None: no bound); process-wide, on the class or a monitor."""
        ms = _settings().stop_timeout()
        return None if ms < 0 else ms / 1000

    # ----- state ------------------------------------------------------------------------------
    def is_running(self):
        """Whether start() succeeded and stop() has not been called since."""
        return self._native.is_running()

    def stats(self):
        """This monitor's counters: delivered records, callback errors, unpaired range halves dropped,
        and records of its kind dropped by libmspti since the monitor was created."""
        s = self._native.stats()
        return MonitorStats(int(s.delivered), int(s.callback_errors), int(s.unpaired_dropped), int(s.dropped))

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
        :class:`MsptiResult`; a non-callable callback gives MSPTI_ERROR_INVALID_PARAMETER (and a
        running monitor keeps its callback). On a running monitor it switches to ``callback``,
        as msPTI does; several monitors of one kind each get every record.
        """
        director = as_director(callback, self._INTERFACE, self._ADAPTER)
        if director is None:
            return self._invalid(f"start: callback must be callable, not {describe(callback)}")
        return self._start_with("start", (director,), lambda: self._native.start(director))


_MAX_STOP_TIMEOUT_S = native.Monitor.kMaxStopTimeoutMs // 1000


@atexit.register
def _stop_all():
    """At interpreter exit, before Python goes away: the native stop of every monitor, all within
    one stop timeout (the delivery thread leaves Python before it is finalised)."""
    if _running:
        native.Monitor.stop_all()
