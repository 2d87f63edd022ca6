#include "engine/ingest/heaptrack_closing_lines.h"

#include <fmt/format.h>

#include <charconv>

namespace heapql::heaptrack {

namespace {

// N of "# NAME: N" (decimal), or none when the line is another comment.
std::optional<std::uint64_t> closing_count(std::string_view line, std::string_view name) {
  const std::string prefix = fmt::format("# {}: ", name);
  if (!line.starts_with(prefix)) return std::nullopt;
  const std::string_view digits = line.substr(prefix.size());
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

}  // namespace

void ClosingLines::comment(std::string_view line, const Counts& counts, const SourceLocation& where) {
  if (const auto strings = closing_count(line, "strings")) {
    if (*strings != counts.strings) {
      throw Error(where, fmt::format("the closing line counts {} strings, but the file has {} 's' records before it: "
                                     "records were lost or added",
                                     *strings, counts.strings));
    }
    strings_seen_ = true;
  } else if (const auto ips = closing_count(line, "ips")) {
    if (*ips != counts.ips) {
      throw Error(where, fmt::format("the closing line counts {} instruction pointers, but the file has {} 'i' "
                                     "records before it: records were lost or added",
                                     *ips, counts.ips));
    }
    closed_ = strings_seen_;
    records_at_close_ = counts.records;
    close_where_ = where;
  }
}

std::optional<TraceCut> ClosingLines::cut(const std::string& file, std::uint64_t end_byte, const Counts& counts) const {
  if (!closed_) {
    return TraceCut{file, end_byte, 0,
                    "its closing '# strings' and '# ips' lines are missing (heaptrack_interpret writes them last)"};
  }
  if (counts.records != records_at_close_) {
    throw Error(close_where_, "records follow heaptrack_interpret's closing lines, which end a file it writes");
  }
  return std::nullopt;
}

}  // namespace heapql::heaptrack
