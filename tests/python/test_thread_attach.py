"""The delivery thread attaches to the interpreter before start() returns.

CPython 3.11's tracemalloc crashes a thread that creates its Python thread state (the delivery
thread's PyGILState_Ensure) while another thread stops tracing: the allocator hook writes to the
tables tracemalloc.stop() freed (fixed in later CPythons). This was the rare SIGSEGV of
test_mstx_fast (a native thread with no Python frame, in PyThreadState_New under
on_thread_start, around test_a_marker_allocates_nothing's tracemalloc calls). Each scenario runs
in a fresh interpreter: a crash is its exit status."""

from conftest import run_code

SCRIPT = """
import tracemalloc
from mspti import MstxMonitor, mstx
for i in range(2000):
    m = MstxMonitor()
    m.start(lambda r: None)  # a new delivery thread each time: the last monitor stopped
    for _ in range(20):
        tracemalloc.start()
        mstx.mark("x")
        tracemalloc.stop()
    m.stop()
print("ok")
"""


def test_tracemalloc_toggled_right_after_start_does_not_crash_the_delivery_thread():
    for _ in range(3):
        proc = run_code(SCRIPT, timeout=300, check=False)
        assert proc.returncode == 0 and proc.stdout.strip() == "ok", (proc.returncode, proc.stderr[-2000:])
