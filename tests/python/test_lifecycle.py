"""Start/stop cycles without growth, interpreter exit with monitors running, both load modes."""

import os
import threading
import time

from mspti import KernelMonitor, MstxMonitor, MsptiResult, mstx

from conftest import run_code


def _rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def test_10000_start_stop_cycles_do_not_grow_memory_or_threads():
    m = MstxMonitor()
    seen = []
    for _ in range(500):  # warm-up: allocator pools, first delivery thread
        m.start(seen.append)
        mstx.mark("w")
        m.stop()
    threads = threading.active_count()
    tasks = len(os.listdir("/proc/self/task"))
    # Two halves of one run: what the first half still grows (pools settling on a loaded machine)
    # is not counted; a leak grows the second half as much as the first.
    rss = 0
    for i in range(10000):
        if i == 5000:
            rss = _rss_kb()
        assert m.start(seen.append) == MsptiResult.MSPTI_SUCCESS
        if i % 100 == 0:
            mstx.mark("c")
        assert m.stop() == MsptiResult.MSPTI_SUCCESS
    assert threading.active_count() == threads
    # stop() on the main thread waits on a detached native thread (Ctrl-C can interrupt it), which
    # may still be on its way out when stop() returns: wait, bounded, for the count to settle. A
    # leak would leave thousands (one per cycle), not one.
    for _ in range(10000):
        if len(os.listdir("/proc/self/task")) <= tasks:
            break
        time.sleep(0.001)
    assert len(os.listdir("/proc/self/task")) <= tasks
    assert _rss_kb() - rss < 2048, f"RSS grew from {rss} kB to {_rss_kb()} kB over 5000 cycles"
    assert len(seen) == 500 + 100


def test_interpreter_exit_without_stop_is_clean():
    code = """
import threading
from mspti import KernelMonitor, MstxMonitor, mstx
import vnpu
k = KernelMonitor(); k.start(lambda d: print("kernel", d.type, flush=True))
m = MstxMonitor(); m.start(lambda d: print("mark", d.name, flush=True))
x = vnpu.ones(4).npu(); y = x + x; vnpu.synchronize()
for i in range(1000):
    mstx.mark("bye")
# no stop(): atexit stops both and delivers what was collected
"""
    proc = run_code(code)
    lines = proc.stdout.splitlines()
    assert lines.count("mark bye") == 1000 and lines.count("kernel KERNEL_AIVEC") == 1, proc.stdout[-500:]
    assert proc.stderr == ""


def test_exit_while_a_callback_is_running_in_a_worker_thread_stopper():
    code = """
import threading
from mspti import MstxMonitor, mstx
m = MstxMonitor()
m.start(lambda d: sum(range(1000)))
def spam():
    for i in range(20000):
        mstx.mark("x")
t = threading.Thread(target=spam, daemon=True); t.start(); t.join()
"""
    proc = run_code(code)
    assert proc.returncode == 0 and proc.stderr == ""


def test_works_with_ld_preload_and_with_the_library_loaded_by_import():
    code = """
import os
from mspti import MstxMonitor, mstx
import mspti._loader as l
seen = []
m = MstxMonitor(); m.start(seen.append); mstx.mark("p"); m.stop()
print(len(seen), "preloaded" if "libmspti" in os.environ.get("LD_PRELOAD", "") else "imported")
"""
    assert run_code(code, preload=True).stdout.split() == ["1", "preloaded"]
    assert run_code(code, preload=False).stdout.split() == ["1", "imported"]


def test_hccl_monitor_needs_ld_preload():
    code = """
from mspti import HcclMonitor
print(HcclMonitor().start(print))
"""
    assert run_code(code, preload=False).stdout.strip() == "MsptiResult.MSPTI_ERROR_WITHOUT_LD_PRELOAD"
    assert run_code(code + "\n", preload=True).stdout.strip() == "MsptiResult.MSPTI_SUCCESS"


def test_monitor_as_context_manager_stops():
    with KernelMonitor() as k:
        assert k.start(print) == MsptiResult.MSPTI_SUCCESS and k.is_running()
    assert not k.is_running()
