// The stacks of a trace's events as raw addresses (etw-heap.md §3.3): stack
// walks attached to their events, kernel and user fragments kept apart and
// joined kernel first, stack-cache keys recorded at their use and resolved
// after the whole file is read (a key's frames arrive later, when the key is
// deleted or run down). Unique address lists are stored once.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace heapql {

class EtwStacks {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;

  // What an event got: up to one kernel and one user fragment, each a stored
  // address list or (top bit set) a pending key use.
  struct EventStack {
    std::uint32_t kernel = kNone;
    std::uint32_t user = kNone;
  };

  // True for an address in kernel space, given the pointer size of its record.
  static bool is_kernel_address(std::uint64_t address, std::uint8_t pointer_size);

  // A stack walk's frames (innermost first) for `stack`. A fragment whose
  // innermost frame is in kernel space fills the kernel slot, otherwise the
  // user slot; a slot already filled keeps its first fragment (counted).
  void attach_frames(EventStack& stack, std::span<const std::uint64_t> frames, std::uint8_t pointer_size);
  // A StackKeyKernel / StackKeyUser use at raw timestamp `timestamp`.
  void attach_key(EventStack& stack, bool kernel, std::uint64_t key, std::int64_t timestamp);
  // A KeyDelete / KeyRundown definition at raw timestamp `timestamp`.
  void define_key(std::uint64_t key, std::span<const std::uint64_t> frames, std::uint8_t pointer_size,
                  std::int64_t timestamp);

  // After the whole file: resolves every key use to the first definition of
  // that key (same namespace) at or after the use.
  void resolve_keys();

  // The addresses of an event's stack, innermost first (kernel, then user),
  // appended to `out` after clearing it. After resolve_keys().
  void frames(const EventStack& stack, std::vector<std::uint64_t>& out) const;
  // An id for the joined stack, equal for equal address lists (for caching).
  std::uint64_t identity(const EventStack& stack) const;

  std::uint64_t duplicate_fragments() const { return duplicate_fragments_; }
  std::uint64_t key_uses() const { return key_uses_.size(); }
  std::uint64_t unresolved_keys() const { return unresolved_keys_; }
  std::uint64_t unique_address_lists() const { return lists_.size(); }

 private:
  static constexpr std::uint32_t kKeyUseBit = 0x80000000u;
  struct List {
    std::uint64_t offset;
    std::uint32_t count;
  };
  struct KeyUse {
    std::uint64_t key;
    std::int64_t timestamp;
    bool kernel;
    std::uint32_t list = kNone;  // after resolve_keys
  };
  struct Definition {
    std::int64_t timestamp;
    std::uint32_t list;
  };

  std::uint32_t intern(std::span<const std::uint64_t> frames);
  std::uint32_t list_of(std::uint32_t slot) const;
  void fill(std::uint32_t& slot, std::uint32_t value);

  std::vector<std::uint64_t> addresses_;
  std::vector<List> lists_;
  std::unordered_multimap<std::uint64_t, std::uint32_t> lists_by_hash_;
  std::vector<KeyUse> key_uses_;
  // (key, kernel?) -> definitions in file order
  std::unordered_map<std::uint64_t, std::vector<Definition>> kernel_definitions_, user_definitions_;
  std::uint64_t duplicate_fragments_ = 0;
  std::uint64_t unresolved_keys_ = 0;
};

}  // namespace heapql
