"""The virtual NPU from 8 Python threads at once: matmul, add and host copies on each thread's own tensors,
first each thread on its own stream, then all on shared streams (one explicit stream, the device's default
stream, and the torch-like package's operators, which use the default stream). Runs for argv[1] seconds
(default 30) in all; every result is compared with numpy's. Exit code 0 only if every thread ran and
every result matched (a corrupted heap ends the process with a signal instead).
"""
import sys
import threading
import time

import numpy as np

import vnpu
from vnpu import native as nv

THREADS = 8
N = 32


def inputs(index):
    a = ((np.arange(N * N) + index) % 5).astype(np.float32).reshape(N, N)
    b = ((np.arange(N * N) * 3 + index) % 4).astype(np.float32).reshape(N, N)
    return a, b, a @ b + a  # small integers: float32 sums are exact


def native_worker(index, stream, deadline, report):
    a, b, want = inputs(index)
    steps = 0
    while time.monotonic() < deadline:
        ta = nv.Tensor.empty([N, N], nv.kFloat32, 0)
        ta.copy_from_host(a)
        tb = nv.Tensor(b.ravel().tolist(), [N, N], 0)
        d = nv.add(nv.matmul(ta, tb, stream), ta, stream)  # the product is dropped with work queued on it
        if steps % 2 == 0:
            got = np.empty((N, N), dtype=np.float32)
            d.copy_to_host(got)
            if not np.array_equal(got, want):
                raise AssertionError(f"thread {index}: wrong result at step {steps}")
        steps += 1
    report[index] = steps


def package_worker(index, deadline, report):
    a, b, want = inputs(index)
    steps = 0
    while time.monotonic() < deadline:
        x, y = vnpu.from_numpy(a).npu(0), vnpu.from_numpy(b).npu(0)
        z = x @ y + x
        if steps % 2 == 0 and not np.array_equal(z.numpy(), want):
            raise AssertionError(f"thread {index}: wrong result at step {steps}")
        steps += 1
    report[index] = steps


def phase(shared, seconds):
    deadline = time.monotonic() + seconds
    common = nv.Stream(0)
    report, errors = [0] * THREADS, []

    def run(index):
        try:
            nv.set_device(0)
            if not shared:
                native_worker(index, nv.Stream(0), deadline, report)
            elif index % 3 == 0:
                native_worker(index, common, deadline, report)
            elif index % 3 == 1:
                native_worker(index, None, deadline, report)  # the default stream
            else:
                package_worker(index, deadline, report)
        except BaseException as e:  # noqa: BLE001  (reported below)
            errors.append(f"thread {index}: {e!r}")

    threads = [threading.Thread(target=run, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    nv.synchronize(0)
    idle = [i for i, steps in enumerate(report) if steps == 0]
    if idle and not errors:
        errors.append(f"threads {idle} made no step")
    kind = "shared" if shared else "own"
    print(f"{kind} streams: {sum(report)} steps in {THREADS} threads, errors: {errors}", flush=True)
    return errors


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 30.0
    errors = phase(False, seconds / 2) + phase(True, seconds / 2)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
