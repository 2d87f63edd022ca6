// The child the Windows process test (tests/unit/windows_process_test.cpp)
// starts: prints what it was given so the test can check that the words,
// the environment, the folder and standard input arrived as sent.
//   stdout: each argument after the program's name, as UTF-8, one a line
//   stderr: cwd=<folder>, env=<HEAPQL_PRINT_ARGUMENTS_ENV or "(unset)">, stdin=<its bytes>
// `--exit N` as the first two arguments ends it with N; `--sleep N` sleeps N seconds first.
#ifdef _WIN32

#include <fcntl.h>
#include <io.h>
#include <windows.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "engine/platform/utf8_wide.h"

int wmain(int argc, wchar_t** argv) {
  // LF, as heapql.exe writes: the C runtime's text mode would write CRLF.
  _setmode(_fileno(stdout), _O_BINARY);
  _setmode(_fileno(stderr), _O_BINARY);
  for (int i = 1; i < argc; ++i) std::printf("%s\n", heapql::utf8_from_wide(argv[i]).c_str());
  std::string input;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, stdin)) > 0;) input.append(buffer, n);
  const wchar_t* env = _wgetenv(L"HEAPQL_PRINT_ARGUMENTS_ENV");
  std::fprintf(stderr, "cwd=%s\nenv=%s\nstdin=%s\n", heapql::utf8_from_path(std::filesystem::current_path()).c_str(),
               env != nullptr ? heapql::utf8_from_wide(env).c_str() : "(unset)", input.c_str());
  std::fflush(stdout);
  if (argc >= 3 && std::wstring(argv[1]) == L"--sleep") Sleep(static_cast<DWORD>(_wtoi(argv[2]) * 1000));
  if (argc >= 3 && std::wstring(argv[1]) == L"--exit") return _wtoi(argv[2]);
  return 0;
}

#endif
