// The immutable event store: one trace's interned tables plus its blocks as
// dense columns, 16 bytes a block. Repeated queries replay it through the same
// EventConsumer interface a reader feeds, so they get the answers a one-shot
// query off the reader gets.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/store/events.h"
#include "engine/store/source_info.h"
#include "engine/store/trace_tables.h"

namespace heapql {

class TraceStore {
 public:
  static constexpr std::uint32_t kNeverFreed = 0xFFFFFFFFu;
  static constexpr std::uint32_t kTemporaryBit = 0x80000000u;
  static constexpr std::uint64_t kMaxEvents = kTemporaryBit - 1;

  TraceTables& tables() { return tables_; }
  const TraceTables& tables() const { return tables_; }
  SourceInfo& source() { return source_; }
  const SourceInfo& source() const { return source_; }

  std::size_t block_count() const { return bucket_.size(); }
  std::uint64_t event_count() const { return event_count_; }

  // Feeds every event, in the original order, then the blocks still alive,
  // then on_finish: exactly what the reader fed when the store was built.
  void replay(EventConsumer& consumer) const;

  // Bytes of the per-block columns, and of everything (columns + tables).
  std::size_t column_bytes() const;
  std::size_t memory_bytes() const;

  // The consumer that fills a store from a reader.
  class Builder final : public EventConsumer {
   public:
    explicit Builder(TraceStore& store) : store_(store) {}
    void on_alloc(const LiveBlock& block) override;
    void on_free(const LiveBlock& block, std::uint64_t free_seq, std::int64_t free_ns, bool temporary) override;
    void on_still_alive(const LiveBlock&) override {}
    void on_finish(std::int64_t end_ns) override;

   private:
    void note_time(std::uint64_t seq, std::int64_t ns);
    TraceStore& store_;
  };

 private:
  struct TimeChange {
    std::uint32_t first_seq;  // the first event stamped `ns`
    std::int64_t ns;
  };
  std::int64_t time_of(std::uint32_t seq) const;

  TraceTables tables_;
  SourceInfo source_;
  // Per block, in allocation order (so alloc_seq_ ascends).
  std::vector<std::uint32_t> bucket_;
  std::vector<std::uint32_t> alloc_seq_;
  std::vector<std::uint32_t> free_seq_;  // kNeverFreed, or seq | kTemporaryBit when temporary
  // Block ids in the order they were freed.
  std::vector<std::uint32_t> free_order_;
  std::vector<TimeChange> time_changes_;
  std::uint64_t event_count_ = 0;
  std::int64_t end_ns_ = 0;

  // The per-block columns hold one element per block each: what they add up
  // to is the store's budget of 16 bytes a block (docs/architecture.md).
  static_assert(sizeof(decltype(bucket_)::value_type) + sizeof(decltype(alloc_seq_)::value_type) +
                        sizeof(decltype(free_seq_)::value_type) + sizeof(decltype(free_order_)::value_type) ==
                    16,
                "the store's budget is 16 bytes a block");
};

}  // namespace heapql
