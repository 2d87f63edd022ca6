// What a file holds, told by its first bytes: for messages about a file given
// to the wrong command or in the wrong place (a trace named as the recipe, a
// heaptrack trace given to the event-CSV importer, a block-identity file
// given as the trace). Readers do not use it to pick themselves
// (detect_trace_format in engine/ingest/open_trace.h does). It knows the
// traces and heapql's own files (stores, block-identity files) alike, so it
// lives above both ingest and store_file.
#pragma once

#include <string>
#include <string_view>

namespace heapql {

enum class FileKind { kOther, kHeaptrack, kEtl, kEventCsv, kStore, kBlockIdentity };

// Never throws: a file that cannot be read is kOther.
FileKind sniff_file_kind(const std::string& path);

// "a heaptrack trace", "an ETW trace (.etl)", ... ("" for kOther).
std::string_view file_kind_phrase(FileKind kind);

}  // namespace heapql
