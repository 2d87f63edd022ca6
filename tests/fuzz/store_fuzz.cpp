// Fuzz target: the store reader, in memory, then queries of every kind the
// aggregator answers from a store. The first byte chooses whether the checksums are left as they
// are (most mutations are then caught by a checksum, which must hold) or set right
// first, so that mutations reach the table of contents, the tables and the
// columns behind them. Any heapql::Error is an answer; anything else is a finding.
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "engine/query/aggregator.h"
#include "engine/store_file/store_reader.h"
#include "tests/support/store_checksums.h"

namespace {

void answer_every_way(const heapql::TraceStore& store) {
  using namespace heapql;
  const std::int64_t end = std::max<std::int64_t>(store.columns().end_ns, 3);
  std::vector<Query> queries(4);
  queries[0].by = {GroupBy::kStack};
  // Two thirds of `end` without 2 * end, which overflows for an end near 2^63.
  queries[1].window = {end / 3, end - end / 3};
  queries[1].impacting = {Impacting::kAifo, Impacting::kAofi};
  queries[1].by = {GroupBy::kImpacting, GroupBy::kStack};
  queries[2].window = {end / 2, std::nullopt};
  queries[2].block_set = BlockSet::kAtPeak;
  queries[2].by = {GroupBy::kFrame};
  queries[3].window = {end / 4, end / 2};
  queries[3].lifetime_min_ns = 1;
  queries[3].series_buckets = 4;
  queries[3].by = {GroupBy::kThread};
  for (std::size_t i = 0; i < queries.size(); ++i) {
    Aggregator aggregator(store.tables(), queries[i]);
    if (i == 0) store.replay(aggregator);
    else aggregator.answer_from(store);
    (void)aggregator.result(store.source());
  }
  Aggregator from_view(store.tables(), queries[0]);
  from_view.answer_from(store);
  (void)from_view.result(store.source());
  Query no_view = queries[0];  // another cull list: the bucket sums answer
  no_view.default_cull = false;
  Aggregator from_sums(store.tables(), no_view);
  from_sums.answer_from(store);
  (void)from_sums.result(store.source());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool fix = (data[0] & 1) != 0;
  // The reader views columns in place: give it 8-byte aligned bytes, as a mapping is.
  auto buffer = std::make_shared<std::vector<std::uint64_t>>((size - 1 + 7) / 8 + 1);
  char* bytes = reinterpret_cast<char*>(buffer->data());
  std::memcpy(bytes, data + 1, size - 1);
  if (fix) heapql::test::set_store_checksums(bytes, size - 1);
  // Every way a query reads a store: from its stack view, from the bucket
  // sums, replaying it whole, and skipping to a window (the skipped events are
  // counted, not fed); and again read as by a heapql that knows none of its
  // accelerators, which replays for all of them.
  using namespace heapql;
  const std::array<store_file::Accelerator, 0> none{};
  for (const std::span<const store_file::Accelerator> accelerators :
       {std::span<const store_file::Accelerator>(store_file::kAccelerators),
        std::span<const store_file::Accelerator>(none)}) {
    try {
      store_file::ReadOptions options;
      options.accelerators = accelerators;
      const store_file::OpenedStore opened =
          store_file::read_store_bytes(buffer, std::string_view(bytes, size - 1), "fuzz.hqdb", options);
      answer_every_way(*opened.store);
    } catch (const Error&) {
    }
  }
  return 0;
}
