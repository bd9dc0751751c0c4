"""A batch kept past its callback raises ValueError when used, never reads freed memory.

Each scenario runs in a fresh interpreter (a crash there fails the test instead of the run):
batches are kept, the monitor is stopped and collection restarted with a different buffer size
(the old buffers are freed, new ones reuse the memory), then the kept batches are used."""

from conftest import run_code

KEEP = """
import sys
if {no_numpy}:
    sys.modules["numpy"] = None  # batches are then memoryviews
from mspti import MstxMonitor, mstx, batch
kept, copies, slices, names = [], [], [], []
def on_batch(b):
    if hasattr(b, "dtype") and not names:
        names.extend(batch.strings(b, "name")[:7])  # a marker's name is valid during its callback
    kept.append(b)
    copies.append(b.copy() if hasattr(b, "copy") else bytes(b))
    slices.append(b["timestamp"] if hasattr(b, "dtype") else b[8:16])
m = MstxMonitor()
m.set_buffer_size(2)
m.start_batch(on_batch)
for i in range(20000):
    mstx.mark(f"k{{i % 7}}")
m.stop()
m.set_buffer_size(1)  # the old buffers are freed; new ones may take their memory
m.start_batch(lambda b: None)
for i in range(20000):
    mstx.mark("other")
m.stop()
assert len(kept) >= 1, len(kept)

def expect_value_error(what, fn):
    try:
        fn()
    except ValueError as e:
        assert "after its callback returned" in str(e) or "released" in str(e), str(e)
        print("ValueError", what, flush=True)
    else:
        raise AssertionError(what + " did not raise")
"""


def test_numpy_batch_kept_after_its_callback_raises_value_error():
    code = KEEP.format(no_numpy=False) + """
import numpy as np
b, ts = kept[0], slices[0]
expect_value_error("index", lambda: b["timestamp"])
expect_value_error("item", lambda: b[0])
expect_value_error("len", lambda: len(b))
expect_value_error("copy", lambda: b.copy())
expect_value_error("tolist", lambda: b.tolist())
expect_value_error("repr", lambda: repr(b))
expect_value_error("ufunc", lambda: np.sum(ts))
expect_value_error("arithmetic", lambda: ts + 1)
expect_value_error("function", lambda: np.concatenate([b, b]))
expect_value_error("strings", lambda: batch.strings(b, "name"))
expect_value_error("iteration", lambda: list(b))
# Copies made during the callback are intact.
all_copies = np.concatenate(copies)
assert len(all_copies) == 20000 and (np.diff(all_copies["id"].astype(np.int64)) > 0).all()
assert names == [f"k{i}" for i in range(7)]
# Reaching the memory around the check (np.asarray gives a plain array) reads the kept buffer,
# which the batch keeps alive: the records are still there, nothing crashes.
raw = np.asarray(b)
assert (raw["id"] == copies[0]["id"]).all() and (raw["kind"] == 1).all()
print("done", flush=True)
"""
    proc = run_code(code, timeout=120, check=False)
    assert proc.returncode == 0, f"exit status {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    assert proc.stdout.count("ValueError") == 11 and "done" in proc.stdout, proc.stdout


def test_memoryview_batch_kept_after_its_callback_raises_value_error():
    code = KEEP.format(no_numpy=True) + """
b = kept[0]
assert isinstance(b, memoryview)
expect_value_error("index", lambda: b[0])
expect_value_error("bytes", lambda: bytes(b))
expect_value_error("len", lambda: len(b))
# A slice taken during the callback keeps the memory: it still reads the record's timestamp.
assert bytes(slices[0]) == copies[0][8:16]
print("done", flush=True)
"""
    proc = run_code(code, timeout=120, check=False)
    assert proc.returncode == 0, f"exit status {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    assert proc.stdout.count("ValueError") == 3 and "done" in proc.stdout, proc.stdout


def test_batches_not_kept_give_their_buffers_back():
    # 300 rounds of 1 MB buffers, each batch dropped after its callback: the buffers are reused,
    # not kept, so memory stays flat; a batch kept for a round and dropped frees its buffer.
    code = """
import gc
from mspti import MstxMonitor, mstx
def rss_kb():
    return int(next(l for l in open("/proc/self/status") if l.startswith("VmRSS:")).split()[1])
m = MstxMonitor(); m.set_buffer_size(1)
seen = [0]
def on_batch(b):
    seen[0] += len(b)
kept = []
def rounds(n, cb):
    for _ in range(n):
        m.start_batch(cb)
        for i in range(19000):  # about one 1 MB buffer of markers
            mstx.mark("r")
        m.stop()
        kept.clear(); gc.collect()
rounds(20, on_batch)
before = rss_kb()
rounds(150, on_batch)
rounds(150, lambda b: kept.append(b))
print("growth_kb", rss_kb() - before, "seen", seen[0], flush=True)
"""
    proc = run_code(code, timeout=300)
    words = proc.stdout.split()
    assert int(words[words.index("seen") + 1]) == 170 * 19000, proc.stdout
    assert int(words[words.index("growth_kb") + 1]) < 64 * 1024, proc.stdout
