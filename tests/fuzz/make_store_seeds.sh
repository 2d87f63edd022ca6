#!/usr/bin/env bash
# Writes the store fuzz target's seeds (tests/fuzz/corpus/store) again, after
# a change of the store format: each is a store heapql ingests from a small
# trace, behind one byte that tells the target whether to set its checksums
# right (1) or leave them as they are (0); see store_fuzz.cpp.
#   tests/fuzz/make_store_seeds.sh [HEAPQL]   (default build/heapql)
set -euo pipefail
cd "$(dirname "$0")/../.."
heapql=${1:-build/heapql}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=tests/fuzz/corpus/store
rm -f "$out"/*.hqdb
for source in tests/data/worked_example.txt tests/data/two_phase.txt tests/data/csv/example.csv \
              tests/fuzz/corpus/etl/single64.etl; do
  name=$(basename "${source%.*}")
  cp "$source" "$work/"
  "$heapql" ingest "$work/$(basename "$source")" -o "$work/$name.hqdb" --no-progress 2>/dev/null
  for fix in 0 1; do
    { printf "\\x0$fix"; cat "$work/$name.hqdb"; } > "$out/${name}_$fix.hqdb"
  done
done
# One whose end is near 2^63 ns, where a harness's arithmetic on the end
# would overflow (store_fuzz.cpp asks for windows at fractions of it).
printf 'time,event,process,thread,heap,address,size,old_address,stack\n0,alloc,p,,,0x10,8,,f;main\n%s\n' \
  '9223372036854775000,free,p,,,0x10,,,' > "$work/huge_end.csv"
"$heapql" ingest "$work/huge_end.csv" -o "$work/huge_end.hqdb" --no-progress 2>/dev/null
for fix in 0 1; do
  { printf "\\x0$fix"; cat "$work/huge_end.hqdb"; } > "$out/huge_end_$fix.hqdb"
done
# One with live checkpoints every few events (a test hook), which the
# target's windowed queries start from.
cp tests/data/worked_example.txt "$work/"
HEAPQL_STORE_CHECKPOINT_EVENTS=3 "$heapql" ingest "$work/worked_example.txt" -o "$work/checkpointed.hqdb" \
  --no-progress 2>/dev/null
for fix in 0 1; do
  { printf "\\x0$fix"; cat "$work/checkpointed.hqdb"; } > "$out/checkpointed_$fix.hqdb"
done
ls -l "$out"
