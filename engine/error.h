// The one error type of the engine: what went wrong and where (file, line or
// byte offset). Readers and the query compiler throw it; the CLI and the Lua
// boundary turn it into a message and an exit code.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace heapql {

// Where in an input the problem is. Either a 1-based line (text formats,
// counted in the decompressed text) or a byte offset (binary formats,
// compressed streams), or neither (the file as a whole).
struct SourceLocation {
  std::string file;
  std::optional<std::uint64_t> line;
  std::optional<std::uint64_t> column;
  std::optional<std::uint64_t> byte_offset;

  static SourceLocation of_file(std::string path) { return SourceLocation{std::move(path), {}, {}, {}}; }
};

class Error : public std::runtime_error {
 public:
  Error(SourceLocation where, const std::string& what);
  explicit Error(const std::string& what);

  const SourceLocation& where() const { return where_; }
  // The bare message, without the location prefix that what() carries.
  const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string message_;
};

// "file:line: " / "file: byte N: " / "file: " / "" as the location allows.
std::string format_location(const SourceLocation& where);

// Runs `work`; an Error it throws without a place (a check deep in the
// engine that knows no file) is thrown again naming `path`, as a `Thrown`
// (an Error, or a kind of one that its catcher tells apart).
template <class Thrown = Error, class Work>
decltype(auto) naming_file(const std::string& path, Work&& work) {
  try {
    return work();
  } catch (const Error& e) {
    if (!e.where().file.empty()) throw;
    throw Thrown(SourceLocation::of_file(path), e.message());
  }
}

}  // namespace heapql
