// A block-identity file (NAME.hqid beside an interpreted heaptrack file
// NAME): what an exact reading with the raw twin learned beyond the
// interpreted file, so that later readings are exact without the twin.
// The interpreted file pairs each free with its bucket; the identity file
// lists the blocks that end out of their bucket's LIFO order (and the ones
// an allocation over their address ends), the modules' load addresses that
// unsymbolized frames are offsets from, and the twin's counts of frees that
// found no block. Layout and rules: docs/heaptrack.md ("Block-identity files").
#pragma once

#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/ingest/block_matcher.h"
#include "engine/store/store_file_info.h"

namespace heapql::store_file {
class OutputFile;
}

namespace heapql::heaptrack {

// One out-of-order end, relative to where the reading stands when it comes:
// the end is event `seq`; its block is `blocks_before - 1 - id_back` among
// the blocks allocated so far, allocated as event `seq - 1 - seq_back` at
// `now - ns_back`. `bucket` only for an end by allocation (a free's is the
// interpreted free's).
struct OutOfOrderEndRecord {
  std::uint64_t seq = 0;
  bool is_free = true;
  bool temporary = false;
  std::uint64_t id_back = 0, seq_back = 0;
  std::int64_t ns_back = 0;
  std::uint32_t bucket = 0;
};

class BlockIdentityReader {
 public:
  // From the file, or (tests, fuzzing) from its bytes under that name.
  // Throws Error naming the file and what is wrong with it. The file is
  // read in pieces, not mapped: a reading's memory stays its own.
  explicit BlockIdentityReader(const std::string& path);
  BlockIdentityReader(const std::string& name, std::string_view bytes);
  ~BlockIdentityReader();

  // The interpreted file it was written for.
  const FileIdentity& interpreted() const { return interpreted_; }
  std::uint64_t unmatched_frees() const { return unmatched_frees_; }
  std::uint64_t double_frees() const { return double_frees_; }
  std::optional<std::uint64_t> module_base(std::uint32_t ip_index) const {
    const auto it = module_bases_.find(ip_index);
    return it == module_bases_.end() ? std::nullopt : std::optional<std::uint64_t>(it->second);
  }
  // What next() decodes besides each end's event number, kind and (for an
  // end by allocation) bucket: the allocation times (ns_back) and the
  // block's own numbers (id_back, seq_back). Each is a column of its own,
  // never decompressed when not asked for; decided before the first next().
  void decode(bool times, bool ids);
  // The next out-of-order end, or false after the last.
  bool next(OutOfOrderEndRecord& out);
  const std::string& path() const { return path_; }

 private:
  class Source;
  class Column;
  BlockIdentityReader(const std::string& name, std::unique_ptr<Source> source);
  std::string path_;
  std::unique_ptr<Source> source_;
  FileIdentity interpreted_;
  std::uint64_t unmatched_frees_ = 0, double_frees_ = 0;
  std::unordered_map<std::uint32_t, std::uint64_t> module_bases_;
  std::uint64_t left_ = 0;
  std::uint64_t seq_ = 0;
  bool times_ = true, ids_ = true;
  std::unique_ptr<Column> kinds_, times_column_, ids_column_;
};

// Only what a reading needs to decide whether to use the file: the
// interpreted file it was written for. Throws Error as the reader does.
FileIdentity peek_block_identity_file(const std::string& path);

// Written during an exact reading with the raw twin; commit() makes the file
// (atomically: a reader sees none or all of it).
class BlockIdentityWriter final : public OutOfOrderEnds {
 public:
  // Throws Error naming the folder when it cannot be written.
  BlockIdentityWriter(std::string path, FileIdentity interpreted);
  ~BlockIdentityWriter() override;

  void on_out_of_order_end(const LiveBlock& block, std::uint64_t seq, std::int64_t ns, bool is_free,
                           bool temporary) override;
  // Needs the reading's count of blocks allocated before each end: the matcher.
  void follow(const BlockMatcher& matcher) { matcher_ = &matcher; }
  void add_module_base(std::uint32_t ip_index, std::uint64_t base) { module_bases_.emplace_back(ip_index, base); }
  // The interpreted file it is for, when it was not known at the start (a
  // recording read while it was written): before commit().
  void set_interpreted(FileIdentity interpreted) { interpreted_ = std::move(interpreted); }
  void commit(std::uint64_t unmatched_frees, std::uint64_t double_frees);
  // As commit(), but the file is made durable and renamed into place on a
  // thread of its own (a recording's store is written meanwhile, so the two
  // syncs overlap). The future rethrows the commit's error; the file is in
  // place once it is ready.
  std::future<void> commit_in_background(std::uint64_t unmatched_frees, std::uint64_t double_frees);
  const std::string& path() const { return path_; }

 private:
  class Column;
  // The whole file written under its temporary name, not yet committed.
  std::unique_ptr<store_file::OutputFile> write_file(std::uint64_t unmatched_frees, std::uint64_t double_frees);
  std::string path_;
  FileIdentity interpreted_;
  const BlockMatcher* matcher_ = nullptr;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> module_bases_;
  std::uint64_t count_ = 0, last_seq_ = 0;
  std::unique_ptr<Column> kinds_, times_, ids_;
};

// NAME.hqid for an interpreted file NAME.
std::string block_identity_beside(const std::string& interpreted_path);

// True when the file starts with the block-identity magic (for messages
// about such a file given where a trace was expected).
bool is_block_identity_file(const std::string& path);

}  // namespace heapql::heaptrack
