// An output (-o, an export's target) that names a file the command reads
// (the trace, a store, the recipe) would replace it once the output is
// written: a typo that loses a recording. Refused before anything is read.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace heapql::cli {

// Throws UsageError when `output` is the same file as one of `inputs` (links
// followed; an output that does not exist yet is none of them).
void refuse_output_over_input(const std::optional<std::string>& output, const std::vector<std::string>& inputs);

}  // namespace heapql::cli
