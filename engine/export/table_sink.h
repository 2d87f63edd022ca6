// Where exported tables go (docs/export.md): SQLite, CSV files or JSON-lines
// files. The exporter says what each table is and hands over its rows; a
// sink knows only its own file format.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace heapql {

struct ExportColumn {
  std::string_view name;
  bool is_text = false;  // TEXT, else INTEGER
};

// A cell: NULL, an integer or text (valid until the call returns).
using ExportCell = std::variant<std::monostate, std::int64_t, std::string_view>;

class TableSink {
 public:
  virtual ~TableSink() = default;
  virtual void begin_table(std::string_view name, std::span<const ExportColumn> columns) = 0;
  virtual void row(std::span<const ExportCell> cells) = 0;
  // `indexes`: columns worth an index, for sinks that have them.
  virtual void end_table(std::span<const std::string_view> indexes) = 0;
  // Everything written: make it visible (rename into place). Until then a
  // failed or interrupted export leaves nothing at the target.
  virtual void commit() = 0;
};

}  // namespace heapql
