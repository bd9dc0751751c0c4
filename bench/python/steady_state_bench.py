#!/usr/bin/env python3
"""mstx markers from Python in steady state: loops long enough to fill at least 20 of the
MstxMonitor's buffers (default settings: 8 MB buffers from its pool), with a per-record callback
and with a batch callback, next to an empty Python call timed in the same run and to the same
calls in short loops (20,000 calls, each loop followed by an untimed ``flush_all()``: no buffer
turns over). Every loop is followed by an untimed ``flush_all()``; the records that reached the
callbacks are counted, and those that did not are reported as dropped.

Usage: steady_state_bench.py OUT_JSON RECORDS_PER_LOOP [repetitions]
"""
import gc
import json
import statistics
import sys
import time

from mspti import MsptiResult, MstxMonitor, mstx

SHORT_CALLS = 20000
SHORT_LOOPS = 10


def empty(message):
    pass


def loops():
    mark, start, end = mstx.mark, mstx.range_start, mstx.range_end

    def empty_calls(n):
        for _ in range(n):
            empty("m")

    def marks(n):
        for _ in range(n):
            mark("m")

    def ranges(n):
        for _ in range(n):
            end(start("r"))

    return empty_calls, marks, ranges


def timed(loop, n):
    """(wall ns, thread CPU ns) per call of one run of ``loop``."""
    c0, w0 = time.thread_time_ns(), time.perf_counter_ns()
    loop(n)
    w1, c1 = time.perf_counter_ns(), time.thread_time_ns()
    return (w1 - w0) / n, (c1 - c0) / n


def measure(mode, records, repeats):
    seen = [0]
    m = MstxMonitor()
    if mode == "per_record":
        def on_mark(d):
            seen[0] += 1

        def on_range(d):
            seen[0] += 2  # its start and end records
        assert m.start(on_mark, on_range) == MsptiResult.MSPTI_SUCCESS
    else:
        def on_batch(b):
            seen[0] += len(b)
        assert m.start_batch(on_batch) == MsptiResult.MSPTI_SUCCESS
    empty_calls, marks, ranges = loops()
    # (name, loop, calls, records made)
    cases = [("empty_call", empty_calls, records, 0), ("mark", marks, records, records),
             ("range_start_end", ranges, records // 2, records // 2 * 2)]
    out = {name: {"wall": [], "cpu": []} for name, *_ in cases}
    short = {name: {"wall": [], "cpu": []} for name, *_ in cases}
    expected = 0
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for name, loop, _, _ in cases:  # warm-up: specialised bytecode, caches
            loop(SHORT_CALLS)
            expected += SHORT_CALLS if name == "mark" else (2 * SHORT_CALLS if name == "range_start_end" else 0)
        MstxMonitor.flush_all()
        for _ in range(repeats):
            for name, loop, calls, made in cases:
                w, c = timed(loop, calls)
                MstxMonitor.flush_all()
                out[name]["wall"].append(w)
                out[name]["cpu"].append(c)
                expected += made
            for name, loop, _, _ in cases:
                ws, cs = [], []
                for _ in range(SHORT_LOOPS):
                    w, c = timed(loop, SHORT_CALLS)
                    MstxMonitor.flush_all()
                    ws.append(w)
                    cs.append(c)
                    expected += SHORT_CALLS if name == "mark" else (2 * SHORT_CALLS if name == "range_start_end" else 0)
                short[name]["wall"].append(statistics.median(ws))
                short[name]["cpu"].append(statistics.median(cs))
    finally:
        if gc_was_enabled:
            gc.enable()
        MstxMonitor.flush_all()
        m.stop()

    def summary(d):
        return {"wall_min_ns": min(d["wall"]), "wall_median_ns": statistics.median(d["wall"]),
                "cpu_min_ns": min(d["cpu"]), "cpu_median_ns": statistics.median(d["cpu"])}

    return {"records_expected": expected, "records_seen": seen[0], "dropped": expected - seen[0],
            **{name: summary(out[name]) for name in out},
            **{"short_" + name: summary(short[name]) for name in short}}


def main():
    out, records = sys.argv[1], int(sys.argv[2])
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    result = {"records_per_loop": records, "short_calls": SHORT_CALLS, "repetitions": repeats,
              "per_record": measure("per_record", records, repeats), "batch": measure("batch", records, repeats)}
    with open(out, "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
