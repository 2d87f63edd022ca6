// Words joined into one Windows command line that the C runtime's parser
// (CommandLineToArgvW's rules, which mingw-w64's wmain uses) splits back into
// the same words: Windows passes a program one string, not an argv.
#pragma once

#include <string>
#include <vector>

namespace heapql::test {

// UTF-8 in, UTF-8 out (the caller widens it for CreateProcessW).
std::string windows_command_line(const std::vector<std::string>& words);

}  // namespace heapql::test
