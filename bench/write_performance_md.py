#!/usr/bin/env python3
"""Turns Google Benchmark JSON results into docs/performance.md: each figure next to the
baseline measured in the same run, and the target it is held to."""
import json
import os
import platform
import subprocess
import sys
from datetime import datetime, timezone


def read_json(results_dir, file_name):
    """The parsed JSON of results_dir/file_name, or None when it is missing or not JSON (section skipped)."""
    path = os.path.join(results_dir, file_name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        try:
            return json.load(f)
        except json.JSONDecodeError:
            print(f"write_performance_md: {path} is not JSON; its section is skipped", file=sys.stderr)
            return None


def load(results_dir, name):
    data = read_json(results_dir, name + ".json")
    if data is None:
        return None
    medians = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name") == "median":
            medians[b["run_name"]] = b
    return medians


def load_aggregate(results_dir, name, aggregate):
    data = read_json(results_dir, name + ".json")
    if data is None:
        return None
    return {b["run_name"]: b for b in data["benchmarks"] if b.get("aggregate_name") == aggregate}


def ns(m, name):
    return m[name]["real_time"] if m and name in m else None


def rate(m, name):
    return m[name].get("items_per_second") if m and name in m else None


def fmt(value, unit="ns"):
    return "n/a" if value is None else f"{value:.2f} {unit}"


def verdict(ok):
    return "met" if ok else "**not met**"


def machine():
    cpu = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {cpu}, {platform.system()} {platform.release()}"


def marker_section(results):
    m, n = load(results, "bench_markers"), load(results, "bench_markers_notool")
    if m is None:
        return []
    mark1 = ns(m, "BM_MstxMarkA_CollectionOn/real_time/threads:1")
    range1 = ns(m, "BM_MstxRangeStartEnd_CollectionOn/real_time/threads:1")
    off = ns(m, "BM_MstxMarkA_ToolLoadedMarkerOff/real_time/threads:1")
    clock1 = ns(m, "BM_ClockGettimeMonotonic/real_time/threads:1")
    tsc1 = ns(m, "BM_ReadTsc/real_time/threads:1")
    nvtx_mark = ns(n, "BM_NvtxMarkA_NoTool/real_time/threads:1") or ns(m, "BM_NvtxMarkA_NoTool/real_time/threads:1")
    nvtx_range = ns(n, "BM_NvtxRangePushPop_NoTool/real_time/threads:1") or ns(m, "BM_NvtxRangePushPop_NoTool/real_time/threads:1")
    notool_mark = ns(n, "BM_MstxMarkA_NoTool/real_time/threads:1")
    notool_range = ns(n, "BM_MstxRangeStartEnd_NoTool/real_time/threads:1")
    lines = [
        "## Markers (bench/marker_bench.cpp, bench/marker_notool_bench.cpp)",
        "",
        "Median of 5 repetitions, wall time per call. `mstx` calls go through the header's function table;",
        "with collection on, libmspti is linked and MARKER is enabled; a minimal client recycles 8 MiB buffers.",
        "",
        "| what | measured | baseline (same run) | target | |",
        "|---|---|---|---|---|",
    ]
    if mark1 is not None:
        lines.append(f"| `mstxMarkA`, collection on, 1 thread | {fmt(mark1)} | `clock_gettime` {fmt(clock1)} | ≤ 40 ns | {verdict(mark1 <= 40)} |")
    if mark1 is not None and tsc1:
        lines.append(f"| `mstxMarkA`, collection on, against one TSC read | ×{mark1 / tsc1:.2f} | `rdtsc` {fmt(tsc1)} | ≤ ×2.0 | {verdict(mark1 <= 2.0 * tsc1)} |")
    if range1 is not None:
        lines.append(f"| `mstxRangeStartA`+`mstxRangeEnd`, collection on (2 records) | {fmt(range1)} | 2 × `clock_gettime` {fmt(2 * clock1 if clock1 else None)} | ≤ 80 ns | {verdict(range1 <= 80)} |")
    if off is not None:
        lines.append(f"| `mstxMarkA`, libmspti loaded, MARKER off | {fmt(off)} | | | |")
    fresh = ns(m, "BM_MstxMarkA_NewNameEachCall_CollectionOn/real_time/threads:1")
    fresh2 = ns(m, "BM_MstxMarkA_NewNameEachCall_CollectionOn/real_time/threads:2")
    fmt_only = ns(m, "BM_SnprintfStepName/real_time/threads:1")
    if fresh is not None:
        lines.append(f"| `mstxMarkA` with a new name each call (`\"step %llu\"`, interned then reclaimed), 1 thread | {fmt(fresh)} | formatting the name alone {fmt(fmt_only)} | | |")
    if fresh2 is not None:
        lines.append(f"| the same, 2 threads (wall time per call) | {fmt(fresh2)} | | | |")
    if notool_mark is not None and nvtx_mark:
        lines.append(f"| `mstxMarkA`, no tool | {fmt(notool_mark)} | `nvtxMarkA` no tool {fmt(nvtx_mark)} (×{notool_mark / nvtx_mark:.2f}) | ≤ 1.5 × NVTX | {verdict(notool_mark <= 1.5 * nvtx_mark)} |")
    if notool_range is not None and nvtx_range:
        lines.append(f"| range start+end, no tool | {fmt(notool_range)} | `nvtxRangePushA`+`Pop` no tool {fmt(nvtx_range)} (×{notool_range / nvtx_range:.2f}) | ≤ 1.5 × NVTX | {verdict(notool_range <= 1.5 * nvtx_range)} |")
    best = load_aggregate(results, "bench_markers", "min")
    for label, name in (("`mstxMarkA`", "BM_MstxMarkA_CollectionOn"), ("range start+end", "BM_MstxRangeStartEnd_CollectionOn")):
        m1, m2 = rate(m, f"{name}/real_time/threads:1"), rate(m, f"{name}/real_time/threads:2")
        b1, b2 = ns(best, f"{name}/real_time/threads:1"), ns(best, f"{name}/real_time/threads:2")
        if m1 and m2:
            lines.append(f"| {label} throughput, 2 threads vs 1 (median of 5) | {m2 / 1e6:.1f} M/s vs {m1 / 1e6:.1f} M/s (×{m2 / m1:.2f}) | | ≥ 1.8× | {verdict(m2 / m1 >= 1.8)} |")
        if b1 and b2:  # time per record across threads: rate = 1 / time
            lines.append(f"| {label} throughput, 2 threads vs 1 (best of 5) | {1e3 / b2:.1f} M/s vs {1e3 / b1:.1f} M/s (×{b1 / b2:.2f}) | | ≥ 1.8× | {verdict(b1 / b2 >= 1.8)} |")
    lines += [
        "",
        "NVTX with Nsight Systems attached costs about 27 ns per marker (26.7 ns min, 27.9 ns median, published in JuliaGPU/NVTX.jl#32); NVTX with no tool is the",
        "floor any header-only marker API can reach. Both benchmark binaries align loops to 64 bytes, so",
        "that sub-nanosecond loops are compared on equal footing.",
        "",
    ]
    return lines


def marker_thread_cpu_section(results):
    r = read_json(results, "bench_marker_thread_cpu.json")
    if r is None:
        return []
    mark, clock, rec = r["mstxMarkA"], r["clock_gettime"], r["marker_records"]

    def row(what, x, target):
        one, two = x["one_thread"], x["two_threads"]
        ok = f"≤ ×{target:.2f} | {verdict(x['ratio_median'] <= target)}" if target else "| "
        return (f"| {what} | {fmt(one['min_ns'])} / {fmt(one['median_ns'])} | {fmt(two['min_ns'])} / "
                f"{fmt(two['median_ns'])} | ×{x['ratio_median']:.2f} (min ×{x['ratio_min']:.2f}) | "
                f"{x['two_thread_parallelism_median']:.2f} | {ok} |")

    return [
        "## Marker scaling in thread CPU time (bench/marker_thread_cpu_bench.cpp)",
        "",
        "CPU time per call (`CLOCK_THREAD_CPUTIME_ID` of each producer, which the run queue cannot inflate),",
        f"{r['calls_per_thread']:,} calls per thread, one-thread and two-thread runs interleaved, "
        f"{r['repetitions']} repetitions, collection on.",
        "The control, `clock_gettime(CLOCK_MONOTONIC)`, shares nothing between threads: its ratio is what the",
        "machine adds. Parallelism is the two producers' CPU time over the run's wall time: below 2 they did",
        "not always run at once, and contention between them shows less.",
        "",
        "| what | 1 thread min / median | 2 threads min / median | ratio (median) | parallelism | target | |",
        "|---|---|---|---|---|---|---|",
        row("`mstxMarkA`", mark, 1.15),
        row("`clock_gettime` (control)", clock, None),
        "",
        f"Marker records: {rec['marked']:,} marked, {rec['produced']:,} produced, {rec['delivered']:,} delivered, "
        f"{rec['dropped']:,} dropped.",
        "",
    ]


def strict_pairs(pairs, field):
    """Median and quartiles of collect/baseline within each strict pair, and the pair count."""
    ratios = sorted(on / off for off, on in zip(pairs[field]["baseline"], pairs[field]["collect"]))
    q = lambda f: ratios[min(len(ratios) - 1, int(f * len(ratios)))]
    return q(0.5), q(0.25), q(0.75), len(ratios)


def kernel_section(results):
    path = os.path.join(results, "bench_kernel_overhead.json")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        runs = json.load(f)["benchmarks"]
    def pick(arg, field, aggregate=None):
        values = [b[field] if field in b else b.get("counters", {}).get(field) for b in runs
                  if b["run_name"].startswith("BM_SmallKernels/collect:" + arg)
                  and b.get("aggregate_name") == aggregate and (aggregate or b.get("run_type") == "iteration")]
        return [v for v in values if v is not None]
    off_min, on_min = min(pick("0", "real_time")), min(pick("1", "real_time"))
    off_med, on_med = pick("0", "real_time", "median")[0], pick("1", "real_time", "median")[0]
    off_cpu, on_cpu = pick("0", "process_cpu_ns_per_kernel", "median")[0], pick("1", "process_cpu_ns_per_kernel", "median")[0]
    reps = len(pick("1", "real_time"))
    pairs = read_json(results, "kernel_overhead_pairs.json")
    lines = [
        "## KERNEL collection overhead (bench/kernel_overhead_bench.cpp)",
        "",
        "`aclnnAdd` kernels of 8 floats on the virtual NPU in batches of 256, the stream synchronised per",
        "batch. Baseline: libmspti interposing with nothing enabled; collection: KERNEL enabled and every",
        "record drained into recycled client buffers and read by the client with",
        "`msptiActivityGetNextRecord`. Process CPU time counts every thread (host, stream worker, activity",
        "worker).",
        "",
    ]
    if pairs is not None:
        lines += [
            f"**Strict pairs** (`--pairs={pairs['pairs']}`): {pairs['pairs']} pairs of runs of "
            f"{pairs['kernels_per_run']:,.0f} kernels, the two variants back to back in alternating order",
            "(ABBA), each run ending with `msptiActivityFlushAll`, so the collection side pays for every",
            f"record's drain and reading ({pairs['records_per_kernel']:.4f} records per kernel delivered). The",
            "ratio is taken within each pair, so a slow stretch of the machine falls on both halves.",
            "",
        ]
    lines += [
        "| statistic | collection | baseline (same run) | overhead | target ≤ 3% |",
        "|---|---|---|---|---|",
    ]
    if pairs is not None:
        rows = [("process CPU per kernel", "cpu_ns_per_kernel"),
                ("host (launching) thread's CPU per kernel", "host_thread_cpu_ns_per_kernel"),
                ("wall time per kernel", "wall_ns_per_kernel")]
        for name, field in rows:
            if field not in pairs:
                continue  # a benchmark from before the host thread was measured apart
            med, low, high, n = strict_pairs(pairs, field)
            on_all, off_all = sorted(pairs[field]["collect"]), sorted(pairs[field]["baseline"])
            target = verdict(med <= 1.03) if field == "cpu_ns_per_kernel" else ""
            lines.append(f"| {name}, median of {n} strict pairs (interquartile range) | {on_all[n // 2]:.0f} ns | "
                         f"{off_all[n // 2]:.0f} ns | {(med - 1) * 100:+.1f}% ({(low - 1) * 100:+.1f}% to "
                         f"{(high - 1) * 100:+.1f}%) | {target} |")
    ins = read_json(results, "kernel_overhead_instructions.json")
    if ins is not None:
        on_ins, off_ins = ins["instructions_per_kernel"]["collect"], ins["instructions_per_kernel"]["baseline"]
        lines.append(f"| user-space instructions per kernel, every thread (callgrind) | {on_ins:,.0f} | {off_ins:,.0f} | "
                     f"{ins['overhead_percent']:+.2f}% | {verdict(ins['overhead_percent'] <= 3.0)} |")
    lines += [
        f"| process CPU per kernel, median of {reps} Google Benchmark repetitions | {on_cpu:.0f} ns | {off_cpu:.0f} ns | "
        f"{(on_cpu / off_cpu - 1) * 100:+.1f}% | |",
        f"| wall time per batch, min of {reps} repetitions | {on_min:.1f} us | {off_min:.1f} us | {(on_min / off_min - 1) * 100:+.1f}% | |",
        f"| wall time per batch, median of {reps} repetitions | {on_med:.1f} us | {off_med:.1f} us | {(on_med / off_med - 1) * 100:+.1f}% | |",
        "",
        "The Google Benchmark repetitions run in random order, not in pairs, and leave the last flush of",
        "each repetition out of its time; they are shown for orientation. Times move by several percent",
        "between runs on this shared machine. The instruction count (bench/kernel_overhead_instructions.sh:",
        "the slope between two runs of fixed work under callgrind, so start-up cancels out) does not; it",
        "leaves out kernel time (the worker's wake-ups) and cache effects.",
        "",
    ]
    lines += kernel_before_after_lines(results)
    lines += kernel_side_by_side_lines(results)
    return lines


def kernel_floor_section(results):
    d = read_json(results, "kernel_floor.json")
    if d is None:
        return []
    f, m, b = d["floor"], d["libmspti"], d.get("before")

    def pct(x):
        o = x["overhead"]
        return f"{o['median']:+.1%} ({o['q1']:+.1%} to {o['q3']:+.1%})"

    la, lb = d["load_before"], d["load_after"]
    lines = [
        "## KERNEL collection against its floor (bench/kernel_floor.py, bench/kernel_floor_bench.cpp)",
        "",
        f"Measured {d['measured']}. The floor: a program with no libmspti that asks the virtual CANN for what"
        " KERNEL records are made from, as libmspti does, and does nothing with it: report callbacks"
        " registered with libprofapi that return at once, the switch libmspti sends for KERNEL (task time,"
        " the runtime's task tracks), the STARS SoC-log channel of libascend_hal started as msPTI starts it"
        " and read on a thread of its own (poll, read everything, wait 16 ms: the longest libmspti's reader"
        " waits), its bytes counted and nothing parsed; each run ends with the channel flushed and read."
        " Same workload and strict pairs as the"
        f" KERNEL section ({f['kernels_per_run']:,.0f} kernels a run); the programs ran in"
        f" {d.get('blocks', '')} blocks of strict pairs each, in an order rotated block by block."
        " Load average (1 / 5 / 15 min):"
        f" {la[0]:.2f} / {la[1]:.2f} / {la[2]:.2f} before, {lb[0]:.2f} / {lb[1]:.2f} / {lb[2]:.2f} after.",
        "",
        "| overhead against the same program with nothing asked for, median of the strict pairs"
        " (interquartile range) | the floor: reports and SoC log asked for, read, not parsed |"
        f" libmspti collecting KERNEL records ({d.get('commit', 'this build')}) |"
        + (f" libmspti before ({d.get('before_commit', '')}) |" if b else ""),
        "|---|---|---|" + ("---|" if b else ""),
    ]
    cols = [f, m] + ([b] if b else [])

    def row(label, fn):
        return f"| {label} | " + " | ".join(fn(c) for c in cols) + " |"

    lines += [
        row("pairs", lambda c: str(c["pairs"])),
        row("device records read per kernel (floor: SoC-log records; libmspti: KERNEL records delivered)",
            lambda c: f"{c['records_per_kernel']:.3f}"),
        row("process CPU", lambda c: pct(c["process_cpu"])),
        row("host (launching) thread's CPU", lambda c: pct(c["host_thread_cpu"])),
        row("wall time", lambda c: pct(c["wall"])),
        row("process CPU per kernel, medians (collection / baseline)",
            lambda c: f"{c['process_cpu']['collect_ns']:.0f} ns / {c['process_cpu']['baseline_ns']:.0f} ns"),
        "",
        "What libmspti adds above the floor is its own cost; the floor is what the interfaces cost the"
        " process on the virtual NPU, whose device (the SoC log's writer) is a thread of the process.",
        "",
    ]
    return lines


def kernel_side_by_side_lines(results):
    """msPTI's library and ours on the KERNEL workload (bench/upstream/side_by_side.py --kernel-only)."""
    d = read_json(results, "kernel_side_by_side.json")
    if d is None:
        return []
    k = d["kernel"]
    sides = ("msPTI", "ours")

    def pct(r):
        return f"{(r - 1) * 100:+.1f}%"

    load = lambda avg: " / ".join(f"{x:.2f}" for x in avg)
    lines = [
        "**msPTI's library on the same workload** (`bench/upstream/side_by_side.py --kernel-only`): the KERNEL",
        "workload above rebuilt from msPTI's public headers against each CANN tree, `build/ascend-upstream`",
        "(msPTI's libmspti, built from `MSPTI_UPSTREAM_SOURCE`) and `build/ascend` (ours, the after commit),",
        f"both preloaded; runs of {k['ours']['kernels_per_run']:,} kernels, each ended by `msptiActivityFlushAll`",
        "until the client has read every record; "
        f"{d['rounds']} rounds of the four runs in a rotated order (overhead: median of the per-round ratios).",
        f"Load average: {load(d['load_before'])} before, {load(d['load_after'])} after.",
        "",
        "| statistic | msPTI's library | ours | ours at or under msPTI's |",
        "|---|---|---|---|",
        f"| records delivered per kernel | {k['msPTI']['records_per_kernel']:.4f} | {k['ours']['records_per_kernel']:.4f} | |",
    ]
    if all("instructions" in k[s] for s in sides):
        added = {s: k[s]["instructions"]["collect"] - k[s]["instructions"]["baseline"] for s in sides}
        lines.append(
            "| user-space instructions added per kernel (callgrind, mean of two runs: each run) | "
            + " | ".join(f"{added[s]:+,.0f} ({', '.join(f'{x:+,.0f}' for x in k[s]['instructions_added_runs'])})"
                         for s in sides)
            + f" | {verdict(added['ours'] <= added['msPTI'])} |")
    cpu = {s: k[s]["cpu_ratio"] for s in sides}
    lines += [
        "| process CPU overhead, median of the rounds (interquartile range) | "
        + " | ".join(f"{pct(cpu[s]['median'])} ({pct(cpu[s]['q1'])} to {pct(cpu[s]['q3'])})" for s in sides)
        + f" | {verdict(cpu['ours']['median'] <= cpu['msPTI']['median'])} |",
        "",
    ]
    return lines


def kernel_before_after_lines(results):
    """The same figures for the library before a change, from the same run (bench/kernel_before_after.py)."""
    d = read_json(results, "kernel_before_after.json")
    if d is None:
        return []
    b, a = d["before"], d["after"]

    def pct(r):
        return f"{(r - 1) * 100:+.1f}%"

    def quart(r):
        return f"{pct(r['median'])} ({pct(r['q1'])} to {pct(r['q3'])})"

    def ins(x):
        i = x["instructions"]
        return f"{i['collect']:,.0f} / {i['baseline']:,.0f} ({i['collect'] - i['baseline']:+,.0f}, {pct(i['collect'] / i['baseline'])})"

    load = lambda avg: " / ".join(f"{x:.2f}" for x in avg)
    return [
        f"**Before and after** (`bench/kernel_before_after.py`): the library of commit {d['commits']['before']} and "
        f"of commit {d['commits']['after']},",
        f"measured in one run: callgrind {len(a['instructions_runs'])} time(s) per build, and {a['pairs']} strict pairs per build in "
        "blocks that alternate",
        f"between the builds. Load average (1 / 5 / 15 min) on this {d['cores']}-core machine, shared with other "
        f"work: {load(d['load_before'])} before, {load(d['load_after'])} after.",
        "",
        f"| statistic | before ({d['commits']['before']}) | after ({d['commits']['after']}) |",
        "|---|---|---|",
        f"| user-space instructions per kernel, collection / baseline (mean of the callgrind runs) | {ins(b)} | {ins(a)} |",
        "| instructions added per kernel, each callgrind run | "
        + " | ".join(" and ".join(f"{r['collect'] - r['baseline']:+,.0f}" for r in x["instructions_runs"]) for x in (b, a))
        + " |",
        f"| process CPU per kernel, collection / baseline (medians) | {b['cpu_ns']['collect']:.0f} ns / "
        f"{b['cpu_ns']['baseline']:.0f} ns | {a['cpu_ns']['collect']:.0f} ns / {a['cpu_ns']['baseline']:.0f} ns |",
        f"| process CPU overhead, median of the strict pairs (interquartile range) | {quart(b['cpu_ratio'])} | "
        f"{quart(a['cpu_ratio'])} |",
        f"| wall time overhead, median of the strict pairs (interquartile range) | {quart(b['wall_ratio'])} | "
        f"{quart(a['wall_ratio'])} |",
        "",
    ]


def python_section(results):
    r = read_json(results, "python_delivery.json")
    if r is None:
        return []
    m = 1e6
    per, batch = r["python_per_record_rps"], r["python_batch_rps"]
    cpp_per, cpp_batch = r["cpp_per_record_rps"], r["cpp_batch_rps"]
    return [
        "## Python (bench/python/delivery_bench.py, bench/python/cpp_delivery_bench.cpp)",
        "",
        f"{r['records']:,} mstx marks collected into one 256 MB buffer, then one `flush_all()` timed (delivery",
        "only); best of 5. The baseline is the C++ Monitor delivering the same records to a C++ callback.",
        "",
        "| what | measured | baseline (same run) | target | |",
        "|---|---|---|---|---|",
        f"| records/s to a per-record Python callback (`MarkerData`) | {per / m:.2f} M/s | C++ callback {cpp_per / m:.1f} M/s | ≥ 1 M/s | {verdict(per >= 1e6)} |",
        f"| records/s to a numpy batch callback | {batch / m:.1f} M/s | C++ batch callback {cpp_batch / m:.1f} M/s | ≥ 20 M/s | {verdict(batch >= 20e6)} |",
        "",
    ]


def python_mstx_section(results):
    r = read_json(results, "python_mstx.json")
    if r is None:
        return []
    empty = r["empty_call"]

    def row(what, key, target_ns):
        x = r[key]
        return (f"| {what} | {fmt(x['cpu_min_ns'])} / {fmt(x['cpu_median_ns'])} | {fmt(x['wall_min_ns'])} / "
                f"{fmt(x['wall_median_ns'])} | ×{x['cpu_min_ns'] / empty['cpu_min_ns']:.1f} | ≤ {target_ns} ns | "
                f"{verdict(x['cpu_median_ns'] <= target_ns)} |")

    return [
        "## Python mstx calls (bench/python/mstx_bench.py)",
        "",
        f"Per call, collection on (an MstxMonitor with mark and range callbacks; each timed loop of "
        f"{r['calls_per_loop']:,} calls is",
        "followed by an untimed `flush_all()`, and every record is checked to arrive). The baseline is an empty",
        "Python function called with one argument the same way, interleaved with the markers in each of "
        f"{r['repetitions']}",
        "repetitions. Thread CPU time (`CLOCK_THREAD_CPUTIME_ID`) is not inflated by a busy run queue; the",
        "target is checked on its median.",
        "",
        "| what | thread CPU min / median | wall min / median | CPU min vs baseline | target | |",
        "|---|---|---|---|---|---|",
        f"| empty Python call (baseline) | {fmt(empty['cpu_min_ns'])} / {fmt(empty['cpu_median_ns'])} | "
        f"{fmt(empty['wall_min_ns'])} / {fmt(empty['wall_median_ns'])} | ×1.0 | | |",
        row("`mspti.mstx.mark`", "mark", 100),
        row("`mspti.mstx.range_start` + `range_end` (one pair)", "range_start_end", 150),
        "",
    ]


def matmul_section(results):
    r = read_json(results, "python_matmul.json")
    if r is None:
        return []
    n, count = r["size"], r["matmuls"]
    v, npy = r["vnpu_best_s"], r["numpy_best_s"]
    return [
        "## Virtual NPU matmul (bench/python/matmul_bench.py)",
        "",
        f"The guide's example 3.2: {count} fp16 {n}x{n} matmuls on the virtual NPU (OpenBLAS sgemm on fp32",
        "copies of the operands) with a KernelMonitor running, from the first launch to the end of",
        f"`vnpu.synchronize()`; best of {r['repeats']}, interleaved with the baseline: numpy computing the same",
        "products (fp16 to fp32, fp32 matmul, back to fp16; numpy's own fp16 matmul does not use BLAS).",
        "",
        "| what | measured | baseline (same run) | target | |",
        "|---|---|---|---|---|",
        f"| {count} fp16 {n}x{n} matmuls | {v:.2f} s | numpy {npy:.2f} s (×{v / npy:.2f}) | ≤ 5 s | {verdict(v <= 5)} |",
        f"| one kernel record (end − start, median) | {r['kernel_median_ms']:.1f} ms | | | |",
        f"| largest difference from numpy's result | {r['max_abs_diff_vs_numpy']:g} | | | |",
        "",
    ]


def java_section(results):
    r = read_json(results, "java_delivery.json")
    if r is None:
        return []
    m = 1e6
    per, batch = r["java_per_record_rps"], r["java_batch_rps"]
    cpp = r.get("cpp") or {}
    cpp_per, cpp_batch = cpp.get("per_record_rps"), cpp.get("batch_rps")
    base_per = f"C++ callback {cpp_per / m:.1f} M/s" if cpp_per else "n/a"
    base_batch = f"C++ batch callback {cpp_batch / m:.1f} M/s" if cpp_batch else "n/a"
    spread = ""
    if "java_per_record_min_rps" in r:
        spread = f" ({r['java_per_record_median_rps'] / m:.2f}, {r['java_per_record_min_rps'] / m:.2f})"
    return [
        "## Java (bench/java/DeliveryBench.java, bench/python/cpp_delivery_bench.cpp)",
        "",
        f"{r['records']:,} mstx marks collected into one 256 MB buffer, then one `flushAll()` timed (delivery",
        f"only); best of 5 after three warm-up runs (median and worst in brackets), Java {r.get('java_version', '?')}.",
        "The baseline is the C++ Monitor delivering the same records to a C++ callback. Per record, the",
        "callback gets an owned `MarkerData` and reads one field: one JNI upcall per block of records, each",
        "`MarkerData` built in Java from the block's bytes, its strings from a per-block table of distinct",
        "Java Strings made natively (org.mspti.RecordRun). The batch callback reads one field of every",
        "record from the read-only direct `ByteBuffer`.",
        "",
        "| what | measured | baseline (same run) | target | |",
        "|---|---|---|---|---|",
        f"| records/s to a per-record Java callback (`MarkerData`) | {per / m:.2f} M/s{spread} | {base_per} | ≥ 5 M/s | {verdict(per >= 5e6)} |",
        f"| records/s to a `ByteBuffer` batch callback | {batch / m:.1f} M/s | {base_batch} | ≥ 20 M/s | {verdict(batch >= 20e6)} |",
        "",
    ]


def hccl_mpi_section(results):
    r = read_json(results, "hccl_mpi.json")
    if r is None:
        return []
    lines = [
        "## HCCL on Open MPI (bench/hccl_mpi_bench.cpp)",
        "",
        f"fp32 sum all-reduce on {r['ranks']} ranks under `mpirun --mca btl tcp,self` on this one host: vnpu's",
        "`HcclAllReduce` (queued on a stream, run by its worker on the MPI transport, then synchronised) against",
        "a plain `MPI_Allreduce` of the same size in the same run, interleaved. Bus bandwidth is",
        "bytes / time × 2(n−1)/n; best of 5 batches, each timed by its slowest rank.",
        "",
        "| size | vnpu on MPI | MPI_Allreduce (same run) | ratio | |",
        "|---|---|---|---|---|",
    ]
    for e in r["sizes"]:
        b = e["bytes"]
        size = f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB"
        ratio = e["vnpu_busbw_gbps"] / e["mpi_busbw_gbps"]
        target = verdict(ratio >= 0.9) + " (target ≥ 90 %)" if b == 64 << 20 else ""
        lines.append(f"| {size} | {e['vnpu_busbw_gbps']:.3f} GB/s | {e['mpi_busbw_gbps']:.3f} GB/s | "
                     f"{ratio * 100:.0f} % | {target} |")
    lines.append("")
    return lines


def trace_section(results):
    r = read_json(results, "trace_overhead.json")
    instr = read_json(results, "trace_overhead_instructions.json")
    if r is None and instr is None:
        return []
    lines = ["## mspti-trace overhead (bench/trace/trace_overhead.py, trace_overhead_instructions.sh)", ""]
    if instr is not None:
        per_step = instr["instructions_per_step"]
        lines += [
            "The ≤ 5% target is about a kernel-heavy workload. Its figure that a busy machine cannot blur is",
            "instructions: every thread's user-space instructions (callgrind) of the kernel-heavy mix traced",
            "(libmspti_trace.so + libmspti.so preloaded, every kind, pftrace) against untraced, as the slope",
            f"between {instr['steps'][0]} and {instr['steps'][1]} steps so that start-up and exit cancel out.",
            "The untraced instructions include the virtual NPU's kernels, which a real device runs off the",
            "host. Work done per unit of time (msPTI's clock steering) happens far more often per record in",
            "callgrind's slowed-down run than in a real one, so the added figure errs high.",
            "",
            "| workload | records per step | instructions per step traced / untraced | added per record | overhead | target ≤ 5% |",
            "|---|---|---|---|---|---|",
            f"| kernel-heavy mix (device on 1 core) | {instr['records_per_step']:.0f} | "
            f"{per_step['traced'] / 1e6:.2f} M / {per_step['untraced'] / 1e6:.2f} M | "
            f"{instr['instructions_per_record']:,.0f} | {instr['overhead_percent']:+.2f}% | "
            f"{verdict(instr['overhead_percent'] <= 5)} |",
            "",
        ]
    if r is None:
        return lines
    workloads = r.get("workloads", {"tiny": r})  # results of before the kernel-heavy workload
    lines += [
        "Wall and CPU time: vnpu workloads (tests/trace/trace_workload) run untraced and traced, strictly",
        "alternating, in the same run. Wall time is the whole process; CPU time (user + system) counts",
        "every thread, the writer's included. Each pair (an untraced run and the traced run right after",
        "it) gives one ratio; the table shows the median pair, its quartiles and its extremes, beside",
        "the ratio of the medians and of the fastest runs. The wall-time target counts as met when the",
        "median pair is within 5%. On this 2-core machine the virtual NPU computes on the host's cores:",
        "with its default BLAS threads it takes both, so every host-side cycle the tool spends comes out",
        "of the device's time, which a real device (computing off the host's cores) does not suffer. The",
        "second row gives the device one core and the host the other; the first keeps the default. The",
        "tiny-kernel workload is nearly all per-record work and gives the cost per record.",
        "",
        "| workload | records (dropped) | wall median traced / untraced | wall overhead: median pair [quartiles] (min … max) | median / fastest runs | target ≤ 5% (median pair) | CPU overhead: median pair [quartiles] | CPU added per record | bytes per record |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    labels = {"mix": "kernel-heavy mix, device on the host's 2 cores", "mix-device-core":
              "kernel-heavy mix, device on 1 core", "tiny": "tiny kernels"}

    def pct(x):
        return f"{x * 100:+.1f}%"

    for name in ("mix", "mix-device-core", "tiny"):
        w = workloads.get(name)
        if w is None:
            continue
        med = w["wall_median_s"]
        wp, cp = w.get("wall_pairs"), w.get("cpu_pairs")
        wall_pairs = (f"{pct(wp['median'])} [{pct(wp['q1'])}, {pct(wp['q3'])}] ({pct(wp['min'])} … {pct(wp['max'])})"
                      if wp else "–")
        cpu_pairs = f"{pct(cp['median'])} [{pct(cp['q1'])}, {pct(cp['q3'])}]" if cp else "–"
        met = wp["median"] <= 0.05 if wp else max(w["overhead_median"], w["overhead_min"]) <= 0.05
        lines.append(
            f"| {labels[name]}: {w['kernels']:,} kernels | {w['records']:,} ({w['dropped']}) | "
            f"{med['traced']:.3f} s / {med['untraced']:.3f} s | {wall_pairs} | "
            f"{pct(w['overhead_median'])} / {pct(w['overhead_min'])} | {verdict(met)} | {cpu_pairs} | "
            f"{w['cpu_us_per_record']:.2f} µs | {w['bytes_per_record']:.1f} |")
    lines.append("")
    mix, tiny = workloads.get("mix"), workloads.get("tiny")
    if mix is not None and tiny is not None and tiny["cpu_us_per_record"] > 0:
        # The mix's wall-time ratio moves with the machine's load; its records times the measured
        # cost of a record bound what the tool can add to it even if all of it were on its critical path.
        added = mix["records"] * tiny["cpu_us_per_record"] * 1e-6
        lines.append(f"- kernel-heavy mix, bound from the cost per record: {mix['records']:,} records × "
                     f"{tiny['cpu_us_per_record']:.2f} µs = {added * 1000:.1f} ms, "
                     f"{added / mix['wall_median_s']['untraced'] * 100:.1f}% of its untraced wall time (median), "
                     f"{added / mix['wall_min_s']['untraced'] * 100:.1f}% of the fastest untraced run.")
    for name in ("mix", "mix-device-core", "tiny"):
        if name in workloads and "what" in workloads[name]:
            lines.append(f"- {labels[name]}: {workloads[name]['what']}; {workloads[name]['reps']} pairs.")
    lines.append("")
    return lines


def side_by_side_section(results, file_name="side_by_side.json"):
    """msPTI's library and ours on the same workloads (bench/upstream/side_by_side.py)."""
    d = read_json(results, file_name)
    if d is None:
        return []
    k, m, p = d["kernel"], d["mark"], d["python"]
    sides = ("msPTI", "ours")

    def pct(r):
        return f"{(r - 1) * 100:+.1f}%"

    def load(avg):
        return " / ".join(f"{x:.2f}" for x in avg)

    lines = [
        "## msPTI's library and ours, side by side (bench/upstream/side_by_side.py)",
        "",
        "The same workloads, built from msPTI's public headers against each CANN tree and run in one run of",
        "`bench/upstream/side_by_side.py`: `build/ascend-upstream` with msPTI's libmspti (built from its",
        "sources, `MSPTI_UPSTREAM_SOURCE`) and `build/ascend` with ours, both preloaded, on the same virtual NPU.",
        f"Load average (1 / 5 / 15 min) on this {d['cores']}-core machine, shared with other builds:",
        f"{load(d['load_before'])} before, {load(d['load_after'])} after. Wall and CPU times move with that load;",
        "instruction counts (callgrind: every thread's user-space instructions, the slope between two amounts",
        "of work so that start-up and exit cancel out) do not, and leave out kernel time and cache effects.",
        "",
        f"KERNEL: runs of {k['ours']['kernels_per_run']:,} `aclnnAdd` kernels of 8 floats, synchronised every 256,",
        "then `msptiActivityFlushAll` until the client has read every record (msPTI's flush returns before",
        "its records are parsed), so that process CPU counts the drain and the client's walk of every record;",
        "baseline: the library loaded, nothing enabled; collection: subscribed, KERNEL enabled.",
        f"{d['rounds']} rounds of the four runs, in an order rotated each round; overhead is the median of",
        "the per-round ratios (interquartile range).",
        "For msPTI, the time until the last record was delivered is mostly waiting: its records arrive when",
        "its reader thread next parses the device channels.",
        "Markers: `mstxMarkA(\"step\", NULL)` with MARKER enabled (subscribed, drained the same way; the drain",
        "runs on another thread, and only the instruction count includes it).",
        "Python: each library's own package, an `MstxMonitor` mark callback counting records; 200,000 marks",
        "made in C into one 256 MB buffer, then `flush_all()` timed until the last record reached the",
        "callback; best of 3.",
        "",
        "| what | msPTI's library | ours |",
        "|---|---|---|",
    ]

    def row(what, fn):
        lines.append(f"| {what} | " + " | ".join(fn(s) for s in sides) + " |")

    row("KERNEL records delivered per kernel", lambda s: f"{k[s]['records_per_kernel']:.4f}")
    row("KERNEL collection, process CPU per kernel (collection / baseline)",
        lambda s: f"{k[s]['cpu_ns']['collect']:.0f} ns / {k[s]['cpu_ns']['baseline']:.0f} ns")
    row("KERNEL collection overhead, process CPU",
        lambda s: f"{pct(k[s]['cpu_ratio']['median'])} ({pct(k[s]['cpu_ratio']['q1'])} to {pct(k[s]['cpu_ratio']['q3'])})")
    row("KERNEL collection, wall time per kernel of the launches and synchronisations (collection / baseline)",
        lambda s: f"{k[s]['wall_ns']['collect']:.0f} ns / {k[s]['wall_ns']['baseline']:.0f} ns")
    row("KERNEL collection overhead, wall time of the launches and synchronisations",
        lambda s: f"{pct(k[s]['wall_ratio']['median'])} ({pct(k[s]['wall_ratio']['q1'])} to {pct(k[s]['wall_ratio']['q3'])})")
    row("KERNEL collection, wall time per kernel until the last record was delivered",
        lambda s: f"{k[s]['delivered_wall_ns']:.0f} ns")
    if all("instructions" in k[s] for s in sides):
        row("KERNEL collection, instructions per kernel (collection / baseline; mean of two callgrind runs)",
            lambda s: f"{k[s]['instructions']['collect']:,.0f} / {k[s]['instructions']['baseline']:,.0f} "
                      f"({k[s]['instructions']['collect'] - k[s]['instructions']['baseline']:+,.0f}, "
                      f"{pct(k[s]['instructions']['collect'] / k[s]['instructions']['baseline'])})")
    if all("instructions_added_runs" in k[s] for s in sides):
        row("KERNEL collection, instructions added per kernel, each of the two callgrind runs",
            lambda s: " and ".join(f"{x:+,.0f}" for x in k[s]["instructions_added_runs"]))
    if all("instructions" in m[s] for s in sides):
        row("`mstxMarkA` collected, instructions per mark (drain included)",
            lambda s: f"{m[s]['instructions']['on']:,.0f}")
        row("`mstxMarkA`, library loaded, MARKER off, instructions per mark",
            lambda s: f"{m[s]['instructions']['off']:,.0f}")
    if all("thread_cpu_ns" in m[s] for s in sides):
        row("`mstxMarkA` collected, the marking thread's CPU time per call (median of 5 runs of 1,000,000)",
            lambda s: f"{m[s]['thread_cpu_ns']['on']:.1f} ns")
        row("`mstxMarkA`, MARKER off, the marking thread's CPU time per call",
            lambda s: f"{m[s]['thread_cpu_ns']['off']:.1f} ns")
    row("`mstxMarkA` collected, wall time per call (median of 5 runs of 1,000,000)",
        lambda s: f"{m[s]['wall_ns']['on']:.1f} ns")
    row("`mstxMarkA`, MARKER off, wall time per call", lambda s: f"{m[s]['wall_ns']['off']:.1f} ns")
    row("marker records delivered per mark", lambda s: f"{m[s]['records_per_mark']:.4f}")
    row("Python per-record delivery (`MstxMonitor` mark callback)",
        lambda s: f"{p[s]['records_per_s'] / 1e6:.2f} M records/s ({p[s]['delivered']:,} of {p[s]['marks']:,} delivered)")
    lines.append("")
    return lines


def _median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def steady_state_section(results):
    d = read_json(results, "steady_state.json")
    if d is None:
        return []
    names = {"recycle": "recycles its buffers", "fresh": "mallocs a fresh 8 MB buffer per request, frees it once read",
             "monitor": "C++ `MstxMonitor`, per-record callbacks", "monitor-batch": "C++ `MstxMonitor`, batch callback"}
    any_c = next(iter(d["c"].values()))
    records = any_c["records_per_loop"]

    def fig(run, what):
        reps = run["reps"]
        wall = _median([r[what]["wall_ns"] for r in reps])
        cpu = _median([r[what]["cpu_ns"] for r in reps])
        ratio = _median([r[what]["wall_ns"] / r["tsc"]["wall_ns"] for r in reps])
        cpu_ratio = _median([r[what]["cpu_ns"] / r["tsc"]["cpu_ns"] for r in reps])
        short = _median([r["short_" + what]["wall_ns"] for r in reps])
        buffers = records * run["record_bytes"] / run["buffer_bytes"]
        if what == "range":
            buffers = (records // 2) * 2 * run["record_bytes"] / run["buffer_bytes"]
        faults = _median([r[what]["faults"] for r in reps]) / buffers
        return {"wall": wall, "cpu": cpu, "ratio": ratio, "cpu_ratio": cpu_ratio, "short": short, "faults": faults,
                "tsc": _median([r["tsc"]["wall_ns"] for r in reps]), "tsc_cpu": _median([r["tsc"]["cpu_ns"] for r in reps])}

    targets = {("mark", "recycle"): 1.6, ("mark", "fresh"): 2.0, ("range", "recycle"): 4.0, ("range", "fresh"): 4.0}
    la, lb = d["load_before"], d["load_after"]
    lines = [
        "## Steady state (bench/steady_state.py, bench/steady_state_bench.cpp)",
        "",
        *([f"Measured {d['measured']} at commit {d['commit']}.", ""] if "measured" in d else []),
        f"Loops long enough to fill {round(records * any_c['record_bytes'] / any_c['buffer_bytes'])} buffers of 8 MiB"
        f" ({records:,} records of {any_c['record_bytes']} bytes), so that what the client does with its buffers is"
        " part of the figure; one marking thread, wall time per call, median of"
        f" {d['reps']} repetitions. Baseline: a loop of TSC reads of the same length in the same repetition (the"
        " ratio is taken per repetition). The short loop, today's way of measuring, is 20,000 calls followed by"
        " an untimed flush (no buffer turns over); median of 10 in each repetition. Faults: minor page faults"
        " taken on the marking thread per buffer filled (`getrusage(RUSAGE_THREAD)`)."
        + (f" *Before*: the same program in the same run against the libmspti of"
           f" {d.get('baseline_label', 'main before this change')} (LD_LIBRARY_PATH), interleaved client by client."
           if d.get("c_baseline") else ""),
        f"Load average (1 / 5 / 15 min) on this 2-core machine: {la[0]:.2f} / {la[1]:.2f} /"
        f" {la[2]:.2f} before, {lb[0]:.2f} / {lb[1]:.2f} / {lb[2]:.2f} after: wall times move with the load;"
        " the instruction count below does not.",
        "",
        "Targets are judged on the thread-CPU ratio (the marking thread's CPU time per call, page faults"
        " included, over the TSC loop's, per repetition): on a loaded machine, wall time mostly measures"
        " waiting for a core. Both are shown.",
        "",
        "| what | client | steady state: wall (thread CPU) | against one TSC read: CPU (wall) | short loop, wall"
        " | faults on the marking thread per buffer | before, same run: wall (CPU), ×TSC CPU, faults | target | |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for what, label in (("mark", "`mstxMarkA`"), ("range", "`mstxRangeStartA`+`mstxRangeEnd`")):
        for client in ("recycle", "fresh", "monitor", "monitor-batch"):
            if client not in d["c"]:
                continue
            f = fig(d["c"][client], what)
            before = ""
            if client in d.get("c_baseline", {}):
                b = fig(d["c_baseline"][client], what)
                before = f"{b['wall']:.2f} ns ({b['cpu']:.2f} ns), ×{b['cpu_ratio']:.2f}, {b['faults']:,.0f}"
            t = targets.get((what, client))
            lines.append(f"| {label} | {names[client]} | {f['wall']:.2f} ns ({f['cpu']:.2f} ns) |"
                         f" ×{f['cpu_ratio']:.2f} (×{f['ratio']:.2f}; `rdtsc` {f['tsc_cpu']:.2f} ns) |"
                         f" {f['short']:.2f} ns | {f['faults']:,.1f} | {before} | {'≤ ×%.1f' % t if t else ''} |"
                         f" {verdict(f['cpu_ratio'] <= t) if t else ''} |")
    fl = d.get("floor")
    if fl:
        lines += ["", "**The floor on this host** (bench/marker_floor_bench.cpp, in the same run, same loops and"
                  " baseline; no libmspti): the marking thread writes each 56-byte record itself and a second thread,"
                  " the client, reads every record of each full 8 MB buffer and hands it back (4 buffers, recycled)."
                  " *Direct*: records go straight into the client's buffer. *Ring*: into a 64 KiB ring of the"
                  " marking thread, copied into the client's buffer by that thread at each quarter of the ring:"
                  " libmspti's design with nothing else (no names, ids, clock modes, flush protocol, open-range"
                  " table). A range pair is two records. A ratio of libmspti's can be read against these.", "",
                  "| design | `mstxMarkA`: thread CPU (×TSC CPU) | range pair: thread CPU (×TSC CPU) | short loop, wall:"
                  " mark, range pair |", "|---|---|---|---|"]
        for design, label in (("direct", "direct into the client's buffer"), ("ring", "thread's ring, copied")):
            if design not in fl:
                continue
            m, r = fig(fl[design], "mark"), fig(fl[design], "range")
            lines.append(f"| {label} | {m['cpu']:.2f} ns (×{m['cpu_ratio']:.2f}) | {r['cpu']:.2f} ns"
                         f" (×{r['cpu_ratio']:.2f}) | {m['short']:.2f} ns, {r['short']:.2f} ns |")
    if "instructions_per_mark" in d:
        base = d.get("instructions_per_mark_baseline")
        lines += ["", "| what | measured | before (same run) | target | |", "|---|---|---|---|---|",
                  f"| instructions per collected mark over every thread (callgrind: marking, the drain, the client"
                  f" reading each record; fresh-buffer client) | {d['instructions_per_mark']:.1f} |"
                  f" {'%.1f' % base if base else ''} | ≤ 150 | {verdict(d['instructions_per_mark'] <= 150)} |"]
    py = d.get("python")
    if py:
        lines += ["", f"Python (bench/python/steady_state_bench.py): an `MstxMonitor` with default settings (8 MB"
                  f" buffers from its pool), loops of {py['records_per_loop']:,} calls ({py['records_per_loop'] // 2:,}"
                  " range pairs), each followed by an untimed `flush_all()`; median of"
                  f" {py['repetitions']} repetitions, wall time per call (thread CPU in brackets). The short loop is"
                  " 20,000 calls (median of 10 per repetition). Baseline: an empty Python function called the same"
                  " way in the same run. Targets are judged on thread CPU time, as above.",
                  "", "| what | callback | steady state | short loop | empty call (same run) | records dropped"
                  " | before (same run): steady state, dropped | target | |", "|---|---|---|---|---|---|---|---|---|"]
        for mode, mlabel in (("batch", "batch"), ("per_record", "per record")):
            m = py[mode]
            for key, label, target in (("mark", "`mspti.mstx.mark`", 100), ("range_start_end",
                                       "`range_start` + `range_end`", 150)):
                w, c = m[key]["wall_median_ns"], m[key]["cpu_median_ns"]
                sw = m["short_" + key]["wall_median_ns"]
                e = m["empty_call"]["wall_median_ns"]
                t = target if mode == "batch" else None
                before = ""
                if d.get("python_baseline"):
                    bm = d["python_baseline"][mode]
                    before = (f"{bm[key]['wall_median_ns']:.1f} ns ({bm[key]['cpu_median_ns']:.1f} ns),"
                              f" {bm['dropped']:,}")
                lines.append(f"| {label} | {mlabel} | {w:.1f} ns ({c:.1f} ns) | {sw:.1f} ns | {e:.1f} ns |"
                             f" {m['dropped']:,} of {m['records_expected']:,} | {before} | {'≤ %d ns' % t if t else ''} |"
                             f" {verdict(c <= t) if t else ''} |")
    jv = d.get("java")
    if jv:
        lines += ["", f"Java {jv['java']} (bench/java/SteadyStateBench.java): an `MstxMonitor` with default settings,"
                  f" loops of {jv['records_per_loop']:,} calls, each followed by an untimed `flushAll()`, after 5"
                  f" warm-up rounds; median of {jv['repetitions']} repetitions, wall time per call. Baseline: a"
                  " loop of `System.nanoTime()` calls.",
                  "", "| callback | `Mstx.mark` | `rangeStart` + `rangeEnd` | short loop: mark, range |"
                  " `System.nanoTime()` (same run) | records dropped |", "|---|---|---|---|---|---|"]
        for mode, mlabel in (("per_record", "per record (`MarkerData`, `RangeMarkerData`)"),
                             ("batch", "batch (`RecordBatch`)")):
            m = jv[mode]
            lines.append(f"| {mlabel} | {m['mark_ns']:.1f} ns | {m['range_start_end_ns']:.1f} ns |"
                         f" {m['short_mark_ns']:.1f} ns, {m['short_range_start_end_ns']:.1f} ns |"
                         f" {m['nanotime_ns']:.1f} ns | {m['dropped']:,} of {m['records_expected']:,} |")
    o = d.get("others")
    if o:
        lines += ["", "Other figures of this document, re-measured in the same run"
                  + (f" (*before*: the libmspti of {d.get('baseline_label', 'main before this change')},"
                     " LD_LIBRARY_PATH, where the harness can swap it):" if d.get("c_baseline") else ":"), "",
                  "| figure | now | before (same run) | target | |", "|---|---|---|---|---|"]
        tc, tb = o.get("thread_cpu"), o.get("thread_cpu_baseline")
        if tc:
            m = tc["mstxMarkA"]
            b = tb["mstxMarkA"] if tb else None
            lines.append(f"| `mstxMarkA` thread CPU, 2 threads vs 1 (median; parallelism) | ×{m['ratio_median']:.2f}"
                         f" ({m['two_thread_parallelism_median']:.2f}) |"
                         f" {'×%.2f (%.2f)' % (b['ratio_median'], b['two_thread_parallelism_median']) if b else ''} |"
                         f" ≤ ×1.15 | {verdict(m['ratio_median'] <= 1.15)} |")
        k = o.get("kernel_instructions")
        if k:
            i = k["instructions_per_kernel"]
            lines.append(f"| KERNEL collection, user-space instructions per kernel, every thread (callgrind) |"
                         f" {i['collect']:,.0f} / {i['baseline']:,.0f} ({k['overhead_percent']:+.2f}%) | | ≤ 3% |"
                         f" {verdict(k['overhead_percent'] <= 3)} |")
        t = o.get("trace_instructions")
        if t:
            lines.append(f"| mspti-trace, kernel-heavy mix, instructions traced / untraced (callgrind) |"
                         f" {t['instructions_per_step']['traced'] / 1e6:.2f} M / {t['instructions_per_step']['untraced'] / 1e6:.2f} M"
                         f" ({t['overhead_percent']:+.2f}%) | | ≤ 5% | {verdict(t['overhead_percent'] <= 5)} |")
        jd = o.get("java_delivery")
        if jd:
            for key, what in (("java_per_record_rps", "per-record Java callback"), ("java_batch_rps",
                                                                                   "`ByteBuffer` batch callback")):
                lines.append(f"| Java delivery, records/s to a {what} (best of 5; 1,000,000 marks in one 256 MB"
                             f" buffer) | {jd[key] / 1e6:.1f} M/s | | | |")
    lines.append("")
    return lines


def _sections():
    return {"steady": steady_state_section, "markers": marker_section, "thread_cpu": marker_thread_cpu_section,
            "kernel": kernel_section, "kernel_floor": kernel_floor_section, "python": python_section,
            "python_mstx": python_mstx_section,
            "matmul": matmul_section, "java": java_section, "hccl": hccl_mpi_section, "trace": trace_section,
            "side_by_side": side_by_side_section}


def splice_sections(doc, results, keys):
    """Rewrites only the sections `keys` of doc from results (the others stay as they were): each
    replaces the section with the same heading, or, if it has none yet, goes where main() would put it."""
    with open(doc) as f:
        text = f.read().split("\n")
    blocks = {}  # heading -> (start, end) line indices
    starts = [i for i, line in enumerate(text) if line.startswith("## ")]
    for n, i in enumerate(starts):
        blocks[text[i]] = (i, starts[n + 1] if n + 1 < len(starts) else len(text))
    for key in keys:
        lines = _sections()[key](results)
        if not lines:
            continue
        heading = lines[0]
        if heading in blocks:
            a, b = blocks[heading]
            text[a:b] = lines
        else:
            # before the first existing section that main() puts after this one
            at = len(text)
            for i in starts:
                if any(text[i].startswith(h) for h in _HEADINGS_AFTER(key)):
                    at = i
                    break
            text[at:at] = lines
        starts = [i for i, line in enumerate(text) if line.startswith("## ")]
        blocks = {}
        for n, i in enumerate(starts):
            blocks[text[i]] = (i, starts[n + 1] if n + 1 < len(starts) else len(text))
    with open(doc, "w") as f:
        f.write("\n".join(text))


def _HEADINGS_AFTER(key):
    # The headings main() writes after `key`'s section (by their fixed beginnings).
    beginnings = {"steady": "## Steady state", "markers": "## Markers", "thread_cpu": "## Marker scaling",
                  "kernel": "## KERNEL collection overhead", "kernel_floor": "## KERNEL collection against",
                  "python": "## Python (", "python_mstx": "## Python mstx",
                  "matmul": "## Virtual NPU", "java": "## Java", "hccl": "## HCCL", "trace": "## mspti-trace",
                  "side_by_side": "## msPTI's library"}
    order = list(beginnings)
    return [beginnings[k] for k in order[order.index(key) + 1:]]


def main():
    results, target = sys.argv[1], sys.argv[2]
    if len(sys.argv) > 3 and sys.argv[3].startswith("--only="):
        # Some sections re-measured: rewrite just those, leave the rest of the document as it is.
        splice_sections(target, results, sys.argv[3][len("--only="):].split(","))
        return
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=os.path.dirname(os.path.abspath(target))).stdout.strip()
    lines = [
        "# Performance",
        "",
        "Written by `bench/run_benchmarks.sh` (do not edit by hand): every figure comes with its baseline",
        "from the same run.",
        "",
        f"- Machine: {machine()}",
        f"- Date: {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}, commit {commit or 'unknown'}",
        "",
    ]
    lines += steady_state_section(results)
    lines += marker_section(results)
    lines += marker_thread_cpu_section(results)
    lines += kernel_section(results)
    lines += kernel_floor_section(results)
    lines += python_section(results)
    lines += python_mstx_section(results)
    lines += matmul_section(results)
    lines += java_section(results)
    lines += hccl_mpi_section(results)
    lines += trace_section(results)
    lines += side_by_side_section(results)
    extra = os.path.join(os.path.dirname(os.path.abspath(target)), "performance-notes.md")
    if os.path.exists(extra):
        lines += [open(extra).read().rstrip(), ""]
    with open(target, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
