"""User guide 3.1: KernelMonitor basic usage (the business code is one vnpu add)."""
import vnpu
from mspti import KernelMonitor, KernelData


def on_kernel(data: KernelData) -> None:
    print(f"Kernel: {data.name}, type={data.type}, "
          f"start={data.start}, end={data.end}, "
          f"duration={(data.end - data.start) / 1000} us")


monitor = KernelMonitor()
monitor.start(on_kernel)

# 执行业务代码
x = vnpu.ones(4, 2).npu()
y = x + x
vnpu.synchronize()

monitor.stop()
