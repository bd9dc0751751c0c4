# Sourced by the instruction-count benchmarks: callgrind_total TMPDIR CMD... prints the user-space
# instructions of every thread of one run of CMD (its output discarded; on failure its log is
# shown and the script exits).
callgrind_total() {
  local tmp="$1"
  shift
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$@" >/dev/null 2>"$tmp/log" ||
    { cat "$tmp/log" >&2; exit 1; }
  sed -n 's/^summary: *//p' "$tmp/cg.out"
}
