// Fuzz target: the live journal reader (docs/store-format.md, "The live
// journal"), in memory, then queries of every kind on the store it reads,
// and on that store rebuilt through the store builder. The first byte: bit 0
// sets every segment's checksums right first, so that mutations reach the
// parts behind them (left as they are, most are caught by a checksum, which
// must hold); bit 1 reads as while the writer lives (a damaged tail is one not
// yet written). Any heapql::Error is an answer; anything else is a finding.
#include <string>

#include "engine/error.h"
#include "engine/store_file/live_journal_format.h"
#include "tests/fuzz/store_queries.h"
#include "tests/support/live_journal_checksums.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool fix = (data[0] & 1) != 0;
  const bool writer_alive = (data[0] & 2) != 0;
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (fix) heapql::test::set_live_journal_checksums(bytes.data(), bytes.size());
  try {
    const heapql::store_file::LiveJournalRead read =
        heapql::store_file::read_live_journal_bytes(bytes, "fuzz.hqlive", writer_alive);
    heapql::fuzz::answer_every_way(*read.store);
    heapql::fuzz::answer_every_way(*heapql::store_file::rebuilt_through_builder(*read.store));
  } catch (const heapql::Error&) {
  }
  return 0;
}
