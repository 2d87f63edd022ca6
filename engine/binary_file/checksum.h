// The store's checksum: XXH3's 64-bit hash (libxxhash), over bytes given at
// once or, with Checksum, in pieces (the same value either way). Chosen over
// zlib's CRC-32 for speed (several times faster on this project's machine),
// and a store is checked as it opens.
#pragma once

#include <xxhash.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

namespace heapql::store_file {

inline std::uint64_t checksum_of(const void* data, std::size_t n) { return XXH3_64bits(data, n); }

class Checksum {
 public:
  Checksum() : state_(XXH3_createState()) {
    if (!state_ || XXH3_64bits_reset(state_.get()) != XXH_OK) throw std::bad_alloc();
  }
  void add(const void* data, std::size_t n) { XXH3_64bits_update(state_.get(), data, n); }
  std::uint64_t value() const { return XXH3_64bits_digest(state_.get()); }

 private:
  struct Free {
    void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
  };
  std::unique_ptr<XXH3_state_t, Free> state_;
};

}  // namespace heapql::store_file
