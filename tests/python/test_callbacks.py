"""Callback delivery: owned records, fan-out, exceptions, stop from a callback or another thread,
callback lifetime, persistent thread state (docs/architecture.md)."""

import gc
import pickle
import threading
import weakref

import pytest

import mspti
from mspti import MarkerData, MstxMonitor, MsptiResult, RangeMarkerData, mstx

from conftest import run_code

OK = MsptiResult.MSPTI_SUCCESS


def test_records_are_owned_values_after_the_callback():
    """Pitfall: non-owning record proxies. Kept records still hold their own values afterwards."""
    marks = []
    m = MstxMonitor()
    assert m.start(marks.append) == OK
    for i in range(100):
        mstx.mark(f"m{i}")
    assert m.stop() == OK
    assert [r.name for r in marks] == [f"m{i}" for i in range(100)]
    assert len({r.id for r in marks}) == 100
    r = marks[0]
    assert type(r) is MarkerData and r.domain == "default"
    assert r.object_id.process_id > 0 and r.object_id.device_id == -1
    assert pickle.loads(pickle.dumps(r)) == r
    assert r == MarkerData(*r) and r != tuple(r) and r != marks[1]
    assert repr(r).startswith("MarkerData(kind=<MsptiActivityKind.MSPTI_ACTIVITY_KIND_MARKER: 1>, flag=")


def test_subclass_of_the_callback_class():
    class Ranges(mspti.RangeCallback):
        def __init__(self):
            super().__init__()
            self.seen = []

        def on_record(self, data):
            self.seen.append(data)

    cb = Ranges()
    m = MstxMonitor()
    assert m.start(range_cb=cb) == OK
    with mstx.range("r"):
        pass
    m.stop()
    assert [type(r) for r in cb.seen] == [RangeMarkerData] and cb.seen[0].name == "r"
    assert cb.seen[0].end >= cb.seen[0].start > 0


def test_fan_out_to_two_monitors_of_one_kind():
    a, b = [], []
    m1, m2 = MstxMonitor(), MstxMonitor()
    assert m1.start(a.append) == OK and m2.start(b.append) == OK
    for i in range(50):
        mstx.mark(f"x{i}")
    m1.stop()
    m2.stop()
    assert [r.name for r in a] == [r.name for r in b] == [f"x{i}" for i in range(50)]
    assert a == b


def test_exception_in_callback_is_reported_counted_and_delivery_goes_on(unraisable):
    got = []

    def cb(data):
        if data.name.endswith("3"):
            raise ValueError(f"boom {data.name}")
        got.append(data.name)

    m = MstxMonitor()
    m.start(cb)
    for i in range(20):
        mstx.mark(f"e{i}")
    m.stop()
    assert len(got) == 18  # e3 and e13 raised
    assert m.stats().callback_errors == 2 and m.stats().delivered == 20
    assert [(t, msg) for t, msg, _, _ in unraisable] == [(ValueError, "boom e3"), (ValueError, "boom e13")]
    tb = unraisable[0][2]
    assert tb is not None and tb.tb_frame.f_code.co_name in ("cb", "on_record")  # the Python traceback


def test_stop_from_inside_the_callback():
    seen = []
    m = MstxMonitor()

    class Callback:
        def __call__(self, data):
            seen.append(data.name)
            if data.name == "stop-here":
                assert m.stop() == OK

    cb = Callback()
    released = weakref.ref(cb)
    m.start(cb)
    del cb
    mstx.mark("before")
    mstx.mark("stop-here")
    m.flush_all()
    assert not m.is_running()
    mstx.mark("after")
    m.stop()
    assert seen == ["before", "stop-here"]
    # Kept while its buffer was delivered, released once the delivery thread was done with it.
    gc.collect()
    assert released() is None
    assert m.start(Callback()) == OK  # restartable
    m.stop()


