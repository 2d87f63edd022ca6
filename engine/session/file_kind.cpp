#include "engine/session/file_kind.h"

#include "engine/error.h"
#include "engine/ingest/block_identity_file.h"
#include "engine/ingest/etl/etl_file.h"
#include "engine/ingest/event_csv_reader.h"
#include "engine/ingest/line_reader.h"
#include "engine/path_kind.h"
#include "engine/store_file/store_reader.h"

namespace heapql {

namespace {

bool is_hex_word(std::string_view word) {
  return !word.empty() && word.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

// A heaptrack file (interpreted or raw, of any compression) starts with its
// `v` record, `v VERSION FILE_VERSION` in hex (a Lua file may start with
// `v = 1`); heaptrack_interpret may put comment lines before it.
bool starts_like_heaptrack(const std::string& path) {
  try {
    LineReader in(path, false);
    std::string_view line;
    for (int i = 0; i < 16 && in.next(line); ++i) {
      if (line.starts_with("#")) continue;
      if (!line.starts_with("v ")) return false;
      line.remove_prefix(2);
      const std::size_t space = line.find(' ');
      return space != std::string_view::npos && is_hex_word(line.substr(0, space)) &&
             is_hex_word(line.substr(space + 1));
    }
  } catch (const Error&) {
  }
  return false;
}

}  // namespace

FileKind sniff_file_kind(const std::string& path) {
  if (path_kind(path) != PathKind::kFile) return FileKind::kOther;
  if (store_file::is_store_file(path)) return FileKind::kStore;
  if (heaptrack::is_block_identity_file(path)) return FileKind::kBlockIdentity;
  if (EtlFile::sniff(path)) return FileKind::kEtl;
  if (looks_like_event_csv(path)) return FileKind::kEventCsv;
  if (starts_like_heaptrack(path)) return FileKind::kHeaptrack;
  return FileKind::kOther;
}

std::string_view file_kind_phrase(FileKind kind) {
  switch (kind) {
    case FileKind::kHeaptrack: return "a heaptrack trace";
    case FileKind::kEtl: return "an ETW trace (.etl)";
    case FileKind::kEventCsv: return "an event CSV trace";
    case FileKind::kStore: return "a heapql store file (.hqdb)";
    case FileKind::kBlockIdentity: return "a heapql block-identity file (.hqid)";
    case FileKind::kOther: break;
  }
  return "";
}

}  // namespace heapql
