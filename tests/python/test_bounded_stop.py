"""stop(), a signal handler's stop(), Ctrl-C and interpreter exit return within the stop timeout
(default 2 s) however large the backlog; what is left undelivered is counted as dropped, in the
monitor's stats and in libmspti's own counters.

Each scenario runs in a fresh interpreter: a slow callback (it sleeps ~0.1 ms per record, far
slower than a production callback) and 200,000 marks make a backlog that takes half a minute or
more to deliver in full. No duration is asserted (a loaded machine stretches any): that a stop
was bounded shows in the counts, records left undelivered and counted as dropped, where an
unbounded stop would have delivered them all; a stop that hangs fails at the run's timeout."""

import json

import pytest

from mspti import KernelMonitor, MstxMonitor, MsptiResult

from conftest import LIBMSPTI, run_code

BOUND = 2.0  # the default stop timeout, seconds

PRELUDE = f"""
import ctypes, json, os, signal, sys, threading, time
_lib = ctypes.CDLL({LIBMSPTI!r})

class _Stats(ctypes.Structure):
    _fields_ = [("produced", ctypes.c_uint64), ("delivered", ctypes.c_uint64), ("dropped", ctypes.c_uint64)]

def c_stats():
    s = _Stats()
    assert _lib.msptiExtActivityGetStats(1, ctypes.byref(s)) == 0  # MARKER
    return {{"produced": s.produced, "delivered": s.delivered, "dropped": s.dropped}}

from mspti import MstxMonitor, MsptiResult, mstx

def slow(record):
    time.sleep(0.0001)

def backlog(n=200000):
    for _ in range(n):
        mstx.mark("x")

def report(**kw):
    print("REPORT " + json.dumps(kw), flush=True)
"""


def _report(proc):
    for line in proc.stdout.splitlines():
        if line.startswith("REPORT "):
            return json.loads(line[len("REPORT "):])
    raise AssertionError(f"no report\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")


def _check_counts(r, produced=200000):
    stats, c = r["stats"], r["c"]
    assert stats["delivered"] + stats["dropped"] == produced, r
    assert stats["dropped"] > 0, r  # the backlog could not have been delivered within the bound
    assert c["produced"] == produced and c["delivered"] + c["dropped"] == c["produced"], r
    assert c["dropped"] == stats["dropped"], r  # the monitor's discards reach libmspti's counters


def test_stop_in_a_sigterm_handler_is_bounded():
    code = PRELUDE + """
m = MstxMonitor(); m.start(slow)
def on_term(sig, frame):
    r = m.stop()
    report(result=r.value, stats=m.stats()._asdict(), c=c_stats(), running=m.is_running())
    sys.exit(0)
signal.signal(signal.SIGTERM, on_term)
backlog()
os.kill(os.getpid(), signal.SIGTERM)
time.sleep(600)
"""
    r = _report(run_code(code, timeout=300))
    assert r["result"] == 0 and not r["running"]
    _check_counts(r)


def test_ctrl_c_with_a_backlog_exits_within_the_bound():
    # The atexit hook registered before mspti's runs after it: it sees what the exit stop did.
    code = """
import atexit, json
def after():
    report(stats=m.stats()._asdict(), c=c_stats(), running=m.is_running())
atexit.register(after)
""" + PRELUDE + """
m = MstxMonitor(); m.start(slow)
backlog()
os.kill(os.getpid(), signal.SIGINT)
time.sleep(600)
"""
    proc = run_code(code, timeout=300, check=False)
    assert "KeyboardInterrupt" in proc.stderr, proc.stderr[-2000:]
    r = _report(proc)
    assert not r["running"]
    _check_counts(r)


def test_interpreter_exit_stops_every_monitor_within_one_bound():
    code = """
import atexit
def after():
    report(a=a.stats()._asdict(), b=b.stats()._asdict(), c=c_stats())
atexit.register(after)
""" + PRELUDE + """
a = MstxMonitor(); a.start(slow)
b = MstxMonitor(); b.start(slow)
backlog()
"""
    proc = run_code(code, timeout=300)
    r = _report(proc)
    for s in (r["a"], r["b"]):
        assert s["delivered"] + s["dropped"] == 200000 and s["dropped"] > 0, r
    # Two monitors share each record: libmspti counts it dropped when neither got it.
    assert r["c"]["delivered"] + r["c"]["dropped"] == r["c"]["produced"] == 200000, r
    assert 0 < r["c"]["dropped"] <= min(r["a"]["dropped"], r["b"]["dropped"]), r


def test_stop_from_another_thread_is_bounded():
    code = PRELUDE + """
m = MstxMonitor(); m.start(slow)
backlog()
out = {}
def stopper():
    out["result"] = m.stop().value
th = threading.Thread(target=stopper); th.start(); th.join()
report(result=out["result"], stats=m.stats()._asdict(), c=c_stats())
"""
    r = _report(run_code(code, timeout=300))
    assert r["result"] == 0, r
    _check_counts(r)


