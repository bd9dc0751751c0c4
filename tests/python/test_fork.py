"""A running Monitor across fork(): multiprocessing children (fork start method, DataLoader-like
pool workers) forked while a thread records and the delivery thread delivers never deadlock,
keep the running monitor, and receive exactly their own records through its callback."""

from conftest import run_code

CHILDREN = """
import multiprocessing as mp, os, threading
from mspti import MstxMonitor, MsptiResult, mstx

pids = []
monitor = MstxMonitor()
assert monitor.start(lambda m: pids.append(m.object_id.process_id)) == MsptiResult.MSPTI_SUCCESS
stop = threading.Event()

def produce():  # paced: the parent's Python callback must keep up for flush_all() to be quick
    while not stop.wait(0.001):
        for _ in range(50):
            mstx.mark("parent")

def work(_):
    del pids[:]
    for _ in range(2000):
        mstx.mark("child")
    assert monitor.flush_all() == MsptiResult.MSPTI_SUCCESS
    me = os.getpid()
    own = sum(1 for p in pids if p == me)
    return own, len(pids) - own

def run_and_exit():
    os._exit(0 if work(0) == (2000, 0) else 1)

producer = threading.Thread(target=produce)
producer.start()
ctx = mp.get_context("fork")
with ctx.Pool(4) as pool:  # workers forked while the producer records
    results = pool.map_async(work, range(24), chunksize=1).get(timeout=60)
assert results == [(2000, 0)] * 24, results
for _ in range(8):
    monitor.flush_all()  # forked in the middle of deliveries too
    p = ctx.Process(target=run_and_exit)
    p.start()
    p.join(timeout=30)
    assert p.exitcode == 0, f"child exit code {p.exitcode} (None: it hung)"
stop.set()
producer.join()
assert monitor.stop() == MsptiResult.MSPTI_SUCCESS
assert set(pids) == {os.getpid()}, "the parent received a child's records"
print("ok")
"""


def test_forked_children_of_a_running_monitor_get_exactly_their_own_records():
    proc = run_code(CHILDREN, timeout=180)
    assert proc.stdout.strip().endswith("ok"), proc.stdout + proc.stderr


def test_a_child_can_stop_and_restart_the_inherited_monitor():
    code = """
import multiprocessing as mp, os
from mspti import MstxMonitor, MsptiResult, mstx

seen = []
monitor = MstxMonitor()
assert monitor.start(seen.append) == MsptiResult.MSPTI_SUCCESS
mstx.mark("parent")

def child():
    del seen[:]
    ok = monitor.stop() == MsptiResult.MSPTI_SUCCESS and seen == []  # nothing of the parent's
    ok = ok and monitor.start(seen.append) == MsptiResult.MSPTI_SUCCESS
    mstx.mark("child")
    ok = ok and monitor.stop() == MsptiResult.MSPTI_SUCCESS
    ok = ok and [m.name for m in seen] == ["child"] and seen[0].object_id.process_id == os.getpid()
    os._exit(0 if ok else 1)

p = mp.get_context("fork").Process(target=child)
p.start()
p.join(timeout=30)
assert p.exitcode == 0, p.exitcode
assert monitor.stop() == MsptiResult.MSPTI_SUCCESS
assert [m.name for m in seen] == ["parent"]
print("ok")
"""
    proc = run_code(code, timeout=120)
    assert proc.stdout.strip().endswith("ok"), proc.stdout + proc.stderr
