#include "engine/report/folded_path.h"

namespace heapql {

namespace {

void append_frame(std::string& out, std::string_view name) {
  if (!out.empty()) out.push_back(';');
  for (char c : name) {
    if (c == ';') {
      out.push_back(':');
    } else if (c == '\n' || c == '\r') {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
}

}  // namespace

std::string folded_path(const std::vector<KeyValue>& key) {
  std::string out;
  for (const KeyValue& level : key) {
    if (level.level != GroupBy::kStack) {
      append_frame(out, level.text);
    } else if (level.frames.empty()) {
      append_frame(out, "[no stack]");
    } else {
      for (auto frame = level.frames.rbegin(); frame != level.frames.rend(); ++frame) append_frame(out, *frame);
    }
  }
  return out;
}

}  // namespace heapql
