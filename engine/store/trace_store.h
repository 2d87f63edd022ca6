// The immutable event store: one trace's interned tables plus its blocks as
// packed columns (store_columns.h, about 4 bytes a block). The columns are
// either built in memory from a reader or mapped from a store file
// (store_file/). Repeated queries replay the store through the same
// EventConsumer interface a reader feeds, so they get the answers a one-shot
// query off the reader gets.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "engine/store/events.h"
#include "engine/store/packed_column_writer.h"
#include "engine/store/source_info.h"
#include "engine/store/stack_view.h"
#include "engine/store/store_columns.h"
#include "engine/store/trace_tables.h"
#include "engine/util/lazy_check.h"

namespace heapql {

// What a store file checks of itself (docs/store-format.md, "Checksums"),
// each part when a query first reads it; each throws Error.
struct StoreFileChecks {
  std::function<void()> stack_tree;   // its section's checksum and records
  // The same check, the section read by copies (StoreSections::for_each_piece):
  // for a query that then reads only the few nodes of the rows it shows.
  std::function<void()> stack_tree_by_copy;
  std::function<void()> buckets;      // the same
  std::function<void()> blocks;       // the block columns, the time changes and the live checkpoints
  std::function<void()> bucket_sums;  // their checksum, and that they add up to the block columns
};

class TraceStore {
 public:
  TraceStore() = default;
  // A store over columns that live elsewhere (a mapped file), which `owner`
  // keeps alive, and the checks of that file's parts, each run when a query
  // first reads its part (below).
  TraceStore(TraceTables tables, SourceInfo source, StoreColumns columns, std::shared_ptr<const void> owner,
             StoreFileChecks checks = {});
  // The columns view storage the store owns: it moves, but never copies.
  TraceStore(const TraceStore&) = delete;
  TraceStore& operator=(const TraceStore&) = delete;

  TraceTables& tables() { return tables_; }
  const TraceTables& tables() const { return tables_; }
  SourceInfo& source() { return source_; }
  const SourceInfo& source() const { return source_; }
  const StoreColumns& columns() const {
    blocks_gather_.run();
    return columns_;
  }
  // All but the three block columns, which may not be gathered yet (below):
  // the bucket sums, the peak, the time changes, the event count and the
  // end. For a whole-trace answer from the sums.
  const StoreColumns& columns_but_blocks() const { return columns_; }
  // A live journal's store, or a store file of events: its three block
  // columns are put together by `gather`, into the store's columns, when a
  // query first reads them (columns(), a replay for a consumer that needs
  // each block, and the rest), once; an answer from the bucket sums, or a
  // replay of the events as bucket runs, never does. A `gather` that throws
  // (damaged events) throws again at the next read.
  void gather_blocks_when_read(std::function<void(StoreColumns&)> gather);
  // A store file's parts are checked when first read, each once (the first
  // call runs its check, which throws Error; later calls wait for it):
  // - the stack tree and the buckets (check_tables) before a query reads
  //   them: replay() and check_bucket_sums() check both, and the stack
  //   view's rows need only the stack tree (check_stack_tree). A caller that
  //   reads tables() otherwise checks them first;
  // - the block columns beside the first replay (replay()), and the
  //   tables too when the replay starts by counting skipped events, which
  //   reads no table;
  // - the bucket sums and the stack view before an answer from them.
  // A store built in memory has nothing to check.
  void check_tables() const;
  // For the stack view's answers, which then read only the shown rows' nodes.
  void check_stack_tree() const { stack_tree_check_.run_as(stack_tree_by_copy_); }
  // The stack view of a store file that has one (its rows unchecked), and
  // the check of its section that must pass before its rows are trusted.
  void attach_stack_view(StackView view, std::function<void()> check);
  const StackView* stack_view() const { return stack_view_ ? &*stack_view_ : nullptr; }
  void check_stack_view() const { stack_view_check_.run(); }
  // Before columns().bucket_sums are read (the tables too, which their
  // answer reads): the file's sums are checked against the columns.
  void check_bucket_sums() const;
  // The block columns, the time changes and the live checkpoints, for a
  // reader of them other than replay() (which checks them beside itself).
  void check_blocks() const { blocks_check_.run(); }

