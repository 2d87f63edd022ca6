#include "cli/report_output.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "engine/error.h"
#include "engine/path_kind.h"
#include "cli/output_not_input.h"
#include "engine/platform/errno_text.h"
#include "engine/platform/utf8_wide.h"
#include "engine/platform/open_file.h"

namespace heapql::cli {

namespace fs = std::filesystem;

ReportOutput::ReportOutput(const std::optional<std::string>& output_file, const std::vector<std::string>& inputs) {
  if (!output_file) {
    name_ = "standard output";
    stream_ = stdout;
    return;
  }
  refuse_output_over_input(output_file, inputs);
  name_ = *output_file;
  const PathKind kind = path_kind(name_);
  if (kind == PathKind::kPipe || kind == PathKind::kDevice || name_.starts_with("/dev/") ||
      name_.starts_with("/proc/")) {
    // A terminal, a pipe, /dev/stdout: written as it comes, as a stream.
    stream_ = open_stdio_file(name_, "wb");
    if (stream_ == nullptr) fail();
    owns_stream_ = true;
    return;
  }
  // A link to a report is followed: the file it names is replaced, not the link.
  std::error_code ec;
  const bool link = kind == PathKind::kFile && fs::is_symlink(fs::symlink_status(path_from_utf8(name_), ec));
  const fs::path target = link ? fs::canonical(path_from_utf8(name_), ec) : fs::path();
  file_.emplace(ec || target.empty() ? name_ : utf8_from_path(target));
}

ReportOutput::~ReportOutput() {
  if (owns_stream_) std::fclose(stream_);
}

void ReportOutput::fail() const {
  const int error = errno;
  if (error == EPIPE) throw ReaderGone{};
  throw Error(SourceLocation::of_file(name_),
              std::string("cannot write the report: ") + (error != 0 ? errno_text(error) : "the write failed"));
}

void ReportOutput::write(std::string_view text) {
  if (file_) {
    file_->write(text);
    return;
  }
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), stream_) != text.size()) fail();
}

void ReportOutput::finish() {
  if (file_) {
    file_->commit();
    file_.reset();
    return;
  }
  errno = 0;
  if (std::fflush(stream_) != 0 || std::ferror(stream_)) fail();
  if (owns_stream_) {
    owns_stream_ = false;
    if (std::fclose(stream_) != 0) fail();
  }
}

void emit(std::string_view text, const std::optional<std::string>& output_file) {
  ReportOutput output(output_file, {});
  output.write(text);
  output.finish();
}

}  // namespace heapql::cli
