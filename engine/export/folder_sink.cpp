#include "engine/export/folder_sink.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "engine/error.h"
#include "engine/platform/errno_text.h"
#include "engine/platform/open_file.h"
#include "engine/platform/process_id.h"
#include "engine/platform/utf8_wide.h"

namespace heapql {

namespace fs = std::filesystem;

FolderSink::FolderSink(std::string folder, std::string extension)
    : folder_(std::move(folder)), extension_(std::move(extension)) {
  std::error_code ec;
  const fs::path target = path_from_utf8(folder_);
  if (fs::exists(target, ec) && !(fs::is_directory(target, ec) && fs::is_empty(target, ec))) {
    throw Error(SourceLocation::of_file(folder_), "exists and is not an empty folder; name a new one");
  }
  temp_ = folder_ + ".heapql-tmp-" + std::to_string(current_process_id());
  fs::remove_all(path_from_utf8(temp_), ec);
  if (!fs::create_directories(path_from_utf8(temp_), ec) || ec) {
    throw Error(SourceLocation::of_file(folder_), "cannot be made: " + ec.message());
  }
}

FolderSink::~FolderSink() {
  if (file_ != nullptr) std::fclose(file_);
  if (!committed_) {
    std::error_code ec;
    fs::remove_all(path_from_utf8(temp_), ec);
  }
}

void FolderSink::begin_table(std::string_view name, std::span<const ExportColumn> columns) {
  columns_.assign(columns.begin(), columns.end());
  current_path_ = temp_ + "/" + std::string(name) + extension_;
  file_ = open_stdio_file(current_path_, "wb");
  if (file_ == nullptr) throw Error(SourceLocation::of_file(folder_), "cannot write: " + errno_text(errno));
  write_header();
}

void FolderSink::write(std::string_view text) {
  buffer_.append(text);
  if (buffer_.size() >= (1u << 20)) flush();
}

void FolderSink::flush() {
  if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
    throw Error(SourceLocation::of_file(folder_), "cannot write: " + errno_text(errno));
  }
  buffer_.clear();
}

void FolderSink::end_table(std::span<const std::string_view>) {
  flush();
  const bool failed = std::fclose(file_) != 0;
  file_ = nullptr;
  if (failed) throw Error(SourceLocation::of_file(folder_), "cannot write: " + errno_text(errno));
}

void FolderSink::commit() {
  std::error_code ec;
  const fs::path target = path_from_utf8(folder_);
  if (fs::exists(target, ec)) fs::remove(target, ec);  // empty, checked at the start
  fs::rename(path_from_utf8(temp_), target, ec);
  if (ec) throw Error(SourceLocation::of_file(folder_), "cannot rename the written folder into place: " + ec.message());
  committed_ = true;
}

}  // namespace heapql
