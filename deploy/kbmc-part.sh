#!/usr/bin/env bash
# kbmc-part.sh: run one part of a sharded kbmc check, as a scheduler's task.
#
# The part's index comes from the scheduler: JOB_COMPLETION_INDEX (Kubernetes
# Indexed Jobs), SLURM_ARRAY_TASK_ID (Slurm job arrays) or KBMC_PART (GNU parallel,
# shell loops). KBMC_PARTS is the number of parts, KBMC_OUT the directory the
# part's --json result goes to (part-I.json). The remaining arguments are passed
# to kbmc check: the program and the flags, identical for every part.
#
#   KBMC_PARTS=8 KBMC_OUT=out JOB_COMPLETION_INDEX=3 deploy/kbmc-part.sh --algo dpor prog.kb
#
# When every part has finished: kbmc merge "$KBMC_OUT"/part-*.json
set -euo pipefail
index="${JOB_COMPLETION_INDEX:-${SLURM_ARRAY_TASK_ID:-${KBMC_PART:-}}}"
if [ -z "$index" ]; then
  echo "kbmc-part.sh: no part index (set JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID or KBMC_PART)" >&2
  exit 1
fi
parts="${KBMC_PARTS:?set KBMC_PARTS to the number of parts}"
out="${KBMC_OUT:-.}"
kbmc="${KBMC:-kbmc}"
mkdir -p "$out"
# kbmc check exits 0 (safe), 10 (unsafe) or 5 (unknown) with a valid result;
# the part succeeds whenever it wrote one, and merge decides the verdict.
set +e
"$kbmc" check --shard "$index/$parts" --json "$@" > "$out/part-$index.json"
code=$?
set -e
case $code in
  0|5|10) exit 0 ;;
  *) echo "kbmc-part.sh: part $index/$parts failed with exit code $code" >&2; exit "$code" ;;
esac
