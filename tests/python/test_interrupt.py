"""Ctrl-C while the main thread waits in flush_all() or stop() behind a slow or stuck callback:
the KeyboardInterrupt reaches the program and the process exits normally (never an abort), and
stop() returns past its timeout and grace even while a callback never returns.

Each scenario runs in a fresh interpreter. The parent sends SIGINT only once the child said its
callback is running, so the signal always lands inside the wait. No duration is asserted: a wait
that Ctrl-C cannot interrupt, or a stop() that does not return, shows as the child never
finishing within a generous bound (60 s)."""

import json
import os
import signal
import subprocess
import sys

from conftest import LIBMSPTI

HANG = 60  # seconds: only a hung child takes this long

PRELUDE = f"""
import ctypes, json, os, sys, threading, time
_lib = ctypes.CDLL({LIBMSPTI!r})

class _Stats(ctypes.Structure):
    _fields_ = [("produced", ctypes.c_uint64), ("delivered", ctypes.c_uint64), ("dropped", ctypes.c_uint64)]

def c_stats():
    s = _Stats()
    assert _lib.msptiExtActivityGetStats(1, ctypes.byref(s)) == 0  # MARKER
    return {{"produced": s.produced, "delivered": s.delivered, "dropped": s.dropped}}

from mspti import MstxMonitor, MsptiResult, mstx

def report(**kw):
    print("REPORT " + json.dumps(kw), flush=True)
"""


def _spawn(code):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    return subprocess.Popen([sys.executable, "-c", PRELUDE + code], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _interrupt_when(proc, marker):
    """Sends SIGINT once the child printed `marker`; returns (returncode, stdout, stderr)."""
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if line.strip() == marker:
            proc.send_signal(signal.SIGINT)
            break
    try:
        out, err = proc.communicate(timeout=HANG)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"the child did not finish within {HANG} s after Ctrl-C\n{''.join(seen)}{out}\n{err}")
    return proc.returncode, "".join(seen) + out, err


def _report(out):
    for line in out.splitlines():
        if line.startswith("REPORT "):
            return json.loads(line[len("REPORT "):])
    return None


def _exited_normally(rc, err):
    # An uncaught KeyboardInterrupt ends Python with SIGINT (-2 here, 130 in a shell).
    assert rc in (0, -signal.SIGINT, 130), f"exit status {rc}\n{err[-3000:]}"
    assert "terminate called" not in err and "Fatal Python error" not in err, err[-3000:]


def test_ctrl_c_in_flush_all_behind_a_slow_callback_exits_normally():
    code = """
def slow(record):
    print("IN", flush=True)
    time.sleep(0.3)
m = MstxMonitor(); m.start(slow)
for _ in range(100):
    mstx.mark("x")
m.flush_all()
print("FLUSHED", flush=True)
"""
    for _ in range(3):
        rc, out, err = _interrupt_when(_spawn(code), "IN")
        _exited_normally(rc, err)
        assert "KeyboardInterrupt" in err, err[-3000:]
        assert "FLUSHED" not in out


def test_ctrl_c_in_flush_all_can_be_caught_and_the_program_goes_on():
    code = """
def slow(record):
    print("IN", flush=True)
    time.sleep(0.3)
m = MstxMonitor(); m.start(slow)
for _ in range(100):
    mstx.mark("x")
try:
    m.flush_all()
    report(caught=False)
except KeyboardInterrupt:
    report(caught=True)
"""
    rc, out, err = _interrupt_when(_spawn(code), "IN")
    _exited_normally(rc, err)
    assert rc == 0 and _report(out) == {"caught": True}, out + err[-3000:]


def test_ctrl_c_interrupts_an_unbounded_stop_behind_a_stuck_callback():
    code = """
never = threading.Event()
def stuck(record):
    print("IN", flush=True)
    never.wait()
m = MstxMonitor(); m.set_stop_timeout(None); m.start(stuck)
mstx.mark("x")
MstxMonitor.flush_period(1)
try:
    m.stop()
    report(caught=False)
except KeyboardInterrupt:
    report(caught=True)
"""
    rc, out, err = _interrupt_when(_spawn(code), "IN")
    _exited_normally(rc, err)
    assert _report(out) == {"caught": True}, out + err[-3000:]


def test_stop_returns_while_a_callback_never_returns():
    # The callback blocks until the program releases it, which it does only after stop() returned:
    # a stop() that waited for the callback would never return (the child is then killed at HANG).
    code = """
release = threading.Event()
entered = threading.Event()
calls = []
def stuck(record):
    calls.append(1)
    entered.set()
    release.wait()
m = MstxMonitor(); m.set_stop_timeout(0.1); m.start(stuck)
for _ in range(1000):
    mstx.mark("x")
MstxMonitor.flush_period(1)
entered.wait()
result = m.stop()
stopped = {"result": result.value, "running": m.is_running(), "calls": len(calls)}
release.set()
# Once the callback returned, the records it was not handed are counted as dropped.
for _ in range(60000):
    s = m.stats()
    if s.delivered + s.dropped == 1000:
        break
    time.sleep(0.001)
report(stopped=stopped, stats=m.stats()._asdict(), c=c_stats(), calls=len(calls))
"""
    proc = _spawn(code)
    try:
        out, err = proc.communicate(timeout=HANG)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"stop() did not return while the callback was blocked\n{out}\n{err[-3000:]}")
    assert proc.returncode == 0, err[-3000:]
    r = _report(out)
    assert r["stopped"]["running"] is False, r
    assert r["stopped"]["calls"] == 1 and r["calls"] == 1, r  # never called again after stop()
    assert r["stopped"]["result"] != 0, r  # it says the callback was left running
    assert r["stats"]["delivered"] == 1 and r["stats"]["dropped"] == 999, r
    assert r["c"]["delivered"] + r["c"]["dropped"] == r["c"]["produced"] == 1000, r


def test_start_on_a_running_monitor_returns_while_its_old_callback_never_returns():
    # start() switches callbacks and waits for the old one's call in progress, bounded as stop() is:
    # the old callback is released by the program only after start() returned.
    code = """
release = threading.Event()
entered = threading.Event()
old_calls, new_calls = [], []
def stuck(record):
    old_calls.append(1)
    entered.set()
    release.wait()
m = MstxMonitor(); m.set_stop_timeout(0.1); m.start(stuck)
mstx.mark("x")
MstxMonitor.flush_period(1)
entered.wait()
result = m.start(lambda record: new_calls.append(record.name))
switched = {"result": result.value, "running": m.is_running()}
release.set()
mstx.mark("after")
for _ in range(60000):
    if new_calls:
        break
    time.sleep(0.001)
m.stop()
report(switched=switched, old=len(old_calls), new=new_calls)
"""
    proc = _spawn(code)
    try:
        out, err = proc.communicate(timeout=HANG)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"start() did not return while the old callback was blocked\n{out}\n{err[-3000:]}")
    assert proc.returncode == 0, err[-3000:]
    r = _report(out)
    assert r["switched"]["result"] != 0 and r["switched"]["running"] is True, r  # it says the old one was left running
    assert r["old"] == 1, r  # never called again after the switch
    assert r["new"] == ["after"], r
