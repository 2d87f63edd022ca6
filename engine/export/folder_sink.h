// What the CSV and JSON-lines sinks share: one file per table in a folder
// that is written under a temporary name beside the target and renamed into
// place by commit(), so an interrupted export leaves no half folder there.
#pragma once

#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/export/table_sink.h"

namespace heapql {

class FolderSink : public TableSink {
 public:
  // `extension`: ".csv" or ".jsonl". Throws Error when `folder` exists and is
  // not empty, or cannot be made.
  FolderSink(std::string folder, std::string extension);
  ~FolderSink() override;

  void begin_table(std::string_view name, std::span<const ExportColumn> columns) override;
  void end_table(std::span<const std::string_view> indexes) override;
  void commit() override;

 protected:
  // The current table's column names, and a buffered line writer for its file.
  std::span<const ExportColumn> columns() const { return columns_; }
  void write(std::string_view text);
  virtual void write_header() {}

 private:
  void flush();
  std::string folder_, temp_, extension_, current_path_;
  std::FILE* file_ = nullptr;
  std::string buffer_;
  std::vector<ExportColumn> columns_;
  bool committed_ = false;
};

}  // namespace heapql
