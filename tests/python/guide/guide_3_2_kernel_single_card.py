"""User guide 3.2: complete single-card example (torch/torch_npu replaced by vnpu).

GUIDE_MATMUL_SIZE sets the matrix size (the guide's 1024 by default, which the test runs: the
virtual NPU computes the ten fp16 1024x1024 matmuls with OpenBLAS in well under a second or two).
"""
import os

import vnpu
from mspti import KernelMonitor, KernelData

N = int(os.environ.get("GUIDE_MATMUL_SIZE", "1024"))


def kernel_parser(data: KernelData) -> None:
    duration_us = (data.end - data.start) / 1000
    print(f"[Kernel] {data.name} | {data.type} | "
          f"{duration_us:.2f} us | device={data.device_id}")


monitor = KernelMonitor()
monitor.start(kernel_parser)

# 执行 NPU 计算
x = vnpu.randn(N, N, dtype=vnpu.float16).npu()
y = vnpu.randn(N, N, dtype=vnpu.float16).npu()
for _ in range(10):
    z = vnpu.matmul(x, y)
vnpu.synchronize()

monitor.stop()
