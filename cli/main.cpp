// The heapql command-line host: the dispatcher (dispatch.h) on the words after
// the program's name. On Windows the entry point is wmain (built with
// -municode): the words arrive as UTF-16 and become UTF-8 once, here; the
// console shows UTF-8; stdout and stderr are binary, so every line ends in
// LF alone, as on Linux (docs/windows.md).
#include <string>
#include <vector>

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#include <windows.h>

#include <cstdio>

#include "engine/platform/utf8_wide.h"
#endif

#include "cli/dispatch.h"

#ifdef _WIN32

int wmain(int argc, wchar_t** argv) {
  ::SetConsoleOutputCP(CP_UTF8);
  ::_setmode(::_fileno(stdout), _O_BINARY);
  ::_setmode(::_fileno(stderr), _O_BINARY);
  std::vector<std::string> words;
  for (int i = 1; i < argc; ++i) words.push_back(heapql::utf8_from_wide(argv[i]));
  return heapql::cli::run_command_line(std::move(words));
}

#else

int main(int argc, char** argv) {
  std::vector<std::string> words;
  for (int i = 1; i < argc; ++i) words.emplace_back(argv[i]);
  return heapql::cli::run_command_line(std::move(words));
}

#endif
