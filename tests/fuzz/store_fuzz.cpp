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

#include "engine/store_file/store_reader.h"
#include "tests/fuzz/store_queries.h"
#include "tests/support/store_checksums.h"

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
      heapql::fuzz::answer_every_way(*opened.store);
    } catch (const Error&) {
    }
  }
  return 0;
}
