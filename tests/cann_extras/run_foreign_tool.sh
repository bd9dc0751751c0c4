#!/usr/bin/env bash
# Plays a CANN user with a foreign tool: source <toolkit>/set_env.sh, build the tool with CMake from
# ASCEND_HOME_PATH, run it under LD_PRELOAD=$ASCEND_HOME_PATH/lib64/libmspti.so, check its output
# and its log lines (stdout, then files under ASCEND_PROCESS_LOG_PATH).
# Usage: run_foreign_tool.sh <toolkit dir> <tool source dir> <work dir>
set -euo pipefail
toolkit=$1 src=$2 work=$3

fail() { echo "FAIL: $*" >&2; exit 1; }
expect() {  # expect <file> <count> <extended regex>
    local n
    n=$(grep -cE -- "$3" "$1" || true)
    [ "$n" -eq "$2" ] || { cat "$1" >&2; fail "$1: $n lines match '$3', expected $2"; }
}

unset ASCEND_HOME_PATH ASCEND_TOOLKIT_HOME ASCEND_PROCESS_LOG_PATH ASCEND_SLOG_PRINT_TO_STDOUT ASCEND_GLOBAL_LOG_LEVEL
# shellcheck disable=SC1091
source "$toolkit/set_env.sh"
[ "$ASCEND_HOME_PATH" = "$(cd "$toolkit" && pwd)" ] || fail "ASCEND_HOME_PATH=$ASCEND_HOME_PATH"
case ":$LD_LIBRARY_PATH:" in *":$ASCEND_HOME_PATH/lib64:"*) ;; *) fail "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" ;; esac
before=$LD_LIBRARY_PATH
source "$toolkit/set_env.sh"  # a second source adds nothing
[ "$LD_LIBRARY_PATH" = "$before" ] || fail "sourcing twice changed LD_LIBRARY_PATH"
if [ -f "$ASCEND_HOME_PATH/python/site-packages/mspti/__init__.py" ]; then
    # find_spec locates the packages without importing them (the extension may not be built).
    python3 - <<'PY' || fail "the Python packages are not found through PYTHONPATH=$PYTHONPATH"
import importlib.util, os, sys
home = os.environ["ASCEND_HOME_PATH"]
for name in ("mspti", "vnpu"):
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin.startswith(home):
        sys.exit(f"{name}: {spec and spec.origin}")
PY
fi

rm -rf "$work" && mkdir -p "$work"
cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail configure; }
cmake --build "$work/build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail build; }

# 1. log lines on stdout, info level
ASCEND_SLOG_PRINT_TO_STDOUT=1 ASCEND_GLOBAL_LOG_LEVEL=1 LD_PRELOAD="$ASCEND_HOME_PATH/lib64/libmspti.so" \
    "$work/build/foreign_tool" >"$work/stdout.txt" 2>&1 || { cat "$work/stdout.txt"; fail "the tool failed"; }
out=$work/stdout.txt
expect "$out" 1 '^securec: ok name=foreign_tool\.rank0 device=0 size=8 tag=add short=tru$'
expect "$out" 1 '^add: ok out\[7\]=8\.0$'
expect "$out" 1 '^\[KERNEL\] type: .+, name: .+, duration_ok: 1$'
expect "$out" 1 '^\[MARKER\] name: foreign_tool_add, name_length: 16$'
expect "$out" 1 '^records: kernels=1 markers=1$'
stamp='[0-9]{4}-[0-9]{2}-[0-9]{2}-[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}\.[0-9]{3}'
expect "$out" 1 "^\[INFO\] APP\([0-9]+,foreign_tool\):$stamp \[.*main\.cpp:[0-9]+\]foreign tool starting, pid [0-9]+$"
expect "$out" 1 "^\[INFO\] PROFILING\([0-9]+,foreign_tool\):$stamp \(foreign\)\[main\.cpp:[0-9]+\] >>> \(tid:1\) libascendalog loaded by dlopen$"
expect "$out" 1 "^\[INFO\] APP\([0-9]+,foreign_tool\):$stamp \[.*main\.cpp:[0-9]+\]aclnnAdd done, workspace [0-9]+ bytes$"

# 2. the default level (error): no info lines; logs to files, not stdout
ASCEND_PROCESS_LOG_PATH="$work/log" ASCEND_GLOBAL_LOG_LEVEL=1 LD_PRELOAD="$ASCEND_HOME_PATH/lib64/libmspti.so" \
    "$work/build/foreign_tool" >"$work/stdout2.txt" 2>&1 || { cat "$work/stdout2.txt"; fail "the tool failed (file logging)"; }
expect "$work/stdout2.txt" 0 '^\[INFO\]'
expect "$work/stdout2.txt" 1 '^records: kernels=1 markers=1$'
shopt -s nullglob
files=("$work"/log/debug/plog/plog-*.log)
[ "${#files[@]}" -eq 1 ] || fail "expected one plog file, found ${#files[@]}"
expect "${files[0]}" 1 'libascendalog loaded by dlopen$'
expect "${files[0]}" 1 'foreign tool starting'
LD_PRELOAD="$ASCEND_HOME_PATH/lib64/libmspti.so" ASCEND_SLOG_PRINT_TO_STDOUT=1 \
    "$work/build/foreign_tool" >"$work/stdout3.txt" 2>&1 || fail "the tool failed (default level)"
expect "$work/stdout3.txt" 0 '^\[INFO\]'
echo "foreign CANN tool: ok"
