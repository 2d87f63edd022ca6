#!/usr/bin/env bash
# The main job on the bundled example: installs what is missing, builds
# heapql and the example, records the example with heaptrack (exact block
# identity), and prints the reports that find what it planted.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/configure.sh
heapql_configure
cmake --build "$build_dir" -j2 --target heapql heapql_lua_module memory_test_app write_synthetic_etl

heapql="$build_dir/heapql"
trace_dir="$build_dir/demo"
mkdir -p "$trace_dir"
trace="$trace_dir/memory_test_app"

echo "== recording the example (about 3 s) =="
"$heapql" record -o "$trace" -- "$build_dir/examples/memory_test_app"

section() { printf '\n== %s ==\n$ %s\n' "$1" "${*:2}"; "${@:2}"; }

section "what the trace holds" "$heapql" info "$trace.zst" --no-progress
section "the canned recipes" "$heapql" list
section "leaks: allocated and never freed (AIFO), by stack" \
  "$heapql" run leaks "$trace.zst" --param top=3
section "transient: big blocks that came and went (AIFI)" \
  "$heapql" run transient "$trace.zst" --param top=2
section "growth: what the second half added to steady state" \
  "$heapql" run growth "$trace.zst" --param from=1.3s --param to=2.5s --param top=2
section "churn: reallocs (or, without realloc marks, most calls)" \
  "$heapql" run realloc-churn "$trace.zst" --param top=3
section "peak: what was alive at the peak" \
  "$heapql" run peak "$trace.zst" --param top=3
section "the same as xperf -a heap -stacks so -top 2 would ask" \
  "$heapql" xperf -stacks so -top 2 --run "$trace.zst"

echo
echo "== a Windows heap trace: a SYNTHETIC .etl of the same scenario (docs/windows.md) =="
etl="$trace_dir/MemoryTestApp-synthetic.etl"
"$build_dir/examples/write_synthetic_etl" "$etl"
section "what the .etl holds" "$heapql" info "$etl" --no-progress
section "VirtualAlloc Commit Lifetimes, 8s..16s: 10 MB impacting, four 10 MB transients" \
  "$heapql" query "$etl" --kind virtual --window 8s..16s --by impacting --no-progress
section "leaks on the .etl, the same recipe" \
  "$heapql" run leaks "$etl" --param top=3

