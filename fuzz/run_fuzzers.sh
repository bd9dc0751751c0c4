#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan, in build-fuzz/) and runs each for a
# bounded time (MSPTI_FUZZ_SECONDS, default 30). Exits non-zero if a target finds a crash;
# the crashing input is left in build-fuzz/crashes/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${MSPTI_FUZZ_SECONDS:-30}"
dir=build-fuzz

cmake -S . -B "$dir" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMSPTI_BUILD_FUZZERS=ON -DMSPTI_SANITIZE=address,undefined -DMSPTI_BUILD_TESTS=OFF -DMSPTI_BUILD_BENCH=OFF \
  -DMSPTI_BUILD_DOCS=OFF -DMSPTI_BUILD_SAMPLES=OFF -DMSPTI_BUILD_VNPU=OFF -DMSPTI_BUILD_PYTHON=OFF \
  -DMSPTI_BUILD_JAVA=OFF >/dev/null
cmake --build "$dir" -j"$(nproc)" --target get_next_record_fuzzer mstx_fuzzer pftrace_columns_fuzzer

mkdir -p "$dir/crashes"
for fuzzer in get_next_record_fuzzer mstx_fuzzer pftrace_columns_fuzzer; do
  corpus="$dir/corpus/$fuzzer"
  mkdir -p "$corpus"
  echo "== $fuzzer: ${seconds}s ==" >&2
  log="$dir/$fuzzer.log"
  if ! "$dir/bin/$fuzzer" "$corpus" -max_total_time="$seconds" -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$dir/crashes/$fuzzer-" >"$log" 2>&1; then
    tail -n 60 "$log" >&2
    echo "$fuzzer failed; its log is $log, the input in $dir/crashes/" >&2
    exit 1
  fi
  grep -E "^Done|peak_rss" "$log" >&2
done
