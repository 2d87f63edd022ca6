// Writes a store file (store_format.h) while a reader streams a trace: the
// columns go to unlinked temporary files in the store's folder as they are
// built, so ingest holds the tables in memory and, per block, only the
// packed columns' directories (a u64 per 64 values: packed_column_writer.h).
// commit() then assembles the file under a temporary name, syncs it, and renames it
// into place: a reader sees the old file or the whole new one, never a part,
// and a writer that dies leaves no file a reader accepts.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/store/events.h"
#include "engine/store/stack_view_sink.h"
#include "engine/store/store_columns.h"
#include "engine/store/trace_tables.h"
#include "engine/store_file/source_record.h"
#include "engine/store_file/store_format.h"

namespace heapql::store_file {

// What a store's blocks are written as: the trace's events when its
// reading paired each free with its bucket's youngest live block (decided
// at commit from the source record), else the three block columns; or the
// columns whatever the pairing (a recording with exact identity, which then
// spends nothing on events).
enum class StoreBlockFacts { kEventsWhenPaired, kColumns };

class StoreWriter {
 public:
  // Throws Error naming the folder when it cannot be written. `tables` are
  // the ones the reader interns into (the writer reads bucket sizes).
  // `accelerators`: those the store gets, of this build's (kAccelerators).
  StoreWriter(std::string path, const TraceTables& tables,
              std::span<const Accelerator> accelerators = kAccelerators,
              StoreBlockFacts facts = StoreBlockFacts::kEventsWhenPaired);
  ~StoreWriter();
  StoreWriter(const StoreWriter&) = delete;
  StoreWriter& operator=(const StoreWriter&) = delete;

  // Where the reader sends its events.
  EventConsumer& consumer();
  // Until the reading finishes: what it has counted of the events so far.
  const BucketSumsSoFar& sums_so_far() const;

  // Makes the stack view from the tables and the bucket sums, calls the
  // third argument once it has read the sums (their memory is freed), and
  // hands the view to the sink. The store layer cannot cull stacks; the
  // query layer can (Aggregator::build_stack_view).
  using StackViewMaker = std::function<void(const TraceTables&, const BucketSumChunks&, const std::function<void()>&,
                                            StackViewSink&)>;

  // Writes the file with the tables; returns its size. The record's event
  // count, end and peak are filled in from the columns. Without a maker the
  // store has no stack view.
  std::uint64_t commit(SourceRecord record, const StackViewMaker& make_view = {});
  // The same, with the source record asked for only when its section is
  // written, which is last: the files it identifies can be finished while
  // the rest is written (a recording's block-identity file, synced on a
  // thread of its own).
  using SourceRecordMaker = std::function<SourceRecord()>;
  std::uint64_t commit(const SourceRecordMaker& make_record, const StackViewMaker& make_view = {});

  const std::string& path() const { return path_; }
  std::uint64_t block_count() const;
  std::uint64_t free_count() const;
  std::uint64_t column_bytes() const;  // of the block and free columns, or of the events after commit

 private:
  struct Columns;
  bool writes(Section accelerator) const;

  std::string path_;
  const TraceTables& tables_;
  StoreBlockFacts facts_;
  bool wrote_events_ = false;
  std::vector<Section> accelerators_;
  std::unique_ptr<Columns> columns_;
};

}  // namespace heapql::store_file
