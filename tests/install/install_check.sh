#!/usr/bin/env bash
# Installs a built tree, moves the prefix (it must be relocatable), and builds and runs consumers
# out of tree against it: C through pkg-config, C++ through find_package(mspti), Python by import
# from the prefix, Java with -cp mspti.jar only (next to its libraries, then alone: the libraries
# inside the jar); msPTI's own samples through pkg-config (MSPTI_UPSTREAM_SOURCE). Then the wheel in a
# fresh venv, the .deb's metadata and file list, lintian, and dpkg -i / -r in a throwaway root
# (deb_install_check.sh). MSPTI_DOC_TARGETS (e.g. "docs javadoc") are built first, to be installed.
#     tests/install/install_check.sh <build dir>
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source_dir="$(cd "$here/../.." && pwd)"
build="$(cd "$1" && pwd)"
python=/usr/bin/python3
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }
# No path into the build tree may help: the consumers see only the prefix.
unset LD_LIBRARY_PATH LD_PRELOAD PYTHONPATH MSPTI_LIB_DIR VNPU_LIB_DIR MSPTI_LIBRARY_DIR ASCEND_HOME_PATH CMAKE_PREFIX_PATH

check_output() {  # <expected.txt> <command...>
  local expected="$1"; shift
  cmake -DSAMPLE="$*" -DENV= -DEXPECTED="$expected" -P "$source_dir/samples/common/check_output.cmake" \
    >"$tmp/sample.log" 2>&1 || { cat "$tmp/sample.log" >&2; fail "$* (expected: $expected)"; }
}

step "API documentation: Doxygen and javadoc, to install with the rest"
# A target that fails (docs fails on any Doxygen warning; CI builds it as a step of its own) is
# reported, and its installation is not checked.
doc_built=""
for target in ${MSPTI_DOC_TARGETS:-}; do
  if cmake --build "$build" --target "$target" >"$tmp/docs.log" 2>&1; then
    doc_built="$doc_built $target"
  else
    tail -5 "$tmp/docs.log" >&2
    echo "WARNING: the $target target failed (above): its installation is not checked"
  fi
done

step "install, then move the prefix"
cmake --install "$build" --prefix "$tmp/first" >/dev/null
mv "$tmp/first" "$tmp/prefix"
prefix="$tmp/prefix"
pydir="$(echo "$prefix"/lib/python3*/dist-packages)"
[ -d "$pydir" ] || fail "no lib/python3.X/dist-packages in the prefix"
for f in lib/libmspti.so lib/libmspti_monitor.so lib/cmake/mspti/msptiConfig.cmake lib/cmake/mspti/msptiConfigVersion.cmake \
         lib/cmake/mspti/msptiTargets.cmake lib/pkgconfig/mspti.pc lib/pkgconfig/mspti-monitor.pc include/mspti/mspti.h \
         include/mspti/monitor.h include/mspti/monitor_records.h include/mstx/ms_tools_ext.h \
         lib/mspti/vnpu/set_env.sh lib/mspti/vnpu/include/acl/acl.h lib/mspti/vnpu/include/securec.h \
         lib/mspti/vnpu/lib64/libascendcl.so share/java/mspti.jar share/doc/mspti/copyright share/doc/mspti/changelog.gz \
         share/man/man1/mspti-trace.1.gz; do
  [ -e "$prefix/$f" ] || fail "$f is not installed"
done
for doc in docs:html javadoc:java; do  # the documentation built above is installed
  if [[ "$doc_built " == *" ${doc%%:*} "* ]]; then
    [ -e "$prefix/share/doc/mspti/${doc#*:}/index.html" ] || fail "share/doc/mspti/${doc#*:}/index.html is not installed"
  fi
done
# The CANN stand-in headers must not shadow a real CANN from <prefix>/include.
for f in acl aclnn aclnnop hccl toolchain vnpu securec.h securectype.h; do
  [ ! -e "$prefix/include/$f" ] || fail "include/$f is installed into <prefix>/include"
done
for f in libc_sec.so libascendalog.so libascendcl.so; do
  [ ! -e "$prefix/lib/$f" ] || fail "lib/$f is installed into <prefix>/lib"
