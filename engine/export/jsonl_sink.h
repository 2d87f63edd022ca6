// Tables as JSON-lines files: one object a row, keys the column names, NULL
// as null, one file per table, in a folder (docs/export.md).
#pragma once

#include "engine/export/folder_sink.h"

namespace heapql {

class JsonlSink final : public FolderSink {
 public:
  explicit JsonlSink(std::string folder) : FolderSink(std::move(folder), ".jsonl") {}
  void row(std::span<const ExportCell> cells) override;

 private:
  std::string line_;
};

}  // namespace heapql
