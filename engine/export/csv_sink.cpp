#include "engine/export/csv_sink.h"

#include <fmt/format.h>

#include "engine/report/csv_field.h"

namespace heapql {

void CsvSink::field(std::string_view text) { append_csv_field(line_, text); }

void CsvSink::write_header() {
  line_.clear();
  for (const ExportColumn& column : columns()) {
    if (!line_.empty()) line_.push_back(',');
    field(column.name);
  }
  line_.push_back('\n');
  write(line_);
}

void CsvSink::row(std::span<const ExportCell> cells) {
  line_.clear();
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) line_.push_back(',');
    if (const auto* number = std::get_if<std::int64_t>(&cells[i])) {
      fmt::format_to(std::back_inserter(line_), "{}", *number);
    } else if (const auto* text = std::get_if<std::string_view>(&cells[i])) {
      field(*text);
    }
  }
  line_.push_back('\n');
  write(line_);
}

}  // namespace heapql
