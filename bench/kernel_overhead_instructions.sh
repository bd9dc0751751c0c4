#!/usr/bin/env bash
# KERNEL collection overhead in instructions, which a busy machine does not change: every
# thread's user-space instructions (callgrind) per aclnnAdd kernel with KERNEL collected and
# drained into client buffers, against libmspti interposing with nothing enabled. Each figure is
# the slope between two amounts of work, so start-up and exit cancel out.
# Usage: bench/kernel_overhead_instructions.sh BUILD_DIR OUT.json
set -euo pipefail
command -v valgrind >/dev/null || { echo "valgrind not installed: skipped" >&2; exit 0; }
bin="$1/bin/bench_kernel_overhead"
out="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
small=8 large=40 batch=256
source "$(dirname "$0")/callgrind_total.sh"
total() {  # total MODE BATCHES: instructions of the whole run, all threads
  callgrind_total "$tmp" "$bin" --fixed="$1" "$2"
}
collect_small="$(total collect "$small")" collect_large="$(total collect "$large")"
base_small="$(total baseline "$small")" base_large="$(total baseline "$large")"
/usr/bin/python3 - "$out" <<PY
import json, sys
kernels = ($large - $small) * $batch
collect = ($collect_large - $collect_small) / kernels
baseline = ($base_large - $base_small) / kernels
result = {"instructions_per_kernel": {"collect": collect, "baseline": baseline},
          "overhead_percent": (collect / baseline - 1) * 100, "kernels": kernels}
json.dump(result, open(sys.argv[1], "w"))
print(json.dumps(result))
PY
