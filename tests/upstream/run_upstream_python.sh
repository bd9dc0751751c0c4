#!/bin/bash
# Runs one of our Python monitor samples (msPTI's guide examples on the virtual NPU) with msPTI's own
# Python package and libmspti.so: set_env.sh of the virtual CANN with msPTI's library puts its package
# first on PYTHONPATH; our vnpu package follows. The sample's checker reads the output.
# Usage: run_upstream_python.sh <cann root> <msPTI source dir, or empty> <python> <our python dir> <sample.py>
#        <check_output.py> <ranks>
set -u -o pipefail
cann_root=${1:-} upstream=${2:-} python=${3:-} pydir=${4:-} sample=${5:-} check=${6:-} ranks=${7:-}
if [ -z "$upstream" ]; then
    echo "SKIP: msPTI's sources are not configured; set MSPTI_UPSTREAM_SOURCE (CMake cache or environment" \
         "variable, e.g. ../shared/upstream/mspti) and reconfigure to run msPTI's Python package on its library"
    exit 77
fi
# shellcheck disable=SC1091
source "$cann_root/set_env.sh"
export PYTHONPATH="$PYTHONPATH:$pydir" PYTHONDONTWRITEBYTECODE=1
export LD_PRELOAD="$ASCEND_HOME_PATH/lib64/libmspti.so"
"$python" -c "import mspti, sys; sys.exit(0 if mspti.__file__.startswith('$cann_root') or 'upstream' in mspti.__file__ else 1)" ||
    { echo "FAIL: import mspti did not find msPTI's package"; exit 1; }
# A checker's exit code 3 says only the last records of a run are missing, which msPTI's monitors lose
# at stop on a loaded machine (docs/compatibility.md): that run is tried again, 3 tries in all.
for try in 1 2 3; do
    # shellcheck disable=SC2086  # the sample may carry its arguments
    "$python" -m vnpu.run --nproc_per_node "$ranks" $sample | "$python" "$check" "$ranks"
    rc=$?
    [ "$rc" -ne 3 ] && exit "$rc"
    echo "(try $try of 3 lost records at stop, msPTI's known loss)"
done
exit 1
