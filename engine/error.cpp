#include "engine/error.h"

#include <fmt/format.h>

namespace heapql {

std::string format_location(const SourceLocation& where) {
  if (where.file.empty()) return {};
  if (where.line && where.column) return fmt::format("{}:{}:{}: ", where.file, *where.line, *where.column);
  if (where.line) return fmt::format("{}:{}: ", where.file, *where.line);
  if (where.byte_offset) return fmt::format("{}: byte {}: ", where.file, *where.byte_offset);
  return fmt::format("{}: ", where.file);
}

Error::Error(SourceLocation where, const std::string& what)
    : std::runtime_error(format_location(where) + what), where_(std::move(where)), message_(what) {}

Error::Error(const std::string& what) : std::runtime_error(what), message_(what) {}

}  // namespace heapql
