#include "engine/export/jsonl_sink.h"

#include "engine/report/json_writer.h"

namespace heapql {

void JsonlSink::row(std::span<const ExportCell> cells) {
  line_.clear();
  JsonWriter w(line_);
  w.begin_object();
  for (std::size_t i = 0; i < cells.size(); ++i) {
    w.key(columns()[i].name);
    if (const auto* number = std::get_if<std::int64_t>(&cells[i])) {
      w.value(*number);
    } else if (const auto* text = std::get_if<std::string_view>(&cells[i])) {
      w.value(*text);
    } else {
      w.null();
    }
  }
  w.end_object();
  line_.push_back('\n');
  write(line_);
}

}  // namespace heapql
