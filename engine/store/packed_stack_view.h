// A stack view (stack_view.h) made in memory from what a StackViewSink
// receives: each column packed as it comes, so that a session's views and
// a store writer's take what a store file's does (packed_column.h).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/error.h"
#include "engine/store/packed_column_writer.h"
#include "engine/store/stack_view.h"
#include "engine/store/stack_view_sink.h"

namespace heapql {

class PackedStackViewSink final : public StackViewSink {
 public:
  void head(const StackViewHead& head) override { head_ = head; }
  void stacks(std::span<const std::uint32_t> stacks) override {
    expect_rows(stacks.size());
    columns_[0] = pack_values(stacks, 0, words_[0]);
  }
  void measure(std::span<const std::uint64_t> column) override {
    expect_rows(column.size());
    if (measures_ == kViewMeasures) throw Error("internal error: a stack view with more than its measures");
    std::vector<std::uint32_t> low(column.size()), high(column.size());
    for (std::size_t i = 0; i < column.size(); ++i) {
      low[i] = static_cast<std::uint32_t>(column[i]);
      high[i] = static_cast<std::uint32_t>(column[i] >> 32);
    }
    const std::size_t c = 1 + 2 * measures_++;
    columns_[c] = pack_values(low, 0, words_[c]);
    columns_[c + 1] = pack_values(high, 0, words_[c + 1]);
  }

  bool complete() const { return measures_ == kViewMeasures; }
  const StackViewHead& view_head() const { return head_; }
  // Each column's words (the packed table's columns, in order).
  std::span<const std::vector<std::uint64_t>> words() const { return words_; }
  // The view of what was received: its columns view this sink's words.
  StackView view() const {
    if (!complete()) throw Error("internal error: a stack view without all its columns");
    StackView v;
    v.cull_fingerprint = head_.cull_fingerprint;
    v.temporary_blocks = head_.temporary_blocks;
    v.totals = head_.totals;
    v.columns = columns_;
    return v;
  }

 private:
  void expect_rows(std::size_t n) const {
    if (n != head_.rows) throw Error("internal error: the stack view's columns differ in length");
  }

  StackViewHead head_;
  std::array<std::vector<std::uint64_t>, kViewColumns> words_;
  std::array<PackedColumn, kViewColumns> columns_{};
  std::size_t measures_ = 0;
};

}  // namespace heapql
