// Fuzz target: the store reader, in memory, then queries of every kind the
// aggregator answers from a store. The first byte chooses whether the checksums are left as they
// are (most mutations are then caught by a checksum, which must hold) or set right
// first, so that mutations reach the table of contents, the tables and the
// columns behind them. Any heapql::Error is an answer; anything else is a finding.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "engine/query/aggregator.h"
#include "engine/store_file/checksum.h"
#include "engine/store_file/store_format.h"
#include "engine/store_file/store_reader.h"

namespace {

using namespace heapql::store_file;

template <class T>
T get(const char* base, std::size_t at) {
  T v;
  std::memcpy(&v, base + at, sizeof v);
  return v;
}

template <class T>
void put(char* base, std::size_t at, T v) {
  std::memcpy(base + at, &v, sizeof v);
}

// Recomputes every checksum that the header and table of contents let it find.
void set_checksums(char* bytes, std::size_t size) {
  if (size < kHeaderBytes) return;
  const std::uint64_t toc = get<std::uint64_t>(bytes, header_at::kTocOffset);
  const std::uint32_t count = get<std::uint32_t>(bytes, header_at::kSectionCount);
  if (toc >= kHeaderBytes && toc <= size && std::uint64_t{count} * kTocEntryBytes <= size - toc) {
    for (std::uint32_t i = 0; i < count; ++i) {
      const std::size_t entry = toc + i * kTocEntryBytes;
      const std::uint64_t offset = get<std::uint64_t>(bytes, entry + 16);
      const std::uint64_t length = get<std::uint64_t>(bytes, entry + 24);
      if (offset <= size && length <= size - offset) put(bytes, entry + 8, checksum_of(bytes + offset, length));
    }
    put(bytes, header_at::kTocChecksum, checksum_of(bytes + toc, size - toc));
  }
  put<std::uint64_t>(bytes, header_at::kFileBytes, size);
  put(bytes, header_at::kHeaderChecksum, checksum_of(bytes, header_at::kHeaderChecksum));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool fix = (data[0] & 1) != 0;
  // The reader views columns in place: give it 8-byte aligned bytes, as a mapping is.
  auto buffer = std::make_shared<std::vector<std::uint64_t>>((size - 1 + 7) / 8 + 1);
  char* bytes = reinterpret_cast<char*>(buffer->data());
  std::memcpy(bytes, data + 1, size - 1);
  if (fix) set_checksums(bytes, size - 1);
  // Every way a query reads a store: from the bucket sums, replaying it
  // whole, and skipping to a window (the skipped events are counted, not fed).
  using namespace heapql;
  try {
    const OpenedStore opened = read_store_bytes(buffer, std::string_view(bytes, size - 1), "fuzz.hqdb");
    const TraceStore& store = *opened.store;
    const std::int64_t end = std::max<std::int64_t>(store.columns().end_ns, 3);
    std::vector<Query> queries(4);
    queries[0].by = {GroupBy::kStack};
    queries[1].window = {end / 3, 2 * end / 3};
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
    Aggregator from_sums(store.tables(), queries[0]);
    from_sums.answer_from(store);
    (void)from_sums.result(store.source());
  } catch (const Error&) {
  }
  return 0;
}
