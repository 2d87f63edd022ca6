#!/usr/bin/env bash
# The main job on the bundled example: installs what is missing, builds
# heapql and the example, records the example with heaptrack (exact block
# identity), and prints the reports that find what it planted.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/configure.sh
heapql_configure
cmake --build "$build_dir" -j2 --target heapql memory_test_app

heapql="$build_dir/heapql"
trace_dir="$build_dir/demo"
mkdir -p "$trace_dir"
trace="$trace_dir/memory_test_app"

echo "== recording the example (about 3 s) =="
"$heapql" record -o "$trace" -- "$build_dir/examples/memory_test_app"

section() { printf '\n== %s ==\n$ %s\n' "$1" "${*:2}"; "${@:2}"; }

section "what the trace holds" "$heapql" info "$trace.zst" --no-progress
section "leaks: allocated and never freed, by stack" \
  "$heapql" query "$trace.zst" --by stack --sort so --top 3 --no-progress
section "transient: big blocks that came and went (AIFI), by frame" \
  "$heapql" query "$trace.zst" --impacting AIFI --by frame --sort st --size 1MB.. --top 3 --no-progress
section "growth: what the second half added to steady state (impacting size)" \
  "$heapql" query "$trace.zst" --window 1.3s..2.5s --impacting AIFO,AOFI --by frame --top 3 --no-progress
section "churn: most allocation calls, by frame" \
  "$heapql" query "$trace.zst" --by frame --sort stc --top 3 --no-progress
section "peak: what was alive at the peak, by frame" \
  "$heapql" query "$trace.zst" --at-peak --by frame --top 4 --no-progress
