// What the fuzz targets share: the input as text, split into parts, and an
// engine consumer that answers a by-stack query, so that a target covers the
// reader and the aggregator it feeds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/error.h"
#include "engine/query/aggregator.h"
#include "engine/store/trace_tables.h"

namespace heapql::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

// The parts of `text` between occurrences of `separator`.
inline std::vector<std::string_view> split(std::string_view text, std::string_view separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    const std::size_t at = text.find(separator);
    if (at == std::string_view::npos) {
      parts.push_back(text);
      return parts;
    }
    parts.push_back(text.substr(0, at));
    text.remove_prefix(at + separator.size());
  }
}

// Runs `read(tables, consumer, warnings)` (a reader that returns its
// SourceInfo) into an aggregator answering a by-stack query, and asks for the
// answer. A heapql::Error is an answer to bad input; anything else escapes.
template <class Read>
void read_and_answer(Read read) {
  TraceTables tables;
  Query query;
  query.by = {GroupBy::kStack};
  Aggregator aggregator(tables, query);
  std::string warnings;
  try {
    const SourceInfo source = read(tables, aggregator, &warnings);
    (void)aggregator.result(source);
  } catch (const Error&) {
  }
}

}  // namespace heapql::fuzz
