// The one rule for heaptrack's command line: heaptrack writes the traced
// command unescaped, so from file format 1 on an 'X' record runs on over the
// lines after it (a multi-line `python3 -c "..."`) until the 'I' record,
// which heaptrack always writes right after it. The interpreted file's
// reader, its line pipeline and the raw twin's walker all follow it here.
#pragma once

#include <cstdint>
#include <string_view>

namespace heapql {

class HeaptrackCommandLine {
 public:
  // An 'X' record was read in a file of `format_version`.
  void start(std::uint64_t format_version) { open_ = format_version >= 1; }
  // Whether `line` continues the command line (and so is no record). The 'I'
  // line that ends it is a record: false, and the command line is closed.
  bool continues(std::string_view line) {
    if (open_) open_ = !line.starts_with("I ");
    return open_;
  }
  // Between an 'X' record and its 'I' record.
  bool open() const { return open_; }

 private:
  bool open_ = false;
};

}  // namespace heapql
