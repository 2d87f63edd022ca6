#!/usr/bin/env bash
# Compares `heapql query TRACE ... --format json` of two heapql builds over
# a fixed list of queries (windows of several widths, open ends, empty, at
# the peak, impacting types, sort keys, size and lifetime filters, require
# and exclude, every grouping, nested groupings, series), byte for byte.
# A speed change to the query paths must not change one answer.
#
#   bench/serve/compare-answers.sh BEFORE_HEAPQL AFTER_HEAPQL TRACE...
#
# Prints one line per query that differs (and keeps both outputs in a
# temporary folder); exits 1 if any differs.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 BEFORE_HEAPQL AFTER_HEAPQL TRACE..." >&2
  exit 2
fi
before=$1 after=$2
shift 2
work=$(mktemp -d)
queries=(
  "--by stack"
  "--by stack --top 50 --series 400"
  "--by frame"
  "--by image"
  "--by process"
  "--by heap"
  "--by thread"
  "--by kind"
  "--by process,stack --top 20"
  "--by thread,frame --top 20"
  "--by stack --sort st --top 50"
  "--by stack --sort stc --top 50"
  "--by stack --sort soc"
  "--by stack --sort src"
  "--by frame --sort st --series 400"
  "--window 1s..2s --by stack --top 50 --series 400"
  "--window 3s..5s --by stack --top 50 --series 400"
  "--window 10s..30s --by stack --top 50 --series 400"
  "--window 0s..46s --by stack --top 50 --series 400"
  "--window 100ms..150ms --by stack --top 50 --series 400"
  "--window 2s..2s --by stack --top 50 --series 400"
  "--window 500s..600s --by stack --top 50 --series 400"
  "--window 5s.. --by stack --top 50 --series 400"
  "--window ..5s --by stack --top 50 --series 400"
  "--window 1s..9s --by frame --top 50"
  "--window 1s..9s --by image --sort st"
  "--window 1s..9s --by process,stack --top 10"
  "--window 1s..9s --by thread --series 100"
  "--window 1s..9s --by stack --sort stc --top 5"
  "--window 1s..9s --by stack --sort src"
  "--window 1s..9s --at-peak --by stack --top 20"
  "--at-peak --by stack --top 20"
  "--window 2s..2s --at-peak --by frame"
  "--window 1s..9s --impacting aifo,aofi --by stack --top 20"
  "--window 1s..9s --impacting aifi --by stack,impacting --top 20"
  "--window 1s..9s --size 64..4KiB --by stack --top 20 --series 50"
  "--size ..32 --by frame"
  "--window 1s..9s --lifetime 1ms..1s --by stack --top 20"
  "--lifetime 10s.. --by stack --top 20"
  "--window 1s..9s --temporary --by stack --top 20"
  "--require 'main' --by stack --top 20"
  "--window 1s..9s --exclude 'malloc' --by stack --top 20 --series 400"
  "--no-default-cull --by stack --top 20"
  "--window 1s..9s --no-default-cull --by frame --top 20"
  "--cull-list stl --by stack --top 20"
  "--totals"
  "--window 1s..9s --totals --series 400"
  "--window 3s..4s --by kind,thread"
)
differ=0
for trace in "$@"; do
  for q in "${queries[@]}"; do
    eval "args=($q)"
    a=$("$before" query "$trace" "${args[@]}" --format json 2>&1) || true
    b=$("$after" query "$trace" "${args[@]}" --format json 2>&1) || true
    if [ "$a" != "$b" ]; then
      differ=1
      n=$(ls "$work" | wc -l)
      printf '%s\n' "$a" >"$work/$n.before.json"
      printf '%s\n' "$b" >"$work/$n.after.json"
      echo "DIFFERS ($work/$n.*): $trace $q"
    fi
  done
  echo "compared ${#queries[@]} queries on $trace"
done
[ $differ = 0 ] && rm -rf "$work"
exit $differ
