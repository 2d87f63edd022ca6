// Symbolic links for the sandbox's escape tables, on both systems. On Linux
// (and on Windows with the right to make links) the system's own; under
// Wine, whose CreateSymbolicLinkW (Wine 8) reports success and makes
// nothing, a Linux link made by /bin/ln: what a recipe folder copied from
// Linux holds, and what Wine shows as the file or folder it leads to (no
// reparse point), hiding it when its target is missing. Header-only, so that
// any test binary can use it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#ifdef _WIN32
#include <windows.h>

#include "engine/platform/utf8_wide.h"
#endif

namespace heapql::test {

#ifdef _WIN32
// Whether this is Wine.
inline bool under_wine() { return GetProcAddress(GetModuleHandleW(L"ntdll.dll"), "wine_get_version") != nullptr; }

// Runs a Linux shell command under Wine (Wine starts a Linux executable
// named by its Z: path) and waits until it has run: the handle Wine gives
// for a Linux process does not wait for it, so the command ends by creating
// `marker` (a Windows path), which is then removed. False when it cannot be
// started or did not finish within 10 s.
inline bool run_linux_shell(const std::string& script, const std::string& unix_marker, const std::string& marker) {
  std::wstring command = L"Z:\\bin\\sh -c \"" + wide_from_utf8(script + " && touch '" + unix_marker + "'") + L"\"";
  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  PROCESS_INFORMATION process{};
  if (!CreateProcessW(L"Z:\\bin\\sh", command.data(), nullptr, nullptr, FALSE, 0, nullptr, nullptr, &startup,
                      &process)) {
    return false;
  }
  CloseHandle(process.hProcess);
  CloseHandle(process.hThread);
  const std::wstring wide_marker = wide_from_utf8(marker);
  for (int waited = 0; waited < 1000; ++waited) {
    if (GetFileAttributesW(wide_marker.c_str()) != INVALID_FILE_ATTRIBUTES) return DeleteFileW(wide_marker.c_str());
    Sleep(10);
  }
  return false;
}

// The Linux name of a Windows path under Wine ("" elsewhere).
inline std::string linux_name(const std::string& windows) {
  using ToUnix = char*(CDECL*)(LPCWSTR);
  const auto to_unix = reinterpret_cast<ToUnix>(
      reinterpret_cast<void*>(GetProcAddress(GetModuleHandleW(L"kernel32.dll"), "wine_get_unix_file_name")));
  if (to_unix == nullptr) return "";
  char* name = to_unix(wide_from_utf8(windows).c_str());
  std::string result = name != nullptr ? name : "";
  HeapFree(GetProcessHeap(), 0, name);
  return result;
}
#else
inline bool under_wine() { return false; }
#endif

// Whether a link whose target is missing looks like a missing name (Wine),
// so that the sandbox cannot tell it from one.
inline bool missing_link_targets_are_hidden() { return under_wine(); }

// The links a test makes; those made through /bin/ln are removed by /bin/rm
// when it ends (Wine shows a link to a folder as the folder, which
// std::filesystem::remove_all would walk into).
class Links {
 public:
  Links() = default;
  Links(const Links&) = delete;
  Links& operator=(const Links&) = delete;
  ~Links() {
#ifdef _WIN32
    for (std::size_t i = 0; i < made_on_linux_.size(); ++i) unlink_on_linux(i);
#endif
  }

  // Makes `link` point at `target` (absolute, or relative to the link's
  // folder with either separator). False when no link can be made here.
  bool make(const std::string& target, const std::string& link) {
    std::error_code error;
#ifndef _WIN32
    std::filesystem::create_symlink(target, link, error);
    return !error;
#else
    std::filesystem::create_symlink(path_from_utf8(target), path_from_utf8(link), error);
    if (!error && std::filesystem::is_symlink(path_from_utf8(link), error)) return true;
    const std::string unix_link = linux_name(link);
    if (unix_link.empty()) return false;
    std::string unix_target = target;
    if (target.size() > 1 && target[1] == ':') {
      unix_target = linux_name(target);
    } else {
      for (char& c : unix_target) c = c == '\\' ? '/' : c;
    }
    if (!run_linux_shell("ln -s '" + unix_target + "' '" + unix_link + "'", unix_link + ".made", link + ".made")) {
      return false;
    }
    made_on_linux_.push_back(unix_link);
    made_on_linux_windows_names_.push_back(link);
    return true;
#endif
  }

  // Removes a link made here (not what it leads to).
  void remove(const std::string& link) {
    std::error_code error;
#ifdef _WIN32
    for (std::size_t i = 0; i < made_on_linux_.size(); ++i) {
      if (made_on_linux_windows_names_[i] == link) {
        unlink_on_linux(i);
        return;
      }
    }
    std::filesystem::remove(path_from_utf8(link), error);
#else
    std::filesystem::remove(link, error);
#endif
  }

 private:
#ifdef _WIN32
  void unlink_on_linux(std::size_t i) {
    if (made_on_linux_[i].empty()) return;
    run_linux_shell("rm -f '" + made_on_linux_[i] + "'", made_on_linux_[i] + ".made",
                    made_on_linux_windows_names_[i] + ".made");
    made_on_linux_[i].clear();
  }
#endif
  // Links made by /bin/ln: their Linux names and the Windows names they were made as.
  std::vector<std::string> made_on_linux_;
  std::vector<std::string> made_on_linux_windows_names_;
};

}  // namespace heapql::test
