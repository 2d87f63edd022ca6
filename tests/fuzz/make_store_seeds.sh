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
# One with live counts every few events (a test hook: chunks of 2 events),
# which the target's windowed queries start from; the same trace's store of
# block columns (a test hook), with live checkpoints, and without.
cp tests/data/worked_example.txt "$work/"
HEAPQL_STORE_CHECKPOINT_EVENTS=3 "$heapql" ingest "$work/worked_example.txt" -o "$work/checkpointed.hqdb" \
  --no-progress 2>/dev/null
HEAPQL_STORE_BLOCK_COLUMNS=1 HEAPQL_STORE_CHECKPOINT_EVENTS=3 "$heapql" ingest "$work/worked_example.txt" \
  -o "$work/checkpointed_columns.hqdb" --no-progress 2>/dev/null
HEAPQL_STORE_BLOCK_COLUMNS=1 "$heapql" ingest "$work/worked_example.txt" -o "$work/columns.hqdb" --no-progress 2>/dev/null
for name in checkpointed checkpointed_columns columns; do
  for fix in 0 1; do
    { printf "\\x0$fix"; cat "$work/$name.hqdb"; } > "$out/${name}_$fix.hqdb"
  done
done
# Packed columns crafted where only the fix-checksum half gets past the
# checksums (store-format.md, "Packed columns"): a block whose width wraps
# past 32 bits, one whose first word near 2^32 wraps to a small width (a
# campaign's finding, 2026-12-02), an end entry counting words that are not
# there, and a table of contents whose value count the directory cannot hold.
python3 - "$out/columns_1.hqdb" "$out" <<'PY'
import struct, sys
seed, out = open(sys.argv[1], 'rb').read(), sys.argv[2]
store = bytearray(seed[1:])
toc, = struct.unpack_from('<Q', store, 24)
count, = struct.unpack_from('<I', store, 12)
entries = {}
for k in range(count):
    kind, _, _, offset, size, items = struct.unpack_from('<IIQQQQ', store, toc + 40 * k)
    entries[kind] = (toc + 40 * k, offset, size, items)
def write(name, data):
    open(f'{out}/{name}_1.hqdb', 'wb').write(b'\x01' + bytes(data))
at, offset, size, items = entries[8]  # block buckets
blocks = (items + 63) // 64
words = size // 8 - blocks - 1
wide = bytearray(store)
base, = struct.unpack_from('<I', wide, offset + words * 8)
struct.pack_into('<Q', wide, offset + words * 8, (words + 1) << 32 | base)
write('packed_wide', wide)
wrapped = bytearray(store)
second_first = struct.unpack_from('<Q', wrapped, offset + (words + 1) * 8)[0] >> 32
assert second_first + 4 <= 32, 'block 0 is too wide for a wrap to a small width'
struct.pack_into('<Q', wrapped, offset + words * 8, (2**32 - 4) << 32 | base)
write('packed_wrapped', wrapped)
past = bytearray(store)
struct.pack_into('<Q', past, offset + size - 8, (words + 5) << 32)
write('packed_past', past)
at, offset, size, items = entries[10]  # frees
counts = bytearray(store)
struct.pack_into('<Q', counts, at + 32, items + 64 * 100)
write('packed_count', counts)
PY
ls -l "$out"
