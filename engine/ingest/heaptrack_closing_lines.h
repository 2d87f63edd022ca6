// The two comment lines heaptrack_interpret ends every file with,
// "# strings: N" and "# ips: N" (decimal: how many `s` and `i` records it
// wrote), printed when its input ends. A file without them was cut short even
// where its last line is whole: a plain file copied while it was written, or
// an interpreter killed with its program (../shared/formats/heaptrack.md).
// Where they are there, their counts must be the file's own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/error.h"
#include "engine/store/source_info.h"

namespace heapql::heaptrack {

class ClosingLines {
 public:
  // What the file holds so far: its `s` and `i` records, and its records
  // of every kind (the lines that are not empty or comments).
  struct Counts {
    std::uint64_t strings = 0;
    std::uint64_t ips = 0;
    std::uint64_t records = 0;
  };

  // A comment line ('#'); throws an Error at `where` when it is a closing
  // line whose count is not the file's.
  void comment(std::string_view line, const Counts& counts, const SourceLocation& where);

  // After the last line (`file` ends at byte `end_byte`): where the file
  // ends early for want of the closing lines, if it does. Throws when
  // records follow them.
  std::optional<TraceCut> cut(const std::string& file, std::uint64_t end_byte, const Counts& counts) const;

 private:
  bool strings_seen_ = false;
  bool closed_ = false;                 // "# ips" read after "# strings"
  std::uint64_t records_at_close_ = 0;  // the file's records then
  SourceLocation close_where_;
};

}  // namespace heapql::heaptrack
