// The `heapql` subcommands. Each returns the process exit code (exit_codes.h).
#pragma once

#include "lua/cli/arguments.h"

namespace heapql::cli {

int run_info(Arguments& args);
int run_query(Arguments& args);
int run_record(Arguments& args);

// Writes `text` to the -o file, or stdout when none.
void emit(const std::string& text, const std::optional<std::string>& output_file);

}  // namespace heapql::cli