done
# Runpaths: relative only.
for f in "$prefix"/lib/*.so "$pydir"/*/*.so; do
  if readelf -d "$f" | grep -E 'R(UN)?PATH' | grep "$build"; then fail "$f has a runpath into the build tree"; fi
done

step "C consumer through pkg-config"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cc -std=c99 -o "$tmp/c_activity" "$source_dir/samples/c_activity/c_activity.c" $(pkg-config --cflags --libs mspti) \
   -Wl,-rpath,"$(pkg-config --variable=libdir mspti)"
check_output "$source_dir/samples/c_activity/expected.txt" "$tmp/c_activity"
[ "$(pkg-config --modversion mspti-monitor)" = "$(pkg-config --modversion mspti)" ] || fail "pc versions differ"
pkg-config --libs mspti-monitor | grep -- '-lmspti_monitor' >/dev/null || fail "mspti-monitor.pc: no -lmspti_monitor"

step "msPTI's own samples, unchanged, with pkg-config --cflags --libs mspti"
# They include "mspti.h" (CANN puts include/mspti on the include path; so do our pkg-config files)
# and the CANN headers and libraries (the virtual CANN, as set_env.sh names it).
upstream="${MSPTI_UPSTREAM_SOURCE:-}"
case "$upstream" in ""|/*) ;; *) upstream="$source_dir/$upstream" ;; esac  # relative to the source tree
if [ -z "$upstream" ]; then
  echo "SKIPPED: MSPTI_UPSTREAM_SOURCE is unset (msPTI's sources, e.g. ../shared/upstream/mspti): its samples are not built"
elif [ ! -d "$upstream/samples/common" ]; then
  fail "MSPTI_UPSTREAM_SOURCE=$MSPTI_UPSTREAM_SOURCE: no samples/common in $upstream"
else
  cp -r "$upstream/samples" "$tmp/upstream_samples"  # read-only where CI runs
  cann="$prefix/lib/mspti/vnpu"
  for src in "$tmp"/upstream_samples/*/*.cpp; do
    name="$(basename "$src" .cpp)"
    # shellcheck disable=SC2046  # pkg-config's flags are words
    c++ -std=c++11 -o "${src%.cpp}" "$src" -I"$tmp/upstream_samples" -I"$cann/include" \
        $(pkg-config --cflags --libs mspti) -L"$cann/lib64" -lascendcl -lnnopbase -lopapi -lhccl -lc_sec -pthread \
        -Wl,-rpath,"$prefix/lib" -Wl,-rpath,"$cann/lib64" 2>"$tmp/upstream.log" \
      || { cat "$tmp/upstream.log" >&2; fail "msPTI's sample $name does not build against the prefix"; }
  done
  # One runs on the virtual NPU, its records delivered by the prefix's libmspti.so.
  out="$(cd "$tmp" && "$tmp/upstream_samples/mspti_activity/mspti_activity")" || fail "msPTI's mspti_activity failed: $out"
  echo "$out" | grep "^\[KERNEL\] .*name: Axpy" >/dev/null || fail "msPTI's mspti_activity reported no kernel: $out"
  echo "built $(ls "$tmp"/upstream_samples/*/*.cpp | wc -l) of msPTI's samples"
fi
pkg-config --cflags mspti-monitor | grep -- "-I[^ ]*/include/mspti\b" >/dev/null || fail "mspti-monitor.pc: no include/mspti in $(pkg-config --cflags mspti-monitor)"

step "C++ consumer through find_package(mspti)"
cmake -S "$here/consumer_cpp" -B "$tmp/consumer_cpp" -DCMAKE_PREFIX_PATH="$prefix" \
      -DSAMPLE_SOURCE="$source_dir/samples/cpp_monitor/cpp_monitor.cpp" >/dev/null
cmake --build "$tmp/consumer_cpp" >/dev/null
check_output "$source_dir/samples/cpp_monitor/expected.txt" "$tmp/consumer_cpp/cpp_monitor"
"$tmp/consumer_cpp/cann_style" || fail "a program including \"mspti.h\" through mspti::mspti"

