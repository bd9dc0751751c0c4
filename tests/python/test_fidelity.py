"""Behaviour users of msPTI's Python package depend on: process-wide classmethods, flush_period,
start() on a running monitor, MstxMonitor with one callback, dropped records in stats(), mstx
input errors of our own, signatures, __version__ and dir(mspti)."""

import inspect
import logging
import re
import threading
import time

import pytest

import mspti
from mspti import KernelMonitor, MstxMonitor, MsptiResult, mstx
from mspti.monitor import _kinds

from conftest import run_code

OK = MsptiResult.MSPTI_SUCCESS
INVALID = MsptiResult.MSPTI_ERROR_INVALID_PARAMETER


# ---- process-wide calls -----------------------------------------------------------------------

@pytest.mark.parametrize("owner", [KernelMonitor, MstxMonitor, KernelMonitor()], ids=["class", "mstx", "instance"])
def test_process_wide_calls_work_on_the_class_and_on_an_instance(owner):
    assert owner.set_buffer_size(8) == OK
    assert owner.flush_all() == OK
    assert owner.flush_period(0) == OK
    assert owner.set_buffer_size(0) == INVALID


@pytest.mark.parametrize("name", [n for n in _kinds.MONITORS if n != "HcclMonitor"])
def test_every_generated_monitor_switches_and_keeps_its_callback_on_bad_input(name):
    """The monitors generated from schema/records.py (ApiMonitor too) behave as KernelMonitor."""
    cls = getattr(mspti, name)
    assert cls.flush_period(0) == OK and cls.set_buffer_size(0) == INVALID
    assert "switches" in cls.__doc__
    m = cls()
    assert m.start(lambda d: None) == OK
    assert m.start(lambda d: None) == OK and m.is_running()
    assert m.start("not callable") == INVALID and m.is_running()
    assert cls.flush_all() == OK
    assert m.stop() == OK and not m.is_running()
    assert m.stats().dropped == 0


@pytest.mark.parametrize("value,why", [(-1, "0..4294967295"), (2**32, "0..4294967295"), (True, "int"),
                                       (1.5, "int"), ("10", "int"), (None, "int")])
def test_flush_period_rejects_what_is_not_a_ms_count(value, why, caplog):
    with caplog.at_level(logging.ERROR, logger="mspti"):
        assert KernelMonitor.flush_period(value) == INVALID
    assert why in caplog.text and "flush_period" in caplog.text


def test_flush_period_delivers_during_a_long_run():
    """A loop that keeps running gets its records while it runs, not only at stop()."""
    seen = threading.Event()
    seen_while_running = []
    m = MstxMonitor()
    assert MstxMonitor.flush_period(100) == OK
    try:
        assert m.start(lambda d: (seen_while_running.append(m.is_running()), seen.set())) == OK
        deadline = time.monotonic() + 60  # bounds a failure; a pass takes about one period
        while not seen.is_set() and time.monotonic() < deadline:
            mstx.mark("step")  # the workload: a step, then the next one
            seen.wait(0.02)
        assert seen.is_set(), "no record reached the callback while the loop ran"
        assert m.is_running()
        m.stop()
    finally:
        MstxMonitor.flush_period(0)
    assert seen_while_running[0] is True


def test_set_buffer_size_while_running_warns_and_applies_at_the_next_start(caplog):
    m = MstxMonitor()
    assert m.start(lambda d: None) == OK
    with caplog.at_level(logging.WARNING, logger="mspti"):
        assert MstxMonitor.set_buffer_size(16) == OK
    m.stop()
    assert "next start" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="mspti"):
        assert MstxMonitor.set_buffer_size(8) == OK
    assert caplog.text == ""
    assert "8 MB" in KernelMonitor.set_buffer_size.__doc__


# ---- start() ------------------------------------------------------------------------------------

def test_start_on_a_running_monitor_switches_to_the_new_callback():
    first, second = [], []
    m = MstxMonitor()
    assert m.start(first.append) == OK
    mstx.mark("one")
    assert m.flush_all() == OK
    assert m.start(second.append) == OK
    assert m.is_running()
    mstx.mark("two")
    assert m.stop() == OK
    assert [r.name for r in first] == ["one"] and [r.name for r in second] == ["two"]


def test_start_from_inside_the_callback_switches_too():
    first, second = [], []
    m = MstxMonitor()

    def switch(data):
        first.append(data.name)
        if len(first) == 1:
            assert m.start(lambda d: second.append(d.name)) == OK

    assert m.start(switch) == OK
    mstx.mark("a")
    m.flush_all()
    mstx.mark("b")
    m.stop()
    assert first == ["a"] and second == ["b"]


def test_mstx_monitor_accepts_a_single_callable():
    marks, ranges = [], []
    m = MstxMonitor()
    assert m.start(range_cb=ranges.append) == OK
    mstx.range_end(mstx.range_start("r"))
    mstx.mark("not delivered")
    m.stop()
    assert [r.name for r in ranges] == ["r"]
    assert m.start(marks.append) == OK
    mstx.mark("m")
    m.stop()
    assert [r.name for r in marks] == ["m"]


