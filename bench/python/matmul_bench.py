#!/usr/bin/env python3
"""The guide's example 3.2 (tests/python/guide/guide_3_2_kernel_single_card.py) at its real size: ten fp16 1024x1024 matmuls on the virtual NPU with a
KernelMonitor running, next to numpy computing the same ten products in the same run.

numpy multiplies fp16 matrices without BLAS (about 25 s for one 1024x1024 product here), so the
baseline is what the virtual NPU does: fp16 operands converted to fp32, an fp32 matmul (numpy's
BLAS), the result rounded to fp16. Each figure is the best of REPEATS runs; a run is timed from the
first launch to the end of vnpu.synchronize().

Usage: matmul_bench.py OUT_JSON [size]
"""
import json
import sys
import time

import numpy as np

import vnpu
from mspti import KernelMonitor

REPEATS = 5
MATMULS = 10


def vnpu_run(x, y):
    t0 = time.perf_counter()
    for _ in range(MATMULS):
        z = vnpu.matmul(x, y)
    vnpu.synchronize()
    return time.perf_counter() - t0, z


def numpy_run(a, b):
    t0 = time.perf_counter()
    for _ in range(MATMULS):
        c = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    return time.perf_counter() - t0, c


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
    a = np.random.default_rng(0).standard_normal((n, n)).astype(np.float16)
    b = np.random.default_rng(1).standard_normal((n, n)).astype(np.float16)
    x, y = vnpu.tensor(a).npu(), vnpu.tensor(b).npu()
    kernels = []
    monitor = KernelMonitor()
    monitor.start(kernels.append)
    vnpu_times, numpy_times = [], []
    for _ in range(REPEATS):  # interleaved, so both see the same machine load
        t, z = vnpu_run(x, y)
        vnpu_times.append(t)
        t, c = numpy_run(a, b)
        numpy_times.append(t)
    monitor.stop()
    got = z.numpy().astype(np.float32)
    ref = c.astype(np.float32)
    kernel_ns = sorted(k.end - k.start for k in kernels)
    result = {
        "size": n, "matmuls": MATMULS, "repeats": REPEATS,
        "vnpu_best_s": min(vnpu_times), "vnpu_median_s": sorted(vnpu_times)[REPEATS // 2],
        "numpy_best_s": min(numpy_times), "numpy_median_s": sorted(numpy_times)[REPEATS // 2],
        "kernel_records": len(kernels), "kernel_median_ms": kernel_ns[len(kernel_ns) // 2] / 1e6,
        "max_abs_diff_vs_numpy": float(np.max(np.abs(got - ref))),
    }
    with open(out, "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
