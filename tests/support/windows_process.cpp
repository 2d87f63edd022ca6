#include "tests/support/windows_process.h"

#ifdef _WIN32

#include <windows.h>

#include <cwctype>
#include <map>
#include <thread>

#include "engine/platform/utf8_wide.h"
#include "tests/support/windows_command_line.h"

namespace heapql::test {
namespace {

// Closes a handle when it goes out of scope.
class OwnedHandle {
 public:
  OwnedHandle() = default;
  explicit OwnedHandle(HANDLE h) : handle_(h == INVALID_HANDLE_VALUE ? nullptr : h) {}
  ~OwnedHandle() { reset(); }
  OwnedHandle(const OwnedHandle&) = delete;
  OwnedHandle& operator=(const OwnedHandle&) = delete;
  OwnedHandle& operator=(OwnedHandle&& other) noexcept {
    reset();
    handle_ = other.handle_;
    other.handle_ = nullptr;
    return *this;
  }
  HANDLE get() const { return handle_; }
  void reset() {
    if (handle_ != nullptr) CloseHandle(handle_);
    handle_ = nullptr;
  }

 private:
  HANDLE handle_ = nullptr;
};

std::string last_error_text() { return "Windows error " + std::to_string(GetLastError()); }

// sh's /dev/null is Windows' NUL.
std::wstring windows_file_name(const std::string& path) { return path == "/dev/null" ? L"NUL" : wide_from_utf8(path); }

OwnedHandle open_inheritable(const std::string& path, bool for_writing) {
  SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  return OwnedHandle(CreateFileW(windows_file_name(path).c_str(), for_writing ? GENERIC_WRITE : GENERIC_READ,
                                 FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, &inherit,
                                 for_writing ? CREATE_ALWAYS : OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr));
}

// A pipe whose write end the child inherits; the read end stays ours.
struct Pipe {
  OwnedHandle read, write;
};
bool make_pipe(Pipe& pipe) {
  SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  HANDLE r = nullptr, w = nullptr;
  if (!CreatePipe(&r, &w, &inherit, 0)) return false;
  pipe.read = OwnedHandle(r);
  pipe.write = OwnedHandle(w);
  return SetHandleInformation(r, HANDLE_FLAG_INHERIT, 0) != 0;
}

void read_all(HANDLE from, std::string& into) {
  char buffer[65536];
  DWORD n = 0;
  while (ReadFile(from, buffer, sizeof buffer, &n, nullptr) && n > 0) into.append(buffer, n);
}

// This process's environment with `changes` applied; names compare without
// case, as Windows does. A block of NAME=value strings, each ended by a NUL,
// and one more NUL.
std::wstring environment_block(const std::vector<std::pair<std::string, std::string>>& changes) {
  auto upper = [](std::wstring s) {
    for (wchar_t& c : s) c = static_cast<wchar_t>(std::towupper(c));
    return s;
  };
  std::map<std::wstring, std::wstring> entries;  // upper-case name -> NAME=value
  wchar_t* block = GetEnvironmentStringsW();
  for (const wchar_t* p = block; *p != L'\0'; p += wcslen(p) + 1) {
    const std::wstring entry = p;
    const std::size_t equals = entry.find(L'=', 1);  // "=C:=C:\..." entries start with '='
    entries[upper(entry.substr(0, equals))] = entry;
  }
  FreeEnvironmentStringsW(block);
  for (const auto& [name, value] : changes) {
    const std::wstring wide_name = wide_from_utf8(name);
    entries[upper(wide_name)] = wide_name + L"=" + wide_from_utf8(value);
  }
  std::wstring out;
  for (const auto& [name, entry] : entries) out += entry + L'\0';
  return out + L'\0';
}

}  // namespace

CommandResult run_windows_process(const ShellCommand& command) {
  CommandResult result;
  auto cannot = [&](const std::string& what) {
    result.exit_code = 127;
    result.err = "cannot run " + command.words.front() + ": " + what + ": " + last_error_text() + "\n";
    return result;
  };
  OwnedHandle input = open_inheritable(command.stdin_path.empty() ? "/dev/null" : command.stdin_path, false);
  if (input.get() == nullptr) return cannot("cannot open " + command.stdin_path);
  Pipe out_pipe, err_pipe;
  OwnedHandle out_file, err_file;
  if (!command.stdout_path.empty()) {
    out_file = open_inheritable(command.stdout_path, true);
    if (out_file.get() == nullptr) return cannot("cannot write " + command.stdout_path);
  } else if (!make_pipe(out_pipe)) {
    return cannot("no pipe");
  }
  const HANDLE out = out_file.get() != nullptr ? out_file.get() : out_pipe.write.get();
  HANDLE err = out;
  if (!command.stderr_to_stdout) {
    if (!command.stderr_path.empty()) {
      err_file = open_inheritable(command.stderr_path, true);
      if (err_file.get() == nullptr) return cannot("cannot write " + command.stderr_path);
    } else if (!make_pipe(err_pipe)) {
      return cannot("no pipe");
    }
    err = err_file.get() != nullptr ? err_file.get() : err_pipe.write.get();
  }

  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  startup.dwFlags = STARTF_USESTDHANDLES;
  startup.hStdInput = input.get();
  startup.hStdOutput = out;
  startup.hStdError = err;
  PROCESS_INFORMATION process{};
  std::wstring line = wide_from_utf8(windows_command_line(command.words));
  std::wstring environment = environment_block(command.environment);
  const std::wstring folder = command.working_dir.empty() ? std::wstring() : wide_from_utf8(command.working_dir);
  // Only this thread starts processes, so the pipes' inheritable ends reach
  // this child alone; they are closed here right after.
  if (!CreateProcessW(nullptr, line.data(), nullptr, nullptr, TRUE, CREATE_UNICODE_ENVIRONMENT | CREATE_NO_WINDOW,
                      environment.data(), folder.empty() ? nullptr : folder.c_str(), &startup, &process)) {
    return cannot("CreateProcessW failed");
  }
  OwnedHandle child(process.hProcess), child_thread(process.hThread);
  out_pipe.write.reset();
  err_pipe.write.reset();
  out_file.reset();
  err_file.reset();
  input.reset();

  // Both pipes at once, beside the wait: a child that fills one pipe while we
  // read the other, or that never ends, would otherwise hold us forever.
  std::thread out_reader, err_reader;
  if (out_pipe.read.get() != nullptr) out_reader = std::thread([&] { read_all(out_pipe.read.get(), result.out); });
  if (err_pipe.read.get() != nullptr) err_reader = std::thread([&] { read_all(err_pipe.read.get(), result.err); });
  const DWORD wait_ms =
      command.timeout_seconds > 0 ? static_cast<DWORD>(command.timeout_seconds * 1000) : INFINITE;
  const bool timed_out = WaitForSingleObject(child.get(), wait_ms) == WAIT_TIMEOUT;
  if (timed_out) {
    TerminateProcess(child.get(), 124);
    WaitForSingleObject(child.get(), INFINITE);
  }
  if (out_reader.joinable()) out_reader.join();
  if (err_reader.joinable()) err_reader.join();
  DWORD code = 0;
  GetExitCodeProcess(child.get(), &code);
  result.exit_code = timed_out ? 124 : static_cast<int>(code);
  return result;
}

}  // namespace heapql::test

#endif
