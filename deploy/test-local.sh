#!/usr/bin/env bash
# test-local.sh: runs the deploy entry point the way the schedulers do, on this
# machine, and checks that the merged verdict and counts are the sequential ones.
# make test runs it. Usage: deploy/test-local.sh [KBMC]
set -euo pipefail
kbmc=${1:-bin/kbmc}
export KBMC=$kbmc
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prog=bench/programs/readers-writers.kb
flags=(--algo dfs -D N=4)
parts=8

# Kubernetes: a loop that sets JOB_COMPLETION_INDEX, as the Indexed Job does.
for i in $(seq 0 $((parts - 1))); do
  JOB_COMPLETION_INDEX=$i KBMC_PARTS=$parts KBMC_OUT="$tmp/k8s" "$here/kbmc-part.sh" "${flags[@]}" "$prog"
done
# Slurm: the same with SLURM_ARRAY_TASK_ID.
for i in $(seq 0 $((parts - 1))); do
  SLURM_ARRAY_TASK_ID=$i KBMC_PARTS=$parts KBMC_OUT="$tmp/slurm" "$here/kbmc-part.sh" "${flags[@]}" "$prog"
done
# GNU parallel: the script users run, which merges the parts itself.
if ! command -v parallel >/dev/null; then
  echo "deploy/test-local.sh: GNU parallel is not installed (scripts/deps installs it)" >&2
  exit 1
fi
"$here/parallel.sh" $parts "$tmp/parallel" "${flags[@]}" "$prog" > "$tmp/parallel.txt"
seq_exec=$("$kbmc" check --json --workers 1 "${flags[@]}" "$prog" | sed 's/.*"executions":\([0-9]*\).*/\1/')
for d in k8s slurm parallel; do
  merged=$("$kbmc" merge --json "$tmp/$d"/part-*.json)
  verdict=$(echo "$merged" | sed 's/.*"verdict":"\([a-z-]*\)".*/\1/')
  execs=$(echo "$merged" | sed 's/.*"executions":\([0-9]*\).*/\1/')
  if [ "$verdict" != safe ] || [ "$execs" != "$seq_exec" ]; then
    echo "deploy/test-local.sh: $d: merged $verdict with $execs executions, sequential safe with $seq_exec" >&2
    exit 1
  fi
done
if ! grep -q ": safe" "$tmp/parallel.txt"; then
  echo "deploy/test-local.sh: deploy/parallel.sh did not print the safe merge:" >&2
  cat "$tmp/parallel.txt" >&2
  exit 1
fi
# An unsafe program: the merge is unsafe with the part's trace.
set +e
for i in $(seq 0 $((parts - 1))); do
  KBMC_PART=$i KBMC_PARTS=$parts KBMC_OUT="$tmp/unsafe" "$here/kbmc-part.sh" testdata/racy-increment.kb
done
"$kbmc" merge "$tmp/unsafe"/part-*.json > "$tmp/unsafe.txt"
code=$?
set -e
if [ $code != 10 ] || ! grep -q "lost update" "$tmp/unsafe.txt"; then
  echo "deploy/test-local.sh: the merged racy-increment is not unsafe (exit $code)" >&2
  cat "$tmp/unsafe.txt" >&2
  exit 1
fi
echo "deploy: 8 parts through kbmc-part.sh (Kubernetes and Slurm indices, GNU parallel) merge to the sequential verdict and counts"
