// A mapped file that shrinks under its reader is a clear error naming the
// file (exit 2), not a death by SIGBUS (Windows: a fault in the mapped range);
// a fault elsewhere is not claimed.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>

#ifdef _WIN32
#include <windows.h>
#else
#include <signal.h>
#include <sys/wait.h>
#endif

#include <filesystem>
#include <string>

#include "engine/binary_file/mapped_file.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

namespace fs = std::filesystem;

#ifdef _WIN32

// Windows (and Wine) refuse to truncate a mapped file (ERROR_USER_MAPPED_FILE):
// a file on a share shrinks under another machine's hand, which a test here
// cannot arrange. Under Wine a Linux program can: Wine starts it like any
// other, and its truncation makes the mapped page unreadable, as on a share.
using WineUnixName = char*(CDECL*)(const wchar_t*);

WineUnixName wine_unix_name() {
  const HMODULE ntdll = ::GetModuleHandleW(L"ntdll.dll");
  if (ntdll == nullptr || ::GetProcAddress(ntdll, "wine_get_version") == nullptr) return nullptr;
  // Through void(*)(): GetProcAddress's type says nothing of the function's.
  return reinterpret_cast<WineUnixName>(reinterpret_cast<void (*)()>(
      ::GetProcAddress(::GetModuleHandleW(L"kernel32.dll"), "wine_get_unix_file_name")));
}

// Truncates `path` to nothing from outside Windows' rules; false when it cannot.
bool truncate_behind_the_mapping(const std::string& path) {
  const WineUnixName unix_name = wine_unix_name();
  if (unix_name == nullptr) return false;
  char* name = unix_name(fs::path(path).wstring().c_str());
  if (name == nullptr) return false;
  std::wstring command = L"/usr/bin/truncate -s 0 \"" + fs::path(name).wstring() + L"\"";
  ::HeapFree(::GetProcessHeap(), 0, name);
  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  PROCESS_INFORMATION process{};
  if (!::CreateProcessW(nullptr, command.data(), nullptr, nullptr, FALSE, 0, nullptr, nullptr, &startup, &process)) {
    return false;
  }
  ::WaitForSingleObject(process.hProcess, INFINITE);
  ::CloseHandle(process.hThread);
  ::CloseHandle(process.hProcess);
  // Wine passes neither the Linux program's exit status on (it said 4106 for
  // 0) nor, always, its end (the wait can return first): the size says.
  for (int tries = 0; tries < 500; ++tries) {
    std::error_code ec;
    if (fs::file_size(path, ec) == 0 && !ec) return true;
    ::Sleep(10);
  }
  return false;
}

char read_after_truncating(const std::string& path) {
  const store_file::MappedFile mapped = store_file::map_file(path, "a test file");
  if (!truncate_behind_the_mapping(path)) std::_Exit(99);
  return *static_cast<volatile const char*>(mapped.bytes.data() + 8192);
}

#else

char read_after_truncating(const std::string& path) {
  const store_file::MappedFile mapped = store_file::map_file(path, "a test file");
  fs::resize_file(path, 0);
  return *static_cast<volatile const char*>(mapped.bytes.data() + 8192);
}

#endif

TEST(MappingFaultDeathTest, AFileThatShrinksWhileMappedIsNamedAndExits2) {
#ifdef _WIN32
  if (wine_unix_name() == nullptr) {
    GTEST_SKIP() << "Windows refuses to truncate a mapped file; only under Wine can a Linux program do it";
  }
#endif
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  TempDir dir;
  const std::string path = dir.file("shrinks.hqdb");
  write_file(path, std::string(3 * 4096, 'x'));
  EXPECT_EXIT(read_after_truncating(path), ::testing::ExitedWithCode(2),
              "heapql: .*shrinks.hqdb: the file shrank while heapql read it \\(another program truncated or rewrote "
              "it in place\\); run the command again");
}

TEST(MappingFaultDeathTest, ABusErrorElsewhereIsNotClaimed) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  TempDir dir;
  const std::string path = dir.file("stays.hqdb");
  write_file(path, std::string(4096, 'x'));
  const store_file::MappedFile mapped = store_file::map_file(path, "a test file");
#ifdef _WIN32
  // A read fault at no mapped address goes on to the next handler: here one
  // added last, which ends the process with 77, not the exit 2 of a file that
  // shrank. (Not the process's crash: under Wine a crashing child stalled
  // the death test now and then.)
  const auto faulting_read_reaches_the_next_handler = [] {
    ::AddVectoredExceptionHandler(0, [](EXCEPTION_POINTERS* fault) -> LONG {
      if (fault->ExceptionRecord->ExceptionCode == EXCEPTION_ACCESS_VIOLATION) std::_Exit(77);
      return EXCEPTION_CONTINUE_SEARCH;
    });
    // The address through a volatile, so the compiler neither folds nor warns about the bad read.
    volatile std::uintptr_t nowhere = 16;
    (void)*reinterpret_cast<volatile const char*>(nowhere);
  };
  EXPECT_EXIT(faulting_read_reaches_the_next_handler(), ::testing::ExitedWithCode(77), "");
#else
  // A SIGBUS at no mapped address goes on to the handler before (ASan's)
  // or the default action: not the exit 2 of a file that shrank.
  const auto not_claimed = [](int status) { return !(WIFEXITED(status) && WEXITSTATUS(status) == 2); };
  EXPECT_EXIT(::raise(SIGBUS), not_claimed, "");
#endif
  EXPECT_EQ(mapped.bytes[0], 'x');
}

}  // namespace
}  // namespace heapql::test
