#include "tests/support/windows_command_line.h"

namespace heapql::test {
namespace {

// Backslashes are literal except before a quote: 2n backslashes and a quote
// are n backslashes and the end of the quoting; 2n+1 are n and a literal quote.
std::string quoted(const std::string& word) {
  if (!word.empty() && word.find_first_of(" \t\n\v\"") == std::string::npos) return word;
  std::string out = "\"";
  std::size_t backslashes = 0;
  for (char c : word) {
    if (c == '\\') {
      ++backslashes;
      continue;
    }
    if (c == '"') {
      out.append(2 * backslashes + 1, '\\');
    } else {
      out.append(backslashes, '\\');
    }
    backslashes = 0;
    out += c;
  }
  out.append(2 * backslashes, '\\');  // before the closing quote
  return out + "\"";
}

}  // namespace

std::string windows_command_line(const std::vector<std::string>& words) {
  std::string line;
  for (const std::string& word : words) {
    if (!line.empty()) line += ' ';
    line += quoted(word);
  }
  return line;
}

}  // namespace heapql::test
