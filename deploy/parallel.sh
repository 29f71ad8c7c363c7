#!/usr/bin/env bash
# parallel.sh: a sharded kbmc check on one or more machines with GNU parallel, then
# the merge. Usage: deploy/parallel.sh PARTS OUTDIR [kbmc check flags…] FILE
#
# The one-liner it runs (add --sshloginfile to spread the parts over machines
# that share OUTDIR):
#
#   seq 0 $((PARTS-1)) | parallel KBMC_PART={} KBMC_PARTS=PARTS KBMC_OUT=OUTDIR deploy/kbmc-part.sh FLAGS FILE
#   kbmc merge OUTDIR/part-*.json
set -euo pipefail
parts=$1 out=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
seq 0 $((parts - 1)) | parallel --halt now,fail=1 KBMC_PART={} KBMC_PARTS="$parts" KBMC_OUT="$out" "$here/kbmc-part.sh" "$@"
"${KBMC:-kbmc}" merge "$out"/part-*.json
