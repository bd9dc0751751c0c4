#!/usr/bin/env bash
# mspti-trace overhead in instructions, which a busy machine does not change: every thread's
# user-space instructions (callgrind) of the kernel-heavy mix (trace_workload --mix, as in
# trace_overhead.py) traced (libmspti_trace.so + libmspti.so preloaded, every kind, pftrace)
# against untraced. Each figure is the slope between two numbers of steps, so start-up and exit
# cancel out; records per step come from the traced runs' own statistics.
# Usage: bench/trace/trace_overhead_instructions.sh BUILD_DIR OUT.json
set -euo pipefail
command -v valgrind >/dev/null || { echo "valgrind not installed: skipped" >&2; exit 0; }
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "$1" && pwd)"
out="$2"
source "$root/bench/callgrind_total.sh"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
small=2 large=8  # steps; about 5 s of callgrind each (a step is ~56 M instructions)
mix=(--mix --layers 8 --width 512)
# OpenBLAS's worker threads spin while they wait, a count that depends on timing: one thread.
export OPENBLAS_NUM_THREADS=1
# Under callgrind a run is ~100x slower, so a 250 ms period would give ~100x more windows per
# record than a real run; the writer still writes a window every 2 MiB of buffers and at exit.
export MSPTI_TRACE_FLUSH_MS=3600000
unset LD_PRELOAD
total() {  # total traced|untraced STEPS: instructions of the whole run, all threads
  if [ "$1" = traced ]; then
    rm -rf "$tmp/trace-$2" && mkdir "$tmp/trace-$2"
    LD_PRELOAD="$build/lib/libmspti_trace.so $build/lib/libmspti.so" MSPTI_TRACE_DIR="$tmp/trace-$2" \
      callgrind_total "$tmp" "$build/bin/trace_workload" "${mix[@]}" --iters "$2"
  else
    callgrind_total "$tmp" "$build/bin/trace_workload" "${mix[@]}" --iters "$2"
  fi
}
traced_small="$(total traced "$small")" traced_large="$(total traced "$large")"
base_small="$(total untraced "$small")" base_large="$(total untraced "$large")"
PYTHONPATH="$root/python" /usr/bin/python3 - "$out" "$tmp" <<PY
import glob, json, sys
from mspti_trace import pftrace_reader

def records(steps):  # delivered and dropped records of the traced run with this many steps
    (path,) = glob.glob(f"{sys.argv[2]}/trace-{steps}/trace.*.pftrace")
    t = pftrace_reader.load_pftrace(path, strict=True)
    st = [e for e in t.events if e["name"] == "mspti-trace stats"][0]["args"]
    return (sum(v for k, v in st.items() if k.startswith("delivered.")),
            sum(v for k, v in st.items() if k.startswith("dropped.")))

steps = $large - $small
(rec_small, drop_small), (rec_large, drop_large) = records($small), records($large)
per_step = {"traced": ($traced_large - $traced_small) / steps, "untraced": ($base_large - $base_small) / steps}
records_per_step = (rec_large - rec_small) / steps
added = per_step["traced"] - per_step["untraced"]
result = {"what": "trace_workload --mix --layers 8 --width 512 (OPENBLAS_NUM_THREADS=1), "
                  f"{$small} and {$large} steps under callgrind",
          "steps": [$small, $large], "instructions_per_step": per_step, "records_per_step": records_per_step,
          "dropped": drop_small + drop_large, "instructions_per_record": added / records_per_step,
          "overhead_percent": added / per_step["untraced"] * 100}
json.dump(result, open(sys.argv[1], "w"), indent=1)
print(json.dumps(result))
PY
