// `heapql record`'s reading: a heaptrack recording read while it is made,
// its interpreted stream (heaptrack_interpret's output, also being written to
// its file) and its raw stream in step, exactly, into the store beside the
// interpreted file. At the end the store and the block-identity file are
// those `heapql ingest` of the finished file would write (docs/store.md).
#pragma once

#include <string>

#include "engine/ingest/byte_stream.h"
#include "engine/session/ingest_into_store.h"

namespace heapql {

struct RecordingStreams {
  // The zstd file the interpreted stream is being written to (NAME.zst):
  // the trace the store is for. Its stream (the text) ends only once the
  // file is whole.
  std::string interpreted_path;
  ByteStream* interpreted = nullptr;
  // The raw recording (`heaptrack --raw`'s stream), and its name in messages.
  std::string raw_name;
  ByteStream* raw = nullptr;
};

// Reads both streams to their end; writes NAME.zst.hqid and then the store
// NAME.zst.hqdb, recording the finished files' identities so the store is
// found fresh. Throws Error (naming the stream) and leaves no store when the
// reading fails. `warnings`: null = stderr.
IngestResult ingest_recording(const RecordingStreams& streams, std::string* warnings = nullptr);

}  // namespace heapql