def test_mstx_monitor_ignores_a_non_callable_beside_a_callable(caplog):
    ranges = []
    m = MstxMonitor()
    with caplog.at_level(logging.WARNING, logger="mspti"):
        assert m.start("not callable", ranges.append) == OK
    mstx.range_end(mstx.range_start("r"))
    m.stop()
    assert [r.name for r in ranges] == ["r"] and "mark_cb is not callable" in caplog.text
    assert m.start(None, None) == INVALID and m.start(1, 2) == INVALID


def test_stats_carry_the_records_dropped_of_the_monitors_kind():
    # In a fresh process: the drops of a kind are process-wide.
    out = run_code(
        "import time\n"
        "from mspti import KernelMonitor, MstxMonitor, mstx\n"
        "m, idle, k = MstxMonitor(), MstxMonitor(), KernelMonitor()\n"
        "def slow(d):\n"
        "    t = time.perf_counter()\n"
        "    while time.perf_counter() - t < 5e-5: pass\n"
        "m.set_stop_timeout(0.01)\n"
        "m.start(slow)\n"
        "for _ in range(20000): mstx.mark('backlog')\n"
        "m.stop()\n"  # the backlog no monitor received: dropped MARKER records in libmspti
        "s = m.stats()\n"
        "print(s.dropped, s.delivered, idle.stats().dropped, k.stats().dropped, MstxMonitor().stats().dropped)\n"
    ).stdout
    dropped, delivered, idle_dropped, kernel_dropped, later = map(int, out.split())
    assert dropped >= 100 and dropped + delivered == 20000
    assert idle_dropped == dropped  # shared by the monitors of the kind
    assert kernel_dropped == 0 and later == 0
    assert mspti.MonitorStats._fields[-1] == "dropped"


# ---- mstx input -----------------------------------------------------------------------------------

@pytest.mark.parametrize("call,name", [(lambda: mstx.mark(123), "message"),
                                       (lambda: mstx.range_start(b"x"), "message"),
                                       (lambda: mstx.range_end("1"), "range_id"),
                                       (lambda: mstx.Domain("d").mark(None), "message")])
def test_mstx_type_errors_name_the_argument(call, name):
    with pytest.raises(TypeError) as err:
        call()
    assert name in str(err.value) and "argument 1 of type" not in str(err.value)


def test_a_name_of_255_bytes_or_more_is_logged_and_not_recorded(caplog):
    marks = []
    m = MstxMonitor()
    m.start(marks.append)
    with caplog.at_level(logging.WARNING, logger="mspti"):
        mstx.mark("x" * 255)
        assert mstx.range_start("é" * 128) == 0  # 256 bytes in UTF-8
        mstx.mark("x" * 254)
    m.stop()
    assert [len(r.name) for r in marks] == [254]
    assert caplog.text.count("it is not recorded") == 2 and "255 bytes" in caplog.text


def test_an_invalid_stream_handle_is_rejected_with_a_message():
    out = run_code(
        "import vnpu\n"
        "from mspti import MstxMonitor, mstx\n"
        "m = MstxMonitor(); marks = []\n"
        "m.start(marks.append)\n"
        "for call in (lambda: mstx.mark('m', 0xdead0), lambda: mstx.range_start('r', 0xdead0)):\n"
        "    try:\n"
        "        call(); print('accepted')\n"
        "    except ValueError as e:\n"
        "        print('rejected:', e)\n"
        "mstx.mark('host', vnpu.current_stream())\n"
        "vnpu.synchronize(); m.stop()\n"
        "print(sorted({r.name for r in marks if r.name}))\n").stdout
    lines = out.splitlines()
    assert lines[0].startswith("rejected: mark(): stream 912080") and "stream" in lines[0]
    assert lines[1].startswith("rejected: range_start(): stream")
    assert lines[2] == "['host']"


def test_mstx_functions_have_signatures_and_docstrings():
    assert str(inspect.signature(mstx.mark)) == "(message, stream=None)"
    assert str(inspect.signature(mstx.range_start)) == "(message, stream=None)"
    assert str(inspect.signature(mstx.range_end)) == "(range_id)"
    for fn in (mstx.mark, mstx.range_start, mstx.range_end):
        assert fn.__doc__ and fn.__module__ == "mspti.mstx"
    assert "range_end" in mstx.range_start.__doc__


# ---- introspection --------------------------------------------------------------------------------

def test_version_and_dir():
    assert re.fullmatch(r"\d+\.\d+\.\d+", mspti.__version__)
    names = dir(mspti)
    for internal in ("native", "_native", "_paths", "_loader", "_ctypes"):
        assert internal not in names
    for public in mspti.__all__ + ["mstx", "batch", "__version__", "KernelCallback", "ApiMonitor", "ApiData",
                                   "ApiCallback"]:
        assert public in names
