#!/usr/bin/env bash
# The scale run (docs/scale.md): a synthetic heaptrack trace of N allocations
# (default 1 billion) streamed through zstd, `heapql ingest` of it with its
# peak RSS, then queries answered from the store; times and sizes printed.
#   bench/scale/run-scale.sh [--allocations N] [--stacks S] [--workdir DIR] [--keep]
set -euo pipefail
cd "$(dirname "$0")/../.."
allocations=1000000000 stacks=100000 workdir=/tmp/heapql-scale keep=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --allocations) allocations=$2; shift ;;
    --stacks) stacks=$2; shift ;;
    --workdir) workdir=$2; shift ;;
    --keep) keep=1 ;;
    *) echo "usage: $0 [--allocations N] [--stacks S] [--workdir DIR] [--keep]" >&2; exit 2 ;;
  esac
  shift
done
heapql=${HEAPQL:-build/heapql}
[[ -x "$heapql" ]] || { echo "run-scale: no $heapql (build first, or set HEAPQL)" >&2; exit 1; }
mkdir -p "$workdir"
trace="$workdir/scale-$allocations.zst"
store="$trace.hqdb"
g++ -std=c++20 -O2 bench/scale/generate_trace.cpp -o "$workdir/generate_trace"

timed() {  # label, command...: wall seconds and peak RSS of the command
  local label=$1 out
  shift
  out=$(mktemp)
  /usr/bin/time -f '%e %M' -o "$out" "$@"
  read -r wall kib < "$out"
  rm -f "$out"
  printf '  %-58s %9.1f s %9.1f MiB\n' "$label" "$wall" "$(awk -v k="$kib" 'BEGIN {print k/1024}')"
}

echo "== scale run: $allocations allocations, $stacks stacks, in $workdir =="
rm -f "$trace" "$store"
timed "generate | zstd -1 -T2 > trace" bash -c "set -o pipefail; $(printf '%q' "$workdir/generate_trace") $allocations $stacks | zstd -q -1 -T2 > $(printf '%q' "$trace")"
timed "heapql ingest trace" "$heapql" ingest "$trace" --no-progress
timed "heapql info trace (from the store)" bash -c "$(printf '%q ' "$heapql" info "$trace") >$(printf '%q' "$workdir/info.txt")"
timed "heapql query trace --by stack --top 10 (from the store)" bash -c "$(printf '%q ' "$heapql" query "$trace" --by stack --top 10) >/dev/null"
timed "heapql query trace --by frame --sort stc --top 10 (from the store)" bash -c "$(printf '%q ' "$heapql" query "$trace" --by frame --sort stc --top 10) >/dev/null"
timed "heapql query trace --window 1s..2s --by stack (replays the blocks)" bash -c "$(printf '%q ' "$heapql" query "$trace" --window 1s..2s --by stack --top 10) >/dev/null"
echo
printf '  %-30s %s\n' "trace (zstd)" "$(stat -c %s "$trace") bytes"
printf '  %-30s %s\n' "store" "$(stat -c %s "$store") bytes"
grep -E "^allocations|^frees|^peak|^unique|^  bytes a block|^  block|^  frees" "$workdir/info.txt" | sed 's/^/  /'
[[ $keep == 1 ]] || rm -f "$trace" "$store"
