// Fuzz target: cull-list files and frame patterns. The input is a cull list;
// each line is also parsed as a pattern on its own, and every pattern that
// parses is matched against frames made of the input's first lines.
#include <string>

#include "engine/error.h"
#include "engine/query/cull_list.h"
#include "engine/query/frame_pattern.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace heapql;
  const std::string_view text = fuzz::as_text(data, size);
  try {
    (void)parse_cull_list(text, "fuzz.txt");
  } catch (const Error&) {
  }
  const std::vector<std::string_view> lines = fuzz::split(text, "\n");
  for (std::string_view line : lines) {
    try {
      const FramePattern pattern = FramePattern::parse(line);
      for (std::size_t i = 0; i < lines.size() && i < 16; ++i) {
        const std::string_view frame = lines[i];
        const std::size_t bang = frame.find('!');
        const std::string_view module = bang == std::string_view::npos ? frame : frame.substr(0, bang);
        const std::string_view symbol = bang == std::string_view::npos ? std::string_view() : frame.substr(bang + 1);
        (void)pattern.matches(module, symbol);
      }
    } catch (const Error&) {
    }
  }
  return 0;
}
