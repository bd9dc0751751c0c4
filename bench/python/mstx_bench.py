#!/usr/bin/env python3
"""mstx markers from Python, each figure next to an empty Python call timed in the same run.

Per call: ``mspti.mstx.mark("m")``, ``mspti.mstx.range_end(mspti.mstx.range_start("r"))`` (one
pair) and the baseline, an empty Python function called with one argument the same way. Collection
is on (an MstxMonitor with mark and range callbacks); every timed loop is followed by an untimed
``flush_all()``, so the delivery thread never competes with a loop, and every record is checked
to have arrived. The three loops are interleaved in each repetition. Both wall time
(perf_counter) and the thread's CPU time (CLOCK_THREAD_CPUTIME_ID, which a busy run queue does
not inflate) are reported, as min and median over the repetitions.

Usage: mstx_bench.py OUT_JSON [calls per loop] [repetitions]
"""
import gc
import json
import statistics
import sys
import time

from mspti import MsptiResult, MstxMonitor, mstx


def empty(message):
    pass


def loops(n):
    mark, start, end = mstx.mark, mstx.range_start, mstx.range_end

    def empty_calls():
        for _ in range(n):
            empty("m")

    def marks():
        for _ in range(n):
            mark("m")

    def ranges():
        for _ in range(n):
            end(start("r"))

    return {"empty_call": empty_calls, "mark": marks, "range_start_end": ranges}


def timed(loop, n):
    """(wall ns, thread CPU ns) per iteration of one run of ``loop``."""
    c0, w0 = time.thread_time_ns(), time.perf_counter_ns()
    loop()
    w1, c1 = time.perf_counter_ns(), time.thread_time_ns()
    return (w1 - w0) / n, (c1 - c0) / n


def measure(n, repeats):
    marks, ranges = [0], [0]
    m = MstxMonitor()
    MstxMonitor.set_buffer_size(256)
    assert m.start(lambda d: marks.__setitem__(0, marks[0] + 1), lambda d: ranges.__setitem__(0, ranges[0] + 1)) == MsptiResult.MSPTI_SUCCESS
    cases = loops(n)
    wall = {name: [] for name in cases}
    cpu = {name: [] for name in cases}
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for name, loop in cases.items():  # warm-up: specialised bytecode, caches
            loop()
            MstxMonitor.flush_all()
        for _ in range(repeats):
            for name, loop in cases.items():
                w, c = timed(loop, n)
                MstxMonitor.flush_all()
                wall[name].append(w)
                cpu[name].append(c)
    finally:
        if gc_was_enabled:
            gc.enable()
        m.stop()
    expected = n * (repeats + 1)
    assert marks[0] == expected and ranges[0] == expected, (marks[0], ranges[0], expected)

    def summary(name):
        return {"wall_min_ns": min(wall[name]), "wall_median_ns": statistics.median(wall[name]),
                "cpu_min_ns": min(cpu[name]), "cpu_median_ns": statistics.median(cpu[name])}

    return {"calls_per_loop": n, "repetitions": repeats, **{name: summary(name) for name in cases}}


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 20000  # short loops: some fit between preemptions
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 41
    result = measure(n, repeats)
    with open(out, "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