def test_stop_from_inside_the_callback_drops_the_rest_and_returns_at_once():
    code = PRELUDE + """
m = MstxMonitor()
calls = []
def cb(record):
    calls.append(1)
    if len(calls) == 10:
        calls.append(m.stop().value)
m.start(cb)
mstx.mark("first")
m.flush_all()
backlog(199999)
m.flush_all()  # the records after the stop reach the queue and are discarded
report(result=calls[10], stats=m.stats()._asdict(), c=c_stats(), running=m.is_running())
"""
    r = _report(run_code(code, timeout=300))
    assert not r["running"] and r["result"] == 0, r
    assert r["stats"]["delivered"] == 10, r
    # The monitor stopped after the 10th record: what it had collected by then and not received
    # is dropped; records produced after its stop were never collected.
    assert r["stats"]["dropped"] == r["c"]["dropped"], r
    assert r["c"]["delivered"] + r["c"]["dropped"] == r["c"]["produced"], r


def test_stop_timeout_setting_and_environment_variable():
    m = MstxMonitor()
    assert m.get_stop_timeout() == BOUND
    assert m.set_stop_timeout(0.25) == MsptiResult.MSPTI_SUCCESS and m.get_stop_timeout() == 0.25
    assert m.set_stop_timeout(None) == MsptiResult.MSPTI_SUCCESS and m.get_stop_timeout() is None
    for bad in (-1, "2", True, float("nan"), 86401):
        assert m.set_stop_timeout(bad) == MsptiResult.MSPTI_ERROR_INVALID_PARAMETER
    assert m.set_stop_timeout(BOUND) == MsptiResult.MSPTI_SUCCESS
    # On the class, as the other process-wide settings: the same results, the same setting.
    for cls in (MstxMonitor, KernelMonitor):
        assert cls.set_stop_timeout(-3) == MsptiResult.MSPTI_ERROR_INVALID_PARAMETER
        assert cls.set_stop_timeout(0.5) == MsptiResult.MSPTI_SUCCESS
        assert m.get_stop_timeout() == 0.5 and cls.get_stop_timeout() == 0.5
        assert cls.set_stop_timeout(BOUND) == MsptiResult.MSPTI_SUCCESS and m.get_stop_timeout() == BOUND

    code = PRELUDE + """
m = MstxMonitor()
print("TIMEOUT", m.get_stop_timeout(), flush=True)
m.start(slow)
backlog()
m.stop()
report(stats=m.stats()._asdict(), c=c_stats())
"""
    proc = run_code(code, timeout=300, env={"MSPTI_STOP_TIMEOUT_MS": "0"})
    assert "TIMEOUT 0.0" in proc.stdout
    r = _report(proc)
    _check_counts(r)  # a 0 ms bound: nearly all of it dropped


def test_unbounded_stop_still_delivers_everything():
    code = PRELUDE + """
m = MstxMonitor(); m.set_stop_timeout(None); m.start(slow)
backlog(2000)
m.stop()
report(stats=m.stats()._asdict(), c=c_stats())
"""
    r = _report(run_code(code, timeout=300, env={"MSPTI_STOP_TIMEOUT_MS": "1"}))
    assert r["stats"]["delivered"] == 2000 and r["stats"]["dropped"] == 0 and r["c"]["dropped"] == 0, r


def test_stop_in_a_signal_handler_that_interrupted_the_monitors_own_bookkeeping():
    # The handler runs at a bytecode boundary of the main thread, possibly while it holds the
    # monitor's lock (start() storing its callbacks).
    code = PRELUDE + """
m = MstxMonitor()
done = []
signal.signal(signal.SIGTERM, lambda sig, frame: done.append(m.stop().value))
for _ in range(2):
    m.start(slow)
    with m._lock:
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(100):  # the handler runs here, with the lock held
            pass
report(done=done, running=m.is_running())
"""
    r = _report(run_code(code, timeout=60))
    assert r == {"done": [0, 0], "running": False}, r


def test_ctrl_c_during_flush_all_with_a_backlog_exits_within_the_bound():
    # The atexit hook registered before mspti's runs after it: it sees what the exit stop did.
    code = """
import atexit
def after():
    report(stats=m.stats()._asdict(), c=c_stats(), running=m.is_running())
atexit.register(after)
""" + PRELUDE + """
main = threading.main_thread().ident
seen = [0]
def cb(record):
    seen[0] += 1
    if seen[0] == 1000:  # the flush below is under way: Ctrl-C
        signal.pthread_kill(main, signal.SIGINT)
    time.sleep(0.0001)
m = MstxMonitor(); m.set_buffer_size(1); m.start(cb)
backlog()
m.flush_all()
print("flush returned", flush=True)
"""
    proc = run_code(code, timeout=300, check=False)
    assert "KeyboardInterrupt" in proc.stderr and "flush returned" not in proc.stdout, proc.stderr[-2000:]
    assert proc.returncode in (-2, 130), (proc.returncode, proc.stderr[-2000:])  # SIGINT, not an abort
    r = _report(proc)
    assert not r["running"]
    _check_counts(r)  # the exit did not deliver the whole backlog
