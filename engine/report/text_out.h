// A report's text as its writer makes it, row by row. Kept whole by default
// (what Lua's result:csv() and the tests read); given a destination, it is
// passed on a megabyte at a time, so that a report of millions of rows is not
// held whole in memory beside the result it is made from.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

namespace heapql {

class TextOut {
 public:
  using Destination = std::function<void(std::string_view)>;

  TextOut() = default;
  explicit TextOut(Destination destination) : destination_(std::move(destination)) {}

  // Writers append here; the same string for the whole report.
  std::string& text() { return text_; }
  // Said between rows: what waits goes on once it is a megabyte.
  void row_written() {
    if (destination_ && text_.size() >= kPieceBytes) pass_on();
  }
  // Passes on what is left (a kept text stays whole).
  void finish() {
    if (destination_) pass_on();
  }
  std::string take() { return std::move(text_); }

 private:
  static constexpr std::size_t kPieceBytes = std::size_t{1} << 20;
  void pass_on() {
    if (!text_.empty()) destination_(text_);
    text_.clear();
  }
  Destination destination_;
  std::string text_;
};

// The whole text `write(TextOut&)` makes.
template <class Write>
std::string whole_text(Write&& write) {
  TextOut out;
  write(out);
  return out.take();
}

}  // namespace heapql