  // (A store of events knows its count without making its block columns.)
  std::size_t block_count() const { return columns_.has_events ? columns_.block_count() : columns().block_count(); }
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
  //
  // `first`, if given, runs before the first event, while the sections'
  // checks start on the other core: the consumer's own setup (its states).
  void replay(EventConsumer& consumer, std::int64_t until_ns = kNeverNs,
              const std::function<void()>& first = {}) const;

  // How many of the first buckets a replay until `until_ns` may meet (one
  // past the highest bucket of the blocks allocated before then, or all of
  // them), for the consumer to set its per-bucket states at once.
  std::size_t buckets_met_before(std::int64_t until_ns) const;

  // Bytes of the per-block columns, and of everything (columns + tables).
  std::size_t column_bytes() const { return columns().bytes(); }
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
    // Until on_finish: what it has counted of the events so far.
    const BucketSumsSoFar& sums_so_far() const { return columns_; }

   private:
    using Packer = PackedColumnWriter<std::vector<std::uint64_t>>;
    TraceStore& store_;
    Packer bucket_, alloc_seq_, free_order_;
    ColumnBuilder<Packer, std::vector<TimeChange>> columns_;
  };

 private:
  // Feeds the first `allocs` allocations and `frees` frees in one call.
  template <class MarkFreed>
  void skip_events(EventConsumer& consumer, std::size_t allocs, std::size_t frees, MarkFreed& mark_freed) const;
  // The same from a live checkpoint: its blocks, then the events after it.
  template <class MarkFreed>
  void skip_from_checkpoint(EventConsumer& consumer, const LiveCheckpoint& checkpoint, std::size_t allocs,
                            std::size_t frees, std::vector<std::uint64_t>& freed_bits, MarkFreed& mark_freed) const;
  // The same from the first live checkpoint after the skipped events, when
  // it is nearer: its blocks allocated before their end, and those freed
  // between their end and it, counted back.
  void skip_back_from_checkpoint(EventConsumer& consumer, const LiveCheckpoint& checkpoint, std::size_t allocs,
                                 std::size_t frees, std::vector<std::uint64_t>& freed_bits) const;
  // Hands the consumer the skipped events' live blocks per bucket, once
  // the tables it reads from then on are checked.
  void hand_over_skipped(EventConsumer& consumer, std::span<const std::uint32_t> live) const;
  void replay_blocks(EventConsumer& consumer, std::int64_t until_ns) const;
  // The same from a store file's events, as bucket runs, for a consumer
  // that needs no block of its own (EventConsumer::needs_blocks).
  void replay_events(EventConsumer& consumer, std::int64_t until_ns) const;
  // The same from the events for a consumer that needs each block: a stack
  // of live blocks per bucket, the ids in allocation order.
  void replay_event_blocks(EventConsumer& consumer, std::int64_t until_ns) const;

  struct OwnedColumns {
    std::vector<std::uint64_t> bucket, alloc_seq, free_order;  // packed (packed_column.h)
    std::vector<TimeChange> time_changes;
    std::vector<BucketSum> bucket_sums;
    std::vector<LiveCheckpoint> checkpoints;
    std::vector<std::uint64_t> checkpoint_ids;  // packed
  };

  TraceTables tables_;
  SourceInfo source_;
  OwnedColumns owned_;                  // a store built in memory
  std::shared_ptr<const void> owner_;   // or one mapped from a file
  LazyCheck stack_tree_check_;
  std::function<void()> stack_tree_by_copy_;
  LazyCheck buckets_check_;
  LazyCheck blocks_check_;
  LazyCheck sums_check_;
  std::optional<StackView> stack_view_;
  LazyCheck stack_view_check_;
  LazyCheck blocks_gather_;             // not a check: run once, when the block columns are first read
  StoreColumns columns_;                // views of one or the other
};

}  // namespace heapql
