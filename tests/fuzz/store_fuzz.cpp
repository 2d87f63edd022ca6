// Fuzz target: the store reader, in memory, then a replay through the
// aggregator. The first byte chooses whether the checksums are left as they
// are (most mutations are then caught by a CRC, which must hold) or set right
// first, so that mutations reach the table of contents, the tables and the
// columns behind them. Any heapql::Error is an answer; anything else is a finding.
#include <cstring>
#include <memory>
#include <vector>

#include "engine/store_file/crc32.h"
#include "engine/store_file/store_format.h"
#include "engine/store_file/store_reader.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

using namespace heapql::store_file;

std::uint32_t crc(const char* data, std::size_t n) { return crc32_of(data, n); }

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
      const std::uint64_t offset = get<std::uint64_t>(bytes, entry + 8);
      const std::uint64_t length = get<std::uint64_t>(bytes, entry + 16);
      if (offset <= size && length <= size - offset) put<std::uint32_t>(bytes, entry + 4, crc(bytes + offset, length));
    }
    put<std::uint32_t>(bytes, header_at::kTocCrc, crc(bytes + toc, size - toc));
  }
  put<std::uint64_t>(bytes, header_at::kFileBytes, size);
  put<std::uint32_t>(bytes, header_at::kHeaderCrc, crc(bytes, header_at::kHeaderCrc));
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
  heapql::fuzz::read_and_answer([&](heapql::TraceTables& tables, heapql::EventConsumer& consumer, std::string*) {
    OpenedStore opened = read_store_bytes(buffer, std::string_view(bytes, size - 1), "fuzz.hqdb");
    tables = opened.store->tables();
    opened.store->replay(consumer);
    return opened.store->source();
  });
  return 0;
}
