#!/usr/bin/env bash
# The .deb on this machine, in a throwaway root: a private mount namespace whose /usr, /var and /etc
# are overlays (writes go to a temporary directory and vanish with it). dpkg -i, then a C (pkg-config),
# a Python and a Java consumer against /usr; then dpkg -r, after which nothing of it may remain.
#     tests/install/deb_install_check.sh <mspti_*.deb> <source dir> <work dir>
# Run as root; re-executes itself inside `unshare -m`. Exits 0 with "SKIPPED: ..." where it cannot run.
set -euo pipefail
deb="$1"; source_dir="$2"; work="$3"
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

if [ "${MSPTI_DEB_NAMESPACE:-}" != 1 ]; then
  [ "$(id -u)" -eq 0 ] || { echo "SKIPPED: dpkg -i needs root (uid $(id -u))"; exit 0; }
  command -v unshare >/dev/null || { echo "SKIPPED: no unshare (util-linux)"; exit 0; }
  if ! unshare -m --propagation private true 2>/dev/null; then
    echo "SKIPPED: no private mount namespace here (unshare -m failed): /usr cannot be overlaid"; exit 0
  fi
  MSPTI_DEB_NAMESPACE=1 exec unshare -m --propagation private bash "$0" "$@"
fi

for dir in usr var etc; do  # the lower layer a bind mount, to compare against after dpkg -r
  mkdir -p "$work/$dir.lower" "$work/$dir.upper" "$work/$dir.work"
  mount --bind "/$dir" "$work/$dir.lower"
  mount -t overlay "overlay-$dir" -o "lowerdir=$work/$dir.lower,upperdir=$work/$dir.upper,workdir=$work/$dir.work" "/$dir" \
    || { echo "SKIPPED: overlay mounts are not allowed here (/$dir)"; exit 0; }
done
! dpkg-query -W mspti >/dev/null 2>&1 || fail "mspti is already installed on this machine; the check needs it absent"

step "dpkg -i $(basename "$deb")"
dpkg -i "$deb" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log" >&2; fail "dpkg -i"; }
dpkg -L mspti > "$work/files.txt"

step "C consumer against /usr (pkg-config's default path)"
unset PKG_CONFIG_PATH
[ "$(pkg-config --variable=prefix mspti)" = /usr/lib/pkgconfig/../.. ] || [ "$(pkg-config --variable=prefix mspti)" = /usr ] \
  || fail "pkg-config finds mspti at $(pkg-config --variable=prefix mspti)"
# shellcheck disable=SC2046
cc -std=c99 -o "$work/c_activity" "$source_dir/samples/c_activity/c_activity.c" $(pkg-config --cflags --libs mspti)
cmake -DSAMPLE="$work/c_activity" -DENV= -DEXPECTED="$source_dir/samples/c_activity/expected.txt" \
  -P "$source_dir/samples/common/check_output.cmake" >"$work/c.log" 2>&1 || { cat "$work/c.log" >&2; fail "C consumer"; }
ldd "$work/c_activity" | grep -E ' (/usr)?/lib/libmspti\.so\.0 ' >/dev/null || fail "the C consumer does not load /usr/lib/libmspti.so.0: $(ldd "$work/c_activity")"

step "Python consumer against /usr"
(cd "$work" && env -u PYTHONPATH /usr/bin/python3 -c "
import mspti, vnpu, mspti_trace
for m in (mspti, vnpu, mspti_trace):
    assert m.__file__.startswith('/usr/lib/python3'), m.__file__
print('python ok')")
out="$(cd "$work" && env -u PYTHONPATH /usr/bin/python3 "$source_dir/samples/python_mstx_monitor/python_mstx_monitor.py")" \
  || fail "python sample against /usr"
echo "$out" | grep "\[RANGE\] sourceKind: [A-Z_]*HOST, .*name: 'mstx_matmul'" >/dev/null || fail "python sample: $out"
/usr/bin/mspti-trace --help >/dev/null || fail "/usr/bin/mspti-trace --help"

step "Java consumer against /usr/share/java/mspti.jar"
javac -d "$work/java_classes" -cp /usr/share/java/mspti.jar "$source_dir/samples/java_monitor/JavaMonitor.java"
java -cp "/usr/share/java/mspti.jar:$work/java_classes" JavaMonitor | grep '^kernel records: 3, mstx records: [0-9]*$' >/dev/null \
  || fail "java sample against /usr/share/java/mspti.jar"

step "dpkg -r mspti: nothing of it remains"
dpkg -r mspti >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log" >&2; fail "dpkg -r"; }
grep -i "warning" "$work/dpkg.log" && fail "dpkg -r warned (above)"
# Nothing the package brought may remain (its files, its own directories, anything in them such as
# Python's byte code); directories that existed before (the lower layer) stay.
while read -r f; do
  case "$f" in /usr/*|/etc/*|/var/*) ;; *) continue ;; esac
  top="${f#/}"; top="${top%%/*}"
  if [ -e "$f" ] || [ -L "$f" ]; then
    [ -e "$work/$top.lower/${f#/"$top"/}" ] || fail "$f is left after dpkg -r"
  fi
done < "$work/files.txt"
! dpkg-query -W -f='${Status}' mspti 2>/dev/null | grep "install ok installed" >/dev/null || fail "mspti is still installed"
echo "deb install check passed"
