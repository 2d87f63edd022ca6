#!/usr/bin/env bash
# Writes the live journal fuzz target's seeds (tests/fuzz/corpus/live_journal)
# again, after a change of the journal's format: journals copied while
# `heapql record` records the example program (examples/memory_test_app), a
# copy taken early (one or two segments, perhaps one being written) and one
# later, each behind one byte for the target (live_journal_fuzz.cpp): bit 0
# sets the checksums right, bit 1 reads as while the writer lives.
#   tests/fuzz/make_live_journal_seeds.sh [BUILD]   (default build: its heapql and examples/memory_test_app)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
heapql="$build/heapql"
app="$build/examples/memory_test_app"
[[ -x "$heapql" && -x "$app" ]] || { echo "make_live_journal_seeds: build $heapql and $app first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=tests/fuzz/corpus/live_journal
rm -f "$out"/*.hqlive
"$heapql" record -o "$work/rec" -- "$app" >/dev/null 2>"$work/record.err" &
recorder=$!
journal="$work/rec.zst.hqlive"
copies=()
for wait_until in 1.3 2.6; do
  sleep 1.3
  if [[ -s "$journal" ]]; then
    cp "$journal" "$work/at_$wait_until.hqlive"
    copies+=("$work/at_$wait_until.hqlive")
  fi
done
wait "$recorder" || { cat "$work/record.err" >&2; exit 1; }
[[ ${#copies[@]} -gt 0 ]] || { echo "make_live_journal_seeds: the recording published no journal in time" >&2; exit 1; }
for copy in "${copies[@]}"; do
  name=$(basename "${copy%.hqlive}")
  for flags in 0 1 2 3; do
    { printf "\\x0$flags"; cat "$copy"; } > "$out/${name}_$flags.hqlive"
  done
done
ls -l "$out"
