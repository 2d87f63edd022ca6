// Tables as CSV files (RFC 4180: a header line, quotes where needed, NULL as
// an empty field), one per table, in a folder (docs/export.md).
#pragma once

#include "engine/export/folder_sink.h"

namespace heapql {

class CsvSink final : public FolderSink {
 public:
  explicit CsvSink(std::string folder) : FolderSink(std::move(folder), ".csv") {}
  void row(std::span<const ExportCell> cells) override;

 private:
  void write_header() override;
  void field(std::string_view text);
  std::string line_;
};

}  // namespace heapql
