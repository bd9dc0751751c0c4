#!/usr/bin/env python3
"""Python delivery benchmarks, each with its baseline from the same run: records/s to a
per-record Python callback and to a numpy batch callback (N mstx marks collected into one 256 MB
buffer, then one timed flush_all(): delivery only), next to the C++ Monitor delivering the same
workload to a C++ callback (bench_cpp_delivery). The mstx call costs are in mstx_bench.py.

Usage: delivery_bench.py BUILD_DIR OUT_JSON [records]
"""
import json
import os
import subprocess
import sys
import time

from mspti import MsptiResult, MstxMonitor, mstx

REPEATS = 5


def delivery_rate(records, start):
    m = MstxMonitor()
    m.set_buffer_size(256)
    assert start(m) == MsptiResult.MSPTI_SUCCESS
    mark = mstx.mark
    for _ in range(records):
        mark("bench")
    t0 = time.perf_counter()
    m.flush_all()
    dt = time.perf_counter() - t0
    m.stop()
    return records / dt


def per_record(records):
    count = [0]

    def cb(data):
        count[0] += 1

    rate = delivery_rate(records, lambda m: m.start(cb))
    assert count[0] == records, count
    return rate


def batch(records):
    count = [0]

    def cb(b):
        count[0] += len(b)

    rate = delivery_rate(records, lambda m: m.start_batch(cb))
    assert count[0] == records, count
    return rate


def main():
    build, out = sys.argv[1], sys.argv[2]
    records = int(sys.argv[3]) if len(sys.argv) > 3 else 1000000
    cpp = json.loads(subprocess.run([os.path.join(build, "bin", "bench_cpp_delivery"), str(records), str(REPEATS)],
                                    check=True, capture_output=True, text=True).stdout)
    result = {
        "records": records,
        "python_per_record_rps": max(per_record(records) for _ in range(REPEATS)),
        "python_batch_rps": max(batch(records) for _ in range(REPEATS)),
        "cpp_per_record_rps": cpp["per_record_rps"],
        "cpp_batch_rps": cpp["batch_rps"],
    }
    with open(out, "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