step "Python: import from the prefix"
# The prefix's Python directory is where Debian's python3 looks for /usr/local (posix_local) and /usr.
rel="${pydir#"$prefix"/}"
"$python" -c "
import sys, sysconfig
local = sysconfig.get_paths('posix_local')['purelib']
assert local == '/usr/local/$rel', (local, '$rel')
assert local in sys.path and '/usr/$rel' in sys.path, sys.path
" || fail "$rel is not where Debian's python3 looks"
(cd "$tmp" && PYTHONPATH="$pydir" "$python" -c "
import mspti, vnpu, mspti_trace, sys, os
for m in (mspti, vnpu, mspti_trace):
    assert m.__file__.startswith('$prefix/'), m.__file__
from mspti_trace import report
assert 'selfcheck' in report._asset('report.js') and ':root' in report._asset('report.css')  # package data installed
maps = open('/proc/self/maps').read()
assert '$prefix/lib/libmspti.so' in maps and '$prefix/lib/libvnpu.so' in maps, 'libraries not from the prefix'
assert '$build' not in maps, 'something was loaded from the build tree'
print('python ok')
")
out="$(cd "$tmp" && PYTHONPATH="$pydir" "$python" "$source_dir/samples/python_mstx_monitor/python_mstx_monitor.py")" \
  || fail "python sample failed"
echo "$out" | grep "\[RANGE\] sourceKind: [A-Z_]*HOST, .*name: 'mstx_matmul'" >/dev/null || fail "python sample: no HOST range: $out"
# Typed: the installed packages carry py.typed and their stubs, so mypy --strict checks a sample
# against the prefix (with python3-mypy; an error in the stubs or a missing one fails it).
if "$python" -c "import mypy" 2>/dev/null; then
  for f in mspti/py.typed vnpu/py.typed mspti/activity_data.pyi mspti/monitor/_kinds.pyi vnpu/native.pyi; do
    [ -e "$pydir/$f" ] || fail "$f is not installed"
  done
  (cd "$tmp" && PYTHONPATH="$pydir" "$python" -m mypy --strict --cache-dir "$tmp/mypy_prefix" \
     "$source_dir/samples/python_monitor/python_monitor.py" "$source_dir/samples/python_mstx_monitor/python_mstx_monitor.py") \
    || fail "mypy --strict on the samples against the prefix"
else
  echo "SKIPPED: mypy is not installed (python3-mypy): the installed stubs are not type-checked"
fi
# The launcher finds its package and libraries relative to itself.
"$prefix/bin/mspti-trace" --help >/dev/null || fail "mspti-trace --help"
"$prefix/bin/mspti-trace" --version | grep -x "mspti-trace $(pkg-config --modversion mspti)" >/dev/null \
  || fail "mspti-trace --version"
step "mspti-trace: the README's trace commands as written, build/bin/mspti-trace being the installed launcher"
mkdir "$tmp/readme"
ln -s "$source_dir/samples" "$tmp/readme/samples"
"$python" "$source_dir/tests/trace/readme_commands.py" "$source_dir/README.md" >"$tmp/readme_commands"
[ -s "$tmp/readme_commands" ] || fail "no mspti-trace commands in README.md"
while IFS= read -r line; do
  (cd "$tmp/readme" && PATH="/usr/bin:$PATH" bash -c "${line//build\/bin\/mspti-trace/$prefix/bin/mspti-trace}") \
    >"$tmp/readme.log" 2>&1 || { tail -20 "$tmp/readme.log" >&2; fail "README: $line"; }
done <"$tmp/readme_commands"
[ -e "$tmp/readme/report.html" ] || fail "README: no report.html"
# Sourcing set_env.sh makes the prefix a CANN toolkit for CANN-style builds.
(source "$prefix/lib/mspti/vnpu/set_env.sh" && [ "$ASCEND_HOME_PATH" = "$prefix/lib/mspti/vnpu" ] \
  && [ -e "$ASCEND_HOME_PATH/python/site-packages/vnpu/__init__.py" ]) || fail "set_env.sh"

step "Java: -cp mspti.jar only"
javac -d "$tmp/java_classes" -cp "$prefix/share/java/mspti.jar" "$source_dir/samples/java_monitor/JavaMonitor.java"
java -cp "$prefix/share/java/mspti.jar:$tmp/java_classes" JavaMonitor | grep '^kernel records: 3, mstx records: [0-9]*$' \
  || fail "java sample from <prefix>/share/java"
mkdir "$tmp/jar_alone"
cp "$prefix/share/java/mspti.jar" "$tmp/jar_alone/"
out="$(java -Xlog:library=info -cp "$tmp/jar_alone/mspti.jar:$tmp/java_classes" JavaMonitor)" || fail "java sample, jar alone"
echo "$out" | grep '^kernel records: 3, mstx records: [0-9]*$' >/dev/null || fail "java sample with the jar alone: $out"
for lib in libmspti.so.0 libmspti_monitor.so.0 libmspti_java.so libvnpu.so libvnpu_java.so; do
  echo "$out" | grep "Loaded library .*/mspti-native[0-9]*/$lib," >/dev/null || fail "$lib was not loaded from the jar: $out"
done
unzip -l "$prefix/share/java/mspti.jar" | grep 'org/mspti/native/linux-.*/libmspti_java.so' >/dev/null || fail "no JNI library in the jar"
unzip -p "$prefix/share/java/mspti.jar" META-INF/maven/org.mspti/mspti/pom.properties | grep -x "version=$(pkg-config --modversion mspti)" \
  >/dev/null || fail "mspti.jar: no META-INF/maven/org.mspti/mspti/pom.properties with the version"
unzip -p "$prefix/share/java/mspti.jar" META-INF/maven/org.mspti/mspti/pom.xml | grep '<artifactId>mspti</artifactId>' >/dev/null \
  || fail "mspti.jar: no META-INF/maven/org.mspti/mspti/pom.xml"
unzip -l "$prefix/share/java/mspti-sources.jar" | grep ' org/mspti/KernelMonitor.java$' >/dev/null || fail "mspti-sources.jar lacks KernelMonitor.java"
unzip -l "$prefix/share/java/mspti-javadoc.jar" | grep ' org/mspti/KernelMonitor.html$' >/dev/null || fail "mspti-javadoc.jar lacks KernelMonitor.html"

step "wheel: built offline, installed into a fresh venv"
"$source_dir/cmake/wheel/build_wheel.sh" "$build" "$tmp/dist" >/dev/null
wheel="$(echo "$tmp"/dist/mspti-*.whl)"
unzip -l "$wheel" | grep 'mspti/_libs/libmspti.so$' >/dev/null || fail "the wheel carries no libmspti.so"
for f in mspti/py.typed vnpu/py.typed mspti/__init__.pyi mspti/monitor/_kinds.pyi vnpu/native.pyi \
         mspti_trace/report_assets/report.css mspti_trace/report_assets/report.js; do
  unzip -l "$wheel" | grep " $f\$" >/dev/null || fail "the wheel carries no $f"
done
"$python" -m venv --system-site-packages "$tmp/venv"  # numpy from the system
"$tmp/venv/bin/python" -m pip install -q --no-index "$wheel"
(cd "$tmp" && "$tmp/venv/bin/python" -c "
import mspti, vnpu, mspti_trace
assert mspti.__file__.startswith('$tmp/venv/'), mspti.__file__
maps = open('/proc/self/maps').read()
assert '$tmp/venv/' in maps and '$build' not in maps and '$prefix' not in maps
print('wheel ok')
")
out="$(cd "$tmp" && "$tmp/venv/bin/python" "$source_dir/samples/python_mstx_monitor/python_mstx_monitor.py")" \
  || fail "python sample from the wheel failed"
echo "$out" | grep "\[RANGE\] sourceKind: [A-Z_]*HOST, .*name: 'mstx_matmul'" >/dev/null || fail "python sample from the wheel: $out"
# The wheel's mspti-trace command finds its libraries in mspti/_libs.
"$tmp/venv/bin/mspti-trace" --version >/dev/null || fail "the wheel has no mspti-trace command"
(cd "$tmp" && TRAIN_STEPS=2 "$tmp/venv/bin/mspti-trace" -o "$tmp/wheel_trace" -- "$tmp/venv/bin/python" -m vnpu.run \
   --nproc_per_node 2 "$source_dir/samples/python_trace/train.py" >"$tmp/wheel_trace.log" 2>&1) \
  || { tail -20 "$tmp/wheel_trace.log" >&2; fail "mspti-trace from the wheel"; }
[ "$(ls "$tmp/wheel_trace"/trace.rank*.pftrace | wc -l)" = 2 ] || fail "mspti-trace from the wheel: not one trace per rank"
if "$python" -c "import mypy" 2>/dev/null; then  # the wheel's stubs, as a venv's site-packages
  (cd "$tmp" && "$python" -m mypy --strict --cache-dir "$tmp/mypy_wheel" --python-executable "$tmp/venv/bin/python" \
     "$source_dir/samples/python_mstx_monitor/python_mstx_monitor.py") || fail "mypy --strict against the wheel"
fi

step "deb: cpack -G DEB"
# What `cpack -G DEB` in the build directory does, minus its first step (a `preinstall` build of
# every target: a test does not rebuild the tree): the install under /usr, staged, then packed.
DESTDIR="$tmp/deb_stage" cmake --install "$build" --prefix /usr --strip >/dev/null  # as CPACK_STRIP_FILES
(cd "$build" && cpack -G DEB -B "$tmp/deb" -D CPACK_INSTALL_CMAKE_PROJECTS= \
   -D "CPACK_INSTALLED_DIRECTORIES=$tmp/deb_stage/usr;usr" >"$tmp/cpack.log" 2>&1) \
  || { cat "$tmp/cpack.log" >&2; fail "cpack -G DEB"; }
deb="$(echo "$tmp"/deb/mspti_*.deb)"
dpkg-deb -I "$deb" | grep -E '^ (Package|Version|Depends):'
dpkg-deb -c "$deb" | awk '{print $6}' > "$tmp/deb.files"
for f in ./usr/lib/libmspti.so.0 ./usr/lib/libmspti_monitor.so.0 ./usr/lib/cmake/mspti/msptiConfig.cmake \
         ./usr/lib/pkgconfig/mspti.pc ./usr/include/mspti/mspti.h ./usr/share/java/mspti.jar \
         ./usr/lib/mspti/vnpu/include/acl/acl.h ./usr/bin/mspti-trace; do
  grep -qx "$f" "$tmp/deb.files" || fail "the .deb lacks $f"
done
grep -q '^./usr/lib/python3[.0-9]*/dist-packages/mspti/_native' "$tmp/deb.files" || fail "the .deb lacks mspti._native"
! grep -q '^./usr/include/acl/' "$tmp/deb.files" || fail "the .deb puts acl/ into /usr/include"
dpkg-deb -f "$deb" Depends | grep 'libc6' >/dev/null || fail "the .deb has no shared-library dependencies"
for f in ./usr/share/doc/mspti/copyright ./usr/share/doc/mspti/changelog.gz ./usr/share/man/man1/mspti-trace.1.gz \
         ./usr/share/java/mspti-sources.jar ./usr/share/java/mspti-javadoc.jar; do
  grep -qx "$f" "$tmp/deb.files" || fail "the .deb lacks $f"
done
dpkg-deb -I "$deb" prerm | grep __pycache__ >/dev/null || fail "the .deb has no prerm removing Python's byte code"

step "deb: lintian, no errors"
if command -v lintian >/dev/null; then
  lintian --fail-on error --suppress-tags-from-file /dev/null "$deb" | tee "$tmp/lintian.log" || fail "lintian reports errors (above)"
else
  echo "SKIPPED: lintian is not installed (apt-get install lintian)"
fi

step "deb: dpkg -i, consumers against /usr, dpkg -r"
mkdir "$tmp/deb_root"
bash "$here/deb_install_check.sh" "$deb" "$source_dir" "$tmp/deb_root"
echo "install check passed"
