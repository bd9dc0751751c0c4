"""Wrong uses of the typed API: mypy --strict must report each line marked "# E: <code>", and no other."""
from mspti import KernelData, KernelMonitor, MarkerData, MstxMonitor, mstx
import vnpu

monitor = KernelMonitor()
monitor.start(42)  # E: arg-type


def on_kernel(data: KernelData) -> None:
    print(data.nmae)  # E: attr-defined
    when: str = data.start  # E: assignment


def on_mark(data: MarkerData) -> None:
    pass


monitor.start(on_mark)  # E: arg-type
KernelMonitor.set_stop_timeout("2")  # E: arg-type
KernelMonitor.set_buffer_size(8.0)  # E: arg-type
MstxMonitor().start(range_cb=on_mark)  # E: arg-type
mstx.mark(b"bytes")  # E: arg-type
mstx.range_end("1")  # E: arg-type
vnpu.matmul(vnpu.ones(2, 2), 3)  # E: arg-type
running: str = monitor.is_running()  # E: assignment
