#!/bin/bash
# Runs one of msPTI's own samples as its sample_run.sh does (set_env.sh, its CMakeLists.txt, then the
# program under LD_PRELOAD=libmspti.so) on the virtual CANN with msPTI's libmspti.so, from a copy in the
# build tree (msPTI's tree is read-only), and checks the output with check_upstream_sample.py.
# Usage: run_upstream_sample.sh <cann root> <msPTI source dir, or empty> <sample> <work dir>
set -u
cann_root=${1:-} upstream=${2:-} sample=${3:-} work=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "$upstream" ]; then
    echo "SKIP: msPTI's sources are not configured; set MSPTI_UPSTREAM_SOURCE (CMake cache or environment" \
         "variable, e.g. ../shared/upstream/mspti) and reconfigure to run msPTI's samples on its own library"
    exit 77
fi
rm -rf "$work"
mkdir -p "$work/samples"
cp -r --no-preserve=mode "$upstream/samples/$sample" "$upstream/samples/common" "$work/samples/" || exit 1
cd "$work/samples/$sample" || exit 1
# shellcheck disable=SC1091
source "$cann_root/set_env.sh"
bash sample_run.sh >output.txt 2>&1
rc=$?
cat output.txt
if [ $rc -ne 0 ]; then
    echo "FAIL: sample_run.sh of $sample exited with $rc"
    exit 1
fi
exec /usr/bin/python3 "$here/check_upstream_sample.py" "$sample" output.txt
