// The rules for the records of the store's two big tables, the stack tree
// and the buckets (millions of records each), as they lie in the file: one
// validator per table. Each scans a piece of its table without a branch per
// record and, only when the piece has a bad record, names the first one. The
// reader runs them beside the sections' checksums when a query first reads
// the table (store_reader.cpp); the records are then used in place.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "engine/store/stack_node_index.h"

namespace heapql::store_file {

// A record that breaks its table's rules: its index in the table, and what is wrong.
struct BadRecord {
  std::uint64_t index = 0;
  std::string_view what;
};

// `nodes` are the table's from index `first` on; a node's frame must be one
// of `frames`, and its caller must come before it.
std::optional<BadRecord> first_bad_stack_node(std::span<const StackNode> nodes, std::uint64_t first,
                                              std::size_t frames);

// `records` are whole bucket records (kBucketBytes each), the table's from
// index `first` on; a bucket's stack and heap must exist (or be none), its
// kind and realloc flag be 0 or 1, its padding zero.
std::optional<BadRecord> first_bad_bucket(std::string_view records, std::uint64_t first, std::size_t stacks,
                                          std::size_t heaps);

}  // namespace heapql::store_file
