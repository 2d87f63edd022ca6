// A store file's header and table of contents, read from its bytes
// (store_format.h): which sections the file has, where they lie, and their
// checksums. Every fact section must be there, once; an accelerator is used
// when the reader knows its kind at its revision and passed over otherwise
// (a store written by another heapql). Anything wrong is an Error naming the
// file, what is wrong and where.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/binary_file/byte_codec.h"
#include "engine/binary_file/mapped_file.h"
#include "engine/store/store_file_info.h"
#include "engine/store_file/store_format.h"

namespace heapql::store_file {

// A table of contents entry.
struct SectionEntry {
  std::uint32_t kind = 0;
  std::uint32_t revision = 0;
  std::uint64_t checksum = 0, offset = 0, bytes = 0, items = 0;
};

class StoreSections {
 public:
  // Checks the header and reads the table of contents. `bytes` must stay
  // valid while this lives (copies included); `name` is what messages call
  // the file; `accelerators`: those this reader uses (store_format.h).
  StoreSections(std::string_view bytes, std::string name, std::span<const Accelerator> accelerators);
  // A store file's bytes read by positioned reads too (MappedFile::read_at),
  // for the passes that read a section whole to check it (for_each_piece).
  void read_by_copy(ReadFileAt read_at) { read_at_ = std::move(read_at); }

  std::uint32_t format_version() const { return version_; }
  std::uint64_t file_bytes() const { return bytes_.size(); }
  // Whether the file has this section in a form the reader uses (every fact does).
  bool has(Section kind) const { return used_[index(kind)].has_value(); }
  // Only for a section it has.
  const SectionEntry& entry(Section kind) const { return *used_[index(kind)]; }
  std::string_view bytes(Section kind) const {
    const SectionEntry& e = entry(kind);
    return bytes_.substr(e.offset, e.bytes);
  }
  // The sections as `info` lists them: those used, by kind, then those passed over.
  std::vector<StoreSectionInfo> describe() const;

  // Throws Error when the section's checksum does not match.
  void verify(Section kind) const;
  // Calls `piece(bytes)` with the bytes of `range` (a part of this file's
  // bytes), in order, `piece_bytes` at most at a time, each 8-byte aligned:
  // copied by positioned reads where read_by_copy() was given them (a
  // checksum's pass then does not fault in pages it never uses again), else
  // viewed in place (where a copy fails too: a file cut short under the
  // mapping is then reported as the mapping's fault).
  void for_each_piece(std::string_view range, std::size_t piece_bytes,
                      const std::function<void(std::string_view piece)>& piece) const;
  [[noreturn]] void damaged(Section kind) const;
  // Throws Error naming the file and, if given, the byte offset.
  [[noreturn]] void fail(const std::string& what, std::optional<std::uint64_t> at = std::nullopt) const;
  ByteReader reader(Section kind) const;
  // A fixed-width table's reader: its item count must match its size.
  ByteReader table(Section kind, std::uint64_t item_bytes) const;

 private:
  static std::size_t index(Section kind) { return static_cast<std::size_t>(kind) - 1; }
  void check_header();
  void read_toc(std::span<const Accelerator> accelerators);

  std::string_view bytes_;
  ReadFileAt read_at_;
  std::string name_;
  std::uint32_t version_ = 0;
  std::array<std::optional<SectionEntry>, kSectionKinds> used_{};
  std::vector<SectionEntry> passed_over_;
};

}  // namespace heapql::store_file
