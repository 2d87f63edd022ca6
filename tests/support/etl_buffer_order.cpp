// Buffer walking and reordering for tests (etl_buffer_order.h).
#include "tests/support/etl_buffer_order.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace heapql::test {

namespace {
constexpr std::size_t kBufferHeaderSize = 72;

std::uint32_t u32_at(std::span<const std::uint8_t> bytes, std::size_t at) {
  return static_cast<std::uint32_t>(bytes[at]) | static_cast<std::uint32_t>(bytes[at + 1]) << 8 |
         static_cast<std::uint32_t>(bytes[at + 2]) << 16 | static_cast<std::uint32_t>(bytes[at + 3]) << 24;
}
}  // namespace

std::vector<EtlBufferPlace> etl_buffers(std::span<const std::uint8_t> file) {
  std::vector<EtlBufferPlace> buffers;
  for (std::uint64_t at = 0; at < file.size();) {
    if (file.size() - at < kBufferHeaderSize) throw std::runtime_error("a buffer header runs past the file end");
    const auto header = file.subspan(at, kBufferHeaderSize);
    EtlBufferPlace place{at, u32_at(header, 0), u32_at(header, 0x28) & 0xFFFFU};
    if (place.size < kBufferHeaderSize || place.size > file.size() - at) {
      throw std::runtime_error("buffer at byte " + std::to_string(at) + " has a bad BufferSize");
    }
    buffers.push_back(place);
    at += place.size;
  }
  return buffers;
}

std::vector<std::uint8_t> reorder_etl_buffers(std::span<const std::uint8_t> file,
                                              const std::vector<std::size_t>& order) {
  const std::vector<EtlBufferPlace> buffers = etl_buffers(file);
  std::vector<std::size_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (sorted.size() != buffers.size() || sorted[i] != i) throw std::runtime_error("not a permutation of the buffers");
  }
  std::vector<std::uint8_t> out;
  out.reserve(file.size());
  for (std::size_t index : order) {
    const EtlBufferPlace& b = buffers[index];
    const auto bytes = file.subspan(b.offset, b.size);
    out.insert(out.end(), bytes.begin(), bytes.end());
  }
  return out;
}

std::vector<std::size_t> interleave_etl_buffers(
    const std::vector<EtlBufferPlace>& buffers,
    const std::function<std::size_t(const std::vector<std::uint32_t>&)>& pick) {
  std::vector<std::size_t> order;
  if (buffers.empty()) return order;
  order.push_back(0);
  std::map<std::uint32_t, std::vector<std::size_t>> queues;  // processor -> its buffers, in file order
  for (std::size_t i = 1; i < buffers.size(); ++i) queues[buffers[i].processor].push_back(i);
  std::map<std::uint32_t, std::size_t> taken;
  while (order.size() < buffers.size()) {
    std::vector<std::uint32_t> left;
    for (const auto& [processor, queue] : queues) {
      if (taken[processor] < queue.size()) left.push_back(processor);
    }
    const std::uint32_t processor = left.at(pick(left));
    order.push_back(queues[processor][taken[processor]++]);
  }
  return order;
}

}  // namespace heapql::test
