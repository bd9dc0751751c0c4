"""User guide 7.3: set the buffer size before starting."""
import vnpu
from mspti import KernelData, KernelMonitor, MsptiResult


def callback(data: KernelData) -> None:
    print(f"[KERNEL] {data.name}")


monitor = KernelMonitor()
assert monitor.set_buffer_size(64) == MsptiResult.MSPTI_SUCCESS  # 设置 64 MB 缓冲区
assert monitor.start(callback) == MsptiResult.MSPTI_SUCCESS
x = vnpu.ones(8).npu()
vnpu.synchronize()
(x * x).numpy()
monitor.stop()