def test_a_callback_stopped_from_inside_is_kept_until_its_buffer_is_done():
    """Its director is still on the delivery thread's stack when it returns: released after the buffer."""
    m, other = MstxMonitor(), MstxMonitor()
    alive = []

    def cb(data):
        if data.name == "stop-here":
            m.stop()

    def watch(data):
        if data.name == "next":  # same buffer, after cb's stop() returned
            gc.collect()
            alive.append(director() is not None)

    m.start(cb)
    other.start(watch)
    director = weakref.ref(m._callbacks[0])
    del cb
    mstx.mark("stop-here")
    mstx.mark("next")
    other.flush_all()
    other.stop()
    gc.collect()
    assert alive == [True]
    assert director() is None


def test_stop_from_another_thread_while_records_stream():
    """Pitfall: deadlock in stop. stop() releases the GIL while callbacks need it."""
    m = MstxMonitor()
    started = threading.Event()
    count = [0]

    def cb(data):
        count[0] += 1
        started.set()
        sum(range(50))  # keep the GIL busy

    m.start(cb)
    producing = threading.Event()
    producing.set()

    def produce():
        while producing.is_set():
            mstx.mark("s")

    producer = threading.Thread(target=produce)
    producer.start()
    m.flush_all()
    while not started.wait(0.01):
        m.flush_all()
    stopper = threading.Thread(target=m.stop)
    stopper.start()
    stopper.join(30)
    producing.clear()
    producer.join()
    assert not stopper.is_alive(), "stop() deadlocked"
    assert not m.is_running() and count[0] > 0
    n = count[0]
    mstx.mark("late")
    m.flush_all()
    assert count[0] == n


def test_callback_is_kept_alive_while_registered_and_released_after_stop():
    """Pitfall: borrowed callbacks. The monitor holds the only reference while running."""
    seen = []

    class Cb:
        def __call__(self, data):
            seen.append(data.name)

    cb = Cb()
    ref = weakref.ref(cb)
    m = MstxMonitor()
    m.start(cb)
    del cb
    gc.collect()
    assert ref() is not None
    mstx.mark("alive")
    m.stop()
    gc.collect()
    assert seen == ["alive"] and ref() is None


def test_failed_start_keeps_the_running_callback():
    first, second = [], []
    m = MstxMonitor()
    assert m.start(first.append) == OK
    assert m.start(42, "not callable") == MsptiResult.MSPTI_ERROR_INVALID_PARAMETER
    gc.collect()
    mstx.mark("one")
    m.stop()
    assert [r.name for r in first] == ["one"] and second == []


def test_delivery_thread_state_is_persistent():
    """Pitfall: per-call thread state. threading.local survives from one callback to the next."""
    local = threading.local()
    idents = set()
    counts = []

    def cb(data):
        local.n = getattr(local, "n", 0) + 1
        idents.add((threading.get_ident(), threading.current_thread().name))
        if data.name == "probe":
            counts.append(local.n)

    m = MstxMonitor()
    m.start(cb)
    for _ in range(500):
        mstx.mark("t")
    # Still in the same session: the probe's callback reads the count left by the 500 before it.
    mstx.mark("probe")
    m.stop()
    assert len(idents) == 1 and next(iter(idents))[0] != threading.get_ident()
    # A fresh thread state per call would give 1.
    assert counts == [501]


def test_callbacks_run_concurrently_with_python_on_the_main_thread():
    """Pitfall: missing -threads. Callbacks and main-thread Python run together without crashing."""
    code = r"""
import threading
from mspti import MstxMonitor, mstx
n = [0]
def cb(d):
    n[0] += 1
    [str(i) for i in range(20)]
m = MstxMonitor(); m.start(cb)
stop = threading.Event()
def busy():
    while not stop.is_set():
        {i: [i] for i in range(50)}
t = threading.Thread(target=busy); t.start()
for i in range(20000):
    mstx.mark("c")
    if i % 2000 == 0:
        m.flush_all()
m.stop(); stop.set(); t.join()
assert n[0] == 20000, n[0]
print("ok")
"""
    assert run_code(code, timeout=120).stdout.strip() == "ok"
