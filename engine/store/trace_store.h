// The immutable event store: one trace's interned tables plus its blocks as
// dense columns (store_columns.h, 12 bytes a freed block). The columns are
// either built in memory from a reader or mapped from a store file
// (store_file/). Repeated queries replay the store through the same
// EventConsumer interface a reader feeds, so they get the answers a one-shot
// query off the reader gets.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "engine/store/events.h"
#include "engine/store/source_info.h"
#include "engine/store/stack_view.h"
#include "engine/store/store_columns.h"
#include "engine/store/trace_tables.h"

namespace heapql {

class TraceStore {
 public:
  TraceStore() = default;
  // A store over columns that live elsewhere (a mapped file), which `owner`
  // keeps alive. `check_blocks` runs beside the first replay, which waits
  // for it before it returns (the file's block columns are checked only when
  // a query reads them); it throws Error, which the replay then throws
  // rather than its own (a damaged column explains a replay's failure).
  // `check_sums` runs before the bucket sums are first read (check_bucket_sums).
  TraceStore(TraceTables tables, SourceInfo source, StoreColumns columns, std::shared_ptr<const void> owner,
             std::function<void()> check_blocks = {}, std::function<void()> check_sums = {});
  // The columns view storage the store owns: it moves, but never copies.
  TraceStore(const TraceStore&) = delete;
  TraceStore& operator=(const TraceStore&) = delete;

  TraceTables& tables() { return tables_; }
  const TraceTables& tables() const { return tables_; }
  SourceInfo& source() { return source_; }
  const SourceInfo& source() const { return source_; }
  const StoreColumns& columns() const { return columns_; }
  // The stack view of a store file that has one (its rows unchecked), and
  // the check of its section that must pass before its rows are trusted:
  // the first call runs it (it throws Error), later calls wait for that.
  void attach_stack_view(StackView view, std::function<void()> check);
  const StackView* stack_view() const { return stack_view_ ? &*stack_view_ : nullptr; }
  void check_stack_view() const { stack_view_check_.run(); }
  // Before columns().bucket_sums are read: the file's sums are checked
  // against the columns when first used (throws Error).
  void check_bucket_sums() const { sums_check_.run(); }

  std::size_t block_count() const { return columns_.block_count(); }
  std::uint64_t event_count() const { return columns_.event_count; }

  // Feeds every event, in the original order, then the blocks still alive,
  // then on_finish: exactly what the reader fed when the store was built.
  // Throws Error when the columns contradict each other (a crafted file).
  //
  // With `until_ns`, for a consumer to which nothing at or after that time
  // matters but which block ended how (a query whose window ends there): the
  // events from the first one at or after it are not fed, except the frees
  // of earlier blocks that were temporary, fed as if at until_ns; the other
  // blocks allocated before it are fed as still alive, later ones not at all.
  //
  // A consumer that can skip the events before some time
  // (EventConsumer::skippable_before_ns) gets them in one call, and the
  // replay starts at the first event at or after that time.
  void replay(EventConsumer& consumer, std::int64_t until_ns = kNeverNs) const;

  // Bytes of the per-block columns, and of everything (columns + tables).
  std::size_t column_bytes() const { return columns_.bytes(); }
  std::size_t memory_bytes() const { return column_bytes() + tables_.memory_bytes(); }

  // The consumer that fills a store in memory from a reader.
  class Builder final : public EventConsumer {
   public:
    explicit Builder(TraceStore& store, CheckpointRule checkpoints = {});
    void on_alloc(const LiveBlock& block) override { columns_.on_alloc(block); }
    void on_free(const LiveBlock& block, std::uint64_t free_seq, std::int64_t free_ns, bool temporary) override {
      columns_.on_free(block, free_seq, free_ns, temporary);
    }
    void on_still_alive(const LiveBlock&) override {}
    void on_finish(std::int64_t end_ns) override;

   private:
    TraceStore& store_;
    ColumnBuilder<std::vector<std::uint32_t>, std::vector<TimeChange>> columns_;
  };

 private:
  // Feeds the first `allocs` allocations and `frees` frees in one call.
  template <class MarkFreed>
  void skip_events(EventConsumer& consumer, std::size_t allocs, std::size_t frees, MarkFreed& mark_freed) const;
  // The same from a live checkpoint: its blocks, then the events after it.
  template <class MarkFreed>
  void skip_from_checkpoint(EventConsumer& consumer, const LiveCheckpoint& checkpoint, std::size_t allocs,
                            std::size_t frees, std::vector<std::uint64_t>& freed_bits, MarkFreed& mark_freed) const;
  void replay_blocks(EventConsumer& consumer, std::int64_t until_ns) const;

  struct OwnedColumns {
    std::vector<std::uint32_t> bucket, alloc_seq, free_order;
    std::vector<TimeChange> time_changes;
    std::vector<BucketSum> bucket_sums;
    std::vector<LiveCheckpoint> checkpoints;
    std::vector<std::uint32_t> checkpoint_ids;
  };

  TraceTables tables_;
  SourceInfo source_;
  OwnedColumns owned_;                  // a store built in memory
  std::shared_ptr<const void> owner_;   // or one mapped from a file
  // A check of a part of a store file that runs when that part is first
  // used, once (a check that threw runs again the next time).
  struct LazyCheck {
    std::function<void()> check;
    std::unique_ptr<std::once_flag> done = std::make_unique<std::once_flag>();
    void run() const {
      if (check) std::call_once(*done, check);
    }
  };
  LazyCheck blocks_check_;
  LazyCheck sums_check_;
  std::optional<StackView> stack_view_;
  LazyCheck stack_view_check_;
  StoreColumns columns_;                // views of one or the other
};

}  // namespace heapql
