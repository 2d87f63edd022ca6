// Where a command's report goes: standard output, or the file -o names. A
// report that cannot be written in full (a full disk, a closed terminal, a
// folder that cannot be written) is an error naming where it was going, never
// a silent short report with exit 0. A regular -o file is written under a
// temporary name and renamed into place once complete, so a failed command
// leaves no half report there, and an older report stays as it was. A pipe
// whose reader has gone ends the command quietly (ReaderGone), as it ends
// standard tools.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/report/text_out.h"
#include "engine/binary_file/output_file.h"

namespace heapql::cli {

// Thrown when the report's pipe has no reader any more (EPIPE: SIGPIPE is
// ignored, or heapql would have died of it). Not an error: main ends quietly.
struct ReaderGone {};

class ReportOutput {
 public:
  // Refuses an -o file that is one of `inputs` (output_not_input.h: exit 3),
  // then opens its temporary at once, so that an unwritable folder is said
  // before the trace is read (Error).
  ReportOutput(const std::optional<std::string>& output_file, const std::vector<std::string>& inputs);
  ~ReportOutput();
  ReportOutput(const ReportOutput&) = delete;
  ReportOutput& operator=(const ReportOutput&) = delete;

  void write(std::string_view text);
  // Standard output (or a device or pipe) flushed; a regular -o file synced
  // and renamed into place. Until then the -o file is not there.
  void finish();

  // Writes the report `write_text(TextOut&)` makes as it is made, then
  // finishes.
  template <class WriteText>
  void write_report(WriteText&& write_text) {
    TextOut text([this](std::string_view piece) { write(piece); });
    write_text(text);
    text.finish();
    finish();
  }

 private:
  [[noreturn]] void fail() const;
  std::string name_;             // in messages: the -o file, or "standard output"
  std::FILE* stream_ = nullptr;  // stdout, or the device or pipe -o names
  bool owns_stream_ = false;
  std::optional<store_file::OutputFile> file_;  // a regular -o file
};

// Writes a whole text (help, a listing) to standard output or `output_file`.
void emit(std::string_view text, const std::optional<std::string>& output_file);

}  // namespace heapql::cli
