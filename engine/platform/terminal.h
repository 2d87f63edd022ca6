// Whether a standard stream is a terminal (the progress bar draws only on
// one), and how wide it is (tables fit it).
#pragma once

#include <optional>

namespace heapql {

enum class StandardStream { kOutput, kError };

// On Windows a console, not the NUL device (which _isatty calls a terminal).
bool is_terminal(StandardStream stream);
// Columns of the terminal `stream` is; nullopt when it is none.
std::optional<int> terminal_columns(StandardStream stream);

}  // namespace heapql
