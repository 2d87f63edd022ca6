#include "cli/output_not_input.h"

#include <fmt/format.h>

#include <filesystem>

#include "cli/arguments.h"
#include "engine/platform/utf8_wide.h"

namespace heapql::cli {

void refuse_output_over_input(const std::optional<std::string>& output, const std::vector<std::string>& inputs) {
  if (!output) return;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (!input.empty() && std::filesystem::equivalent(path_from_utf8(*output), path_from_utf8(input), ec) && !ec) {
      throw UsageError{fmt::format("the output {} is {}, which this command reads; name another file", *output, input)};
    }
  }
}

}  // namespace heapql::cli
