#!/usr/bin/env bash
# Runs every benchmark of a build and rewrites docs/performance.md from the results.
# Usage: bench/run_benchmarks.sh [build-dir]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out="$build/bench-results"
mkdir -p "$out"
common=(--benchmark_min_time=0.5 --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true
        --benchmark_report_aggregates_only=true --benchmark_format=json)

run() {  # run NAME: bin/NAME -> $out/NAME.json, if it was built
  local bin="$build/bin/$1"
  if [ -x "$bin" ]; then
    echo "== $1" >&2
    "$bin" "${common[@]}" > "$out/$1.json"
  fi
}

# Markers in steady state (loops that fill 24 buffers) for every client; MSPTI_BENCH_BASELINE_LIB=DIR
# also measures the libmspti in DIR in the same run (bench/steady_state.py).
if [ -x "$build/bin/bench_steady_state" ]; then
  echo "== steady_state" >&2
  /usr/bin/python3 "$root/bench/steady_state.py" "$build" "$out/steady_state.json" \
    ${MSPTI_BENCH_BASELINE_LIB:+--baseline-lib "$MSPTI_BENCH_BASELINE_LIB"}
fi
run bench_markers
run bench_markers_notool
# CPU time per mark, 2 producer threads against 1 (a plain program; its JSON on stdout).
if [ -x "$build/bin/bench_marker_thread_cpu" ]; then
  echo "== bench_marker_thread_cpu" >&2
  "$build/bin/bench_marker_thread_cpu" > "$out/bench_marker_thread_cpu.json"
fi
# Its own defaults (41 interleaved repetitions) and reporter; the JSON goes to a file.
if [ -x "$build/bin/bench_kernel_overhead" ]; then
  echo "== bench_kernel_overhead" >&2
  "$build/bin/bench_kernel_overhead" --benchmark_out="$out/bench_kernel_overhead.json" \
    --benchmark_out_format=json >"$out/bench_kernel_overhead.txt"
fi
# Strict pairs (ABBA) of the same work, each run ending with a flush: the headline KERNEL figure.
if [ -x "$build/bin/bench_kernel_overhead" ]; then
  echo "== bench_kernel_overhead --pairs" >&2
  "$build/bin/bench_kernel_overhead" --pairs=200 >"$out/kernel_overhead_pairs.json"
fi
# The same against its floor (the interfaces asked for and read, nothing parsed, no libmspti), alternating.
if [ -x "$build/bin/bench_kernel_floor" ] && [ -x "$build/bin/bench_kernel_overhead" ]; then
  echo "== kernel_floor" >&2
  /usr/bin/python3 "$root/bench/kernel_floor.py" "$build" "$out/kernel_floor.json" >/dev/null
fi
# The same overhead in instructions (callgrind), which a busy machine does not change.
if [ -x "$build/bin/bench_kernel_overhead" ]; then
  echo "== kernel_overhead_instructions" >&2
  bash "$root/bench/kernel_overhead_instructions.sh" "$build" "$out/kernel_overhead_instructions.json" >/dev/null
fi
# Python delivery and mstx (bench/python; needs the Python module and bench_cpp_delivery, its baseline).
if [ -x "$build/bin/bench_cpp_delivery" ] && [ -d "$build/python/mspti" ]; then
  echo "== python delivery_bench" >&2
  PYTHONPATH="$build/python" /usr/bin/python3 "$root/bench/python/delivery_bench.py" "$build" "$out/python_delivery.json" >/dev/null
fi
# mstx calls from Python against an empty Python call (bench/python/mstx_bench.py).
if [ -d "$build/python/mspti" ]; then
  echo "== python mstx_bench" >&2
  PYTHONPATH="$build/python" /usr/bin/python3 "$root/bench/python/mstx_bench.py" "$out/python_mstx.json" >/dev/null
fi
# The guide's example 3.2 at full size on the virtual NPU, next to numpy (bench/python/matmul_bench.py).
if [ -d "$build/python/vnpu" ]; then
  echo "== python matmul_bench" >&2
  PYTHONPATH="$build/python" /usr/bin/python3 "$root/bench/python/matmul_bench.py" "$out/python_matmul.json" >/dev/null
fi
# Java delivery (bench/java; needs mspti.jar, mspti-bench.jar and bench_cpp_delivery, its baseline).
if [ -f "$build/java/mspti-bench.jar" ] && [ -x "$build/bin/bench_cpp_delivery" ]; then
  echo "== java DeliveryBench" >&2
  java_bin="${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}/bin/java"
  [ -x "$java_bin" ] || java_bin=java
  "$java_bin" -cp "$build/java/mspti.jar:$build/java/mspti-bench.jar" DeliveryBench 1000000 \
    "$build/bin/bench_cpp_delivery" > "$out/java_delivery.json"
fi
# HCCL all-reduce on Open MPI against plain MPI_Allreduce (needs bench_hccl_mpi and mpirun); 4 ranks, TCP.
if [ -x "$build/bin/bench_hccl_mpi" ] && command -v mpirun >/dev/null; then
  echo "== bench_hccl_mpi" >&2
  mpirun --allow-run-as-root --oversubscribe --mca btl tcp,self -np 4 "$build/bin/bench_hccl_mpi" > "$out/hccl_mpi.json"
fi
# mspti-trace, traced vs untraced (bench/trace; needs trace_workload and libmspti_trace.so).
if [ -x "$build/bin/trace_workload" ] && [ -f "$build/lib/libmspti_trace.so" ]; then
  echo "== trace_overhead" >&2
  /usr/bin/python3 "$root/bench/trace/trace_overhead.py" "$build" "$out/trace_overhead.json" >/dev/null
  # The trace's overhead in instructions (callgrind), which a busy machine does not change.
  echo "== trace_overhead_instructions" >&2
  bash "$root/bench/trace/trace_overhead_instructions.sh" "$build" "$out/trace_overhead_instructions.json" >/dev/null
fi
# msPTI's library and ours on the same workloads (needs msPTI's libmspti, built from MSPTI_UPSTREAM_SOURCE);
# alone: bench/upstream/side_by_side.py BUILD OUT.json --doc docs/performance.md rewrites just its section.
if [ -f "$build/ascend-upstream/lib64/libmspti.so" ]; then
  echo "== side_by_side" >&2
  /usr/bin/python3 "$root/bench/upstream/side_by_side.py" "$build" "$out/side_by_side.json"
fi
/usr/bin/python3 "$root/bench/write_performance_md.py" "$out" "$root/docs/performance.md"
echo "wrote $root/docs/performance.md" >&2
