#include "engine/windows_path_rules.h"

#include <array>

#ifdef _WIN32
#include <windows.h>

#include "engine/platform/utf8_wide.h"
#endif

namespace heapql {

namespace {

char ascii_upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

bool ascii_equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (ascii_upper(a[i]) != ascii_upper(b[i])) return false;
  }
  return true;
}

bool is_drive_letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

bool starts_with_drive(std::string_view path) { return path.size() >= 2 && is_drive_letter(path[0]) && path[1] == ':'; }

}  // namespace

bool is_windows_device_name(std::string_view name) {
  // Windows takes the name up to its first dot, without the spaces before it.
  name = name.substr(0, name.find('.'));
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  static constexpr std::array<std::string_view, 6> kPlain = {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"};
  for (std::string_view device : kPlain) {
    if (ascii_equal_ignoring_case(name, device)) return true;
  }
  for (std::string_view port : {std::string_view("COM"), std::string_view("LPT")}) {
    if (name.size() < 4 || !ascii_equal_ignoring_case(name.substr(0, 3), port)) continue;
    const std::string_view digit = name.substr(3);
    if (digit.size() == 1 && digit[0] >= '0' && digit[0] <= '9') return true;
    // COM¹, COM², COM³ (UTF-8 of U+00B9, U+00B2, U+00B3) are devices too.
    if (digit == "\xC2\xB9" || digit == "\xC2\xB2" || digit == "\xC2\xB3") return true;
  }
  return false;
}

WindowsPathForm windows_path_form(std::string_view path) {
  if (path.size() >= 2 && is_windows_separator(path[0]) && is_windows_separator(path[1])) {
    return path.size() >= 3 && (path[2] == '?' || path[2] == '.') ? WindowsPathForm::kDevice : WindowsPathForm::kUnc;
  }
  if (path.size() >= 4 && is_windows_separator(path[0]) && path[1] == '?' && path[2] == '?' &&
      is_windows_separator(path[3])) {
    return WindowsPathForm::kNtObject;
  }
  if (starts_with_drive(path) && (path.size() == 2 || !is_windows_separator(path[2]))) {
    return WindowsPathForm::kDriveRelative;
  }
  return WindowsPathForm::kPlain;
}

std::string windows_path_form_refusal(std::string_view path) {
  switch (windows_path_form(path)) {
    case WindowsPathForm::kPlain: return "";
    case WindowsPathForm::kUnc: return "a UNC path (\\\\server\\share)";
    case WindowsPathForm::kDevice: return "a \\\\?\\ or \\\\.\\ device path";
    case WindowsPathForm::kNtObject: return "an NT object path (\\??\\)";
    case WindowsPathForm::kDriveRelative: return "a drive-relative path (C:name, relative to that drive's own working folder)";
  }
  return "";
}

std::string windows_name_refusal(std::string_view name) {
  if (name == "." || name == "..") return "";
  if (name.find(':') != std::string_view::npos) return "an alternate data stream (name:stream)";
  for (const char c : name) {
    if (static_cast<unsigned char>(c) < 0x20 || std::string_view("<>\"|?*").find(c) != std::string_view::npos) {
      return "a character Windows does not allow in a name (<>\"|?* or a control character)";
    }
  }
  if (is_windows_device_name(name)) return "a reserved device name (CON, NUL, COM1, ...)";
  if (!name.empty() && (name.back() == '.' || name.back() == ' ')) {
    return "a name ending in a dot or space (Windows would open it without them)";
  }
  return "";
}

std::string windows_path_refusal(std::string_view path) {
  if (std::string form = windows_path_form_refusal(path); !form.empty()) return form;
  if (starts_with_drive(path)) path.remove_prefix(2);
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = start;
    while (end < path.size() && !is_windows_separator(path[end])) ++end;
    if (std::string name = windows_name_refusal(path.substr(start, end - start)); !name.empty()) return name;
    start = end + 1;
  }
  return "";
}

std::vector<std::string> windows_path_components(std::string_view path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  if (path.size() >= 2 && is_windows_separator(path[0]) && is_windows_separator(path[1])) {
    // "\\server\share" or "\\?\C:": one component, never a drive's.
    std::string root = "\\\\";
    start = 2;
    for (int kept = 0; kept < 2 && start < path.size(); ++kept) {
      std::size_t end = start;
      while (end < path.size() && !is_windows_separator(path[end])) ++end;
      if (kept > 0) root += '\\';
      root.append(path.substr(start, end - start));
      start = end + 1;
    }
    parts.push_back(std::move(root));
  } else if (starts_with_drive(path)) {
    // "C:x" is not "C:\x": its first component is "C:x", which no folder's path has.
    parts.push_back(std::string(1, ascii_upper(path[0])) + ":");
    start = 2;
    if (path.size() > 2 && !is_windows_separator(path[2])) {
      std::size_t end = start;
      while (end < path.size() && !is_windows_separator(path[end])) ++end;
      parts.back().append(path.substr(start, end - start));
      start = end + 1;
    }
  }
  while (start <= path.size()) {
    std::size_t end = start;
    while (end < path.size() && !is_windows_separator(path[end])) ++end;
    const std::string_view part = path.substr(start, end - start);
    if (!part.empty() && part != ".") parts.emplace_back(part);
    start = end + 1;
  }
  return parts;
}

bool same_windows_name(std::string_view a, std::string_view b) {
#ifdef _WIN32
  try {
    const std::wstring wa = wide_from_utf8(a), wb = wide_from_utf8(b);
    return CompareStringOrdinal(wa.data(), static_cast<int>(wa.size()), wb.data(), static_cast<int>(wb.size()),
                                TRUE) == CSTR_EQUAL;
  } catch (...) {
    return a == b;  // not UTF-8: no name Windows has, compared as bytes
  }
#else
  return ascii_equal_ignoring_case(a, b);
#endif
}

}  // namespace heapql
