#!/usr/bin/env bash
# Builds the wheel of the Python packages from a built tree, offline, with Debian's python3-build:
#     cmake/wheel/build_wheel.sh <build dir> <output dir>
# It installs the build into a temporary prefix, takes the Python packages from there (their
# extension modules have $ORIGIN runpaths that also look in mspti/_libs), adds the native libraries
# under mspti/_libs and the _paths.py that points mspti's loader there.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "$1" && pwd)"
mkdir -p "$2"
out="$(cd "$2" && pwd)"
python="${PYTHON:-/usr/bin/python3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build" --prefix "$tmp/stage" >/dev/null
pydir="$(echo "$tmp"/stage/lib/python3*/dist-packages)"
src="$tmp/src"
mkdir -p "$src"
cp -r "$pydir"/. "$src"/
cp "$here/setup.py" "$here/pyproject.toml" "$src"/
libs="$src/mspti/_libs"
mkdir -p "$libs"
# libmspti.so under its link name (the ctypes loader and mspti-trace's LD_PRELOAD use it; loaded first,
# it answers the others' DT_NEEDED libmspti.so.0); the others under the names the linker looks for.
cp -L "$tmp/stage/lib/libmspti.so" "$libs/libmspti.so"
cp -L "$tmp/stage/lib/libmspti_monitor.so.0" "$libs/"
for lib in libvnpu.so libprofapi.so libascend_hal.so libvnpu_hccl_mpi.so libmspti_trace.so libmspti_trace_reader.so; do
  if [ -e "$tmp/stage/lib/$lib" ]; then cp -L "$tmp/stage/lib/$lib" "$libs/"; fi
done
# Debug information stays in the build tree.
if command -v strip >/dev/null; then
  find "$src" -name '*.so*' -type f -exec strip --strip-debug {} +
fi
cat > "$src/mspti/_paths.py" <<'PY'
"""Written by build_wheel.sh: the wheel keeps its native libraries in mspti/_libs."""
import os

LIB_DIR = os.path.join(os.path.dirname(__file__), "_libs")
PY
version="$(sed -n 's/^CMAKE_PROJECT_VERSION:[A-Z]*=//p' "$build/CMakeCache.txt")"
(cd "$src" && MSPTI_VERSION="${version:-0.0.0}" "$python" -m build --wheel --no-isolation --outdir "$out" . >"$tmp/build.log" 2>&1) \
  || { cat "$tmp/build.log" >&2; exit 1; }
ls "$out"/mspti-"${version}"-*.whl
