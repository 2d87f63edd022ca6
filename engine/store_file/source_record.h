// The store's "source" section: which files were read (their identities),
// how they were read, and everything the reader learned (SourceInfo), so that
// answers from the store carry the same source facts as answers off the trace.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/store/source_info.h"
#include "engine/store/store_columns.h"
#include "engine/binary_file/byte_codec.h"
#include "engine/binary_file/source_identity.h"

namespace heapql::store_file {

struct SourceRecord {
  std::vector<FileIdentity> files;  // the trace and every file read with it
  std::string reading;              // how it was read (reading_key in engine/session/trace_store_location.h)
  SourceInfo info;
  std::uint64_t event_count = 0;
  std::int64_t end_ns = 0;
  TracePeak peak;  // of the whole trace
};

std::string encode_source_record(const SourceRecord& record);
SourceRecord decode_source_record(ByteReader& in);

}  // namespace heapql::store_file
