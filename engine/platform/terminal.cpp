#include "engine/platform/terminal.h"

#ifdef _WIN32
#include <windows.h>
#else
#include <sys/ioctl.h>
#include <unistd.h>
#endif

namespace heapql {

#ifdef _WIN32

namespace {

HANDLE handle_of(StandardStream stream) {
  return ::GetStdHandle(stream == StandardStream::kOutput ? STD_OUTPUT_HANDLE : STD_ERROR_HANDLE);
}

}  // namespace

bool is_terminal(StandardStream stream) {
  DWORD mode = 0;
  return ::GetConsoleMode(handle_of(stream), &mode) != 0;
}

std::optional<int> terminal_columns(StandardStream stream) {
  CONSOLE_SCREEN_BUFFER_INFO info{};
  if (!::GetConsoleScreenBufferInfo(handle_of(stream), &info)) return std::nullopt;
  return info.srWindow.Right - info.srWindow.Left + 1;
}

#else

namespace {

int fd_of(StandardStream stream) { return stream == StandardStream::kOutput ? STDOUT_FILENO : STDERR_FILENO; }

}  // namespace

bool is_terminal(StandardStream stream) { return ::isatty(fd_of(stream)) == 1; }

std::optional<int> terminal_columns(StandardStream stream) {
  winsize size{};
  if (!is_terminal(stream) || ::ioctl(fd_of(stream), TIOCGWINSZ, &size) != 0) return std::nullopt;
  return size.ws_col;
}

#endif

}  // namespace heapql
