"""Per-record delivery to a Python callback, with whichever mspti package is first on the path (ours, or
msPTI's own on its library): an MstxMonitor with a mark callback that counts, COUNT marks made in C
(mark_loop, loaded with ctypes) into one 256 MB buffer, then flush_all() timed until every record
reached the callback. Prints one JSON object.

Usage: python_delivery.py <mark_loop.so> <count>
"""
import ctypes
import json
import os
import sys
import threading
import time

import mspti

# As torch_npu's import of CANN's runtime does: libprofapi global, so that the mstx header finds the
# InitInjectionMstx it exports (msPTI's library exports none; tests/upstream/guide_capture.py).
ctypes.CDLL(os.path.join(os.environ["ASCEND_HOME_PATH"], "lib64", "libprofapi.so"), mode=ctypes.RTLD_GLOBAL)
lib = ctypes.CDLL(sys.argv[1])
lib.mark_loop.argtypes = [ctypes.c_long]
count = int(sys.argv[2])

got = 0
done = threading.Event()


def on_mark(data):
    global got
    got += 1
    if got == count:
        done.set()


monitor = mspti.MstxMonitor()
monitor.set_buffer_size(256)
monitor.start(on_mark)
lib.mark_loop(count)
before = got  # delivered before the flush (a library may hand buffers back on its own)
start = time.perf_counter()
monitor.flush_all()
done.wait(120)
seconds = time.perf_counter() - start
monitor.stop()
if got != count:
    sys.exit(f"python_delivery: {got} of {count} records delivered ({mspti.__file__})")
print(json.dumps({"package": mspti.__file__, "marks": count, "delivered": got, "before_flush": before,
                  "seconds": seconds, "records_per_s": (got - before) / seconds if seconds > 0 else None}))
