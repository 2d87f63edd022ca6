// A recording read while it is made into its store (ingest_recording.h).
#include "engine/session/ingest_recording.h"

#include <filesystem>
#include <future>
#include <memory>

#include "engine/error.h"
#include "engine/binary_file/source_identity.h"
#include "engine/ingest/block_identity_file.h"
#include "engine/ingest/heaptrack_reader.h"
#include "engine/ingest/heaptrack_record_parser.h"
#include "engine/query/aggregator.h"
#include "engine/session/live_journal.h"
#include "engine/session/trace_store_location.h"
#include "engine/store_file/source_record.h"
#include "engine/store_file/store_writer.h"

namespace heapql {

IngestResult ingest_recording(const RecordingStreams& streams, std::string* warnings) {
  const std::string& trace = streams.interpreted_path;
  TraceTables tables;
  // Exact identity (below): its frees need not end their bucket's youngest
  // block, so the store keeps the block columns, and spends nothing on events.
  store_file::StoreWriter writer(store_beside(trace), tables, store_file::kAccelerators,
                                 store_file::StoreBlockFacts::kColumns);

  // The reader feeds the store writer through the live journal, which
  // publishes the recording so far for other processes' queries each second
  // (live_journal.h). What it says of the reading until the store does: an
  // exact heaptrack recording (raw stream and interpreted in step).
  SourceInfo reading;
  reading.path = trace;
  reading.files = {trace};
  reading.source = "heaptrack";
  reading.format = "raw+interpreted";
  reading.compression = "zstd";
  reading.block_identity = BlockIdentity::kExact;
  reading.time_resolution_ns = heaptrack::kTimeResolutionNs;  // as the reader will say it
  LiveJournalWriter journal(trace, tables, reading, writer.consumer(), &writer.sums_so_far());
  journal.collect_warnings(warnings);
  EventConsumer& reader_feeds = journal;

  HeaptrackFiles files;
  files.interpreted = trace;
  files.interpreted_stream = streams.interpreted;
  files.raw = streams.raw_name;
  files.raw_stream = streams.raw;
  HeaptrackReadOptions options;
  options.show_progress = false;
  options.write_block_identity = true;
  options.warnings = warnings;
  std::future<void> identity_committed;
  options.block_identity_committed = &identity_committed;
  store_file::SourceRecord record;
  record.info = read_heaptrack(files, tables, reader_feeds, options);

  // What `heapql ingest NAME.zst` reads later: the interpreted file and the
  // block-identity file this reading wrote beside it (no raw twin: if one
  // is kept, the identity file is read in its place). A reading that ended
  // early wrote no identity file; a later ingest reads the raw twin if kept.
  const std::string identity = heaptrack::block_identity_beside(trace);
  record.info.path = trace;
  // The stream was the file's text; the file is zstd (ZstdFileWriter).
  record.info.compression = "zstd";
  record.info.files = {trace};
  record.reading = reading_key(OpenOptions{}, trace);
  tables.release_indexes();
  // The identity file is synced while the store is written; the source
  // record, written last, names it once it is in place.
  const auto finished_record = [&] {
    if (identity_committed.valid()) identity_committed.get();
    if (!record.info.cut && std::filesystem::exists(identity)) record.info.files.push_back(identity);
    for (const std::string& file : record.info.files) record.files.push_back(store_file::identify_file(file));
    return record;
  };
  IngestResult result;
  result.file_bytes = naming_file(trace, [&] { return writer.commit(finished_record, &Aggregator::build_stack_view); });
  // The store answers from now on: the journal's readers would pass it over.
  journal.remove_journal();
  result.store_path = writer.path();
  result.blocks = writer.block_count();
  result.frees = writer.free_count();
  result.column_bytes = writer.column_bytes();
  result.source = std::move(record.info);
  if (result.source.files.size() > 1) result.block_identity_path = identity;
  return result;
}

}  // namespace heapql
