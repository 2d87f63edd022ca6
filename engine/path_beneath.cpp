#include "engine/path_beneath.h"

#include <deque>
#include <filesystem>
#include <vector>

#ifdef _WIN32
#include <windows.h>
#include <winioctl.h>

#include <cstring>

#include "engine/platform/utf8_wide.h"
#include "engine/windows_path_rules.h"
#else
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#endif

namespace heapql {

#ifndef _WIN32

namespace {

// The kernel's own bound on the links one lookup follows (MAXSYMLINKS).
constexpr int kMostLinks = 40;

std::vector<std::string> components(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    std::string part = path.substr(start, end - start);
    if (!part.empty() && part != ".") parts.push_back(std::move(part));
    start = end + 1;
  }
  return parts;
}

bool starts_with(const std::vector<std::string>& parts, const std::vector<std::string>& prefix) {
  if (parts.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (parts[i] != prefix[i]) return false;
  }
  return true;
}

std::string joined(const std::string& folder, const std::vector<std::string>& names,
                   const std::deque<std::string>& rest = {}) {
  std::string path = folder;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  for (const std::string& name : names) (path += '/') += name;
  for (const std::string& name : rest) (path += '/') += name;
  return path;
}

// The folders walked so far, each held open (O_PATH), the folder itself first.
class Walk {
 public:
  explicit Walk(int root) { fds_.push_back(root); }
  ~Walk() {
    for (int fd : fds_) ::close(fd);
  }
  Walk(const Walk&) = delete;
  Walk& operator=(const Walk&) = delete;

  int here() const { return fds_.back(); }
  bool at_root() const { return names_.empty(); }
  const std::vector<std::string>& names() const { return names_; }
  void enter(int fd, std::string name) {
    fds_.push_back(fd);
    names_.push_back(std::move(name));
  }
  void leave() {
    ::close(fds_.back());
    fds_.pop_back();
    names_.pop_back();
  }
  void back_to_root() {
    while (!at_root()) leave();
  }

 private:
  std::vector<int> fds_;
  std::vector<std::string> names_;
};

std::optional<std::string> link_target(int folder_fd, const std::string& name) {
  std::string target(4096, '\0');
  const ssize_t n = ::readlinkat(folder_fd, name.c_str(), target.data(), target.size());
  if (n <= 0 || static_cast<std::size_t>(n) >= target.size()) return std::nullopt;
  target.resize(static_cast<std::size_t>(n));
  return target;
}

}  // namespace

std::string absolute_as_given(const std::string& path) {
  std::string base;
  if (path.empty() || path.front() != '/') {
    std::error_code ec;
    base = std::filesystem::current_path(ec).string();
  }
  std::string result;
  for (const std::string& part : components(base)) (result += '/') += part;
  for (const std::string& part : components(path)) (result += '/') += part;
  return result.empty() ? "/" : result;
}

std::optional<std::string> resolve_beneath(const std::string& folder, const std::string& path) {
  const std::vector<std::string> folder_parts = components(folder);
  const std::vector<std::string> path_parts = components(path);
  if (!starts_with(path_parts, folder_parts)) return std::nullopt;
  const int root = ::open(folder.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root < 0) return std::nullopt;
  Walk walk(root);
  std::deque<std::string> rest(path_parts.begin() + static_cast<std::ptrdiff_t>(folder_parts.size()),
                               path_parts.end());
  int links = 0;
  while (!rest.empty()) {
    std::string name = std::move(rest.front());
    rest.pop_front();
    if (name == "..") {
      if (walk.at_root()) return std::nullopt;
      walk.leave();
      continue;
    }
    struct stat st {};
    if (::fstatat(walk.here(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      // Missing (or not searchable): opening the path fails at this name,
      // so the rest is never walked; still, it may not climb out in words.
      std::size_t depth = walk.names().size() + 1;
      for (const std::string& later : rest) {
        if (later != "..") {
          ++depth;
        } else if (depth-- == 0) {
          return std::nullopt;
        }
      }
      rest.push_front(std::move(name));
      return joined(folder, walk.names(), rest);
    }
    if (S_ISLNK(st.st_mode)) {
      if (++links > kMostLinks) return std::nullopt;
      const std::optional<std::string> target = link_target(walk.here(), name);
      if (!target) return std::nullopt;
      std::vector<std::string> parts = components(*target);
      if (target->front() == '/') {
        // Absolute: only into the folder itself, as the folder was named.
        if (!starts_with(parts, folder_parts)) return std::nullopt;
        parts.erase(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(folder_parts.size()));
        walk.back_to_root();
      }
      rest.insert(rest.begin(), parts.begin(), parts.end());
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      const int fd = ::openat(walk.here(), name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) return std::nullopt;
      walk.enter(fd, std::move(name));
      continue;
    }
    if (!S_ISREG(st.st_mode)) return std::nullopt;  // a FIFO, device or socket: never opened
    // A regular file; a name after it fails to open (not a folder).
    rest.push_front(std::move(name));
    return joined(folder, walk.names(), rest);
  }
  return joined(folder, walk.names());
}

std::optional<std::string> canonical_folder(const std::string& folder) {
  std::error_code error;
  const std::filesystem::path canonical = std::filesystem::canonical(folder, error);
  if (error) return std::nullopt;
  return canonical.string();
}

bool is_there_but_not_a_plain_file(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

#else  // _WIN32: the same walk with handles, reparse points read, never followed

namespace {

constexpr int kMostLinks = 40;  // as on Linux

// The reparse data of a symbolic link or a junction (ntifs.h's
// REPARSE_DATA_BUFFER, which user-mode headers leave out).
struct ReparseHeader {
  ULONG tag;
  USHORT data_length;
  USHORT reserved;
  USHORT substitute_offset;
  USHORT substitute_length;
  USHORT print_offset;
  USHORT print_length;
};
constexpr ULONG kSymlinkRelative = 1;  // SYMLINK_FLAG_RELATIVE

class Handle {
 public:
  explicit Handle(HANDLE h = INVALID_HANDLE_VALUE) : h_(h) {}
  ~Handle() {
    if (valid()) CloseHandle(h_);
  }
  Handle(Handle&& other) noexcept : h_(other.h_) { other.h_ = INVALID_HANDLE_VALUE; }
  Handle& operator=(Handle&&) = delete;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  bool valid() const { return h_ != INVALID_HANDLE_VALUE; }
  HANDLE get() const { return h_; }

 private:
  HANDLE h_;
};

// The name to hand CreateFileW for an absolute DOS path (C:\x or
// \\server\share\x) built from walked components: \\?\ so that no length
// limit or name rewriting applies.
std::wstring long_form(const std::string& dos) {
  if (dos.starts_with("\\\\")) return L"\\\\?\\UNC\\" + wide_from_utf8(std::string_view(dos).substr(2));
  return L"\\\\?\\" + wide_from_utf8(dos);
}

// Opens `path` for its attributes only. Deleting or renaming what is open
// is refused meanwhile (no FILE_SHARE_DELETE), so the walk's folders stay put.
Handle open_for_attributes(const std::wstring& path, bool follow_links) {
  DWORD flags = FILE_FLAG_BACKUP_SEMANTICS;  // folders too
  if (!follow_links) flags |= FILE_FLAG_OPEN_REPARSE_POINT;
  return Handle(CreateFileW(path.c_str(), FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr,
                            OPEN_EXISTING, flags, nullptr));
}

// The handle's final path in DOS form (C:\x, \\server\share\x), without
// the \\?\ GetFinalPathNameByHandleW puts first: long names, as stored.
std::optional<std::string> final_path(HANDLE h) {
  std::wstring name(MAX_PATH, L'\0');
  for (;;) {
    const DWORD n = GetFinalPathNameByHandleW(h, name.data(), static_cast<DWORD>(name.size()),
                                              FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
    if (n == 0) return std::nullopt;
    if (n < name.size()) {
      name.resize(n);
      break;
    }
    name.resize(n + 1);
  }
  std::string dos = utf8_from_wide(name);
  if (dos.starts_with("\\\\?\\UNC\\")) return "\\" + dos.substr(7);
  if (dos.starts_with("\\\\?\\")) return dos.substr(4);
  return dos;
}

struct Attributes {
  DWORD attributes = 0;
  DWORD reparse_tag = 0;
  bool on_disk = false;  // FILE_TYPE_DISK: not a console, pipe or other device
};

std::optional<Attributes> attributes_of(HANDLE h) {
  FILE_ATTRIBUTE_TAG_INFO info{};
  if (!GetFileInformationByHandleEx(h, FileAttributeTagInfo, &info, sizeof info)) return std::nullopt;
  return Attributes{info.FileAttributes, info.ReparseTag, GetFileType(h) == FILE_TYPE_DISK};
}

struct LinkTarget {
  bool relative;
  std::string path;
};

// Where a symbolic link or junction points, as stored; nullopt for any other
// kind of reparse point (those are not followed).
std::optional<LinkTarget> link_target(HANDLE h) {
  std::vector<unsigned char> buffer(MAXIMUM_REPARSE_DATA_BUFFER_SIZE);
  DWORD returned = 0;
  if (!DeviceIoControl(h, FSCTL_GET_REPARSE_POINT, nullptr, 0, buffer.data(), static_cast<DWORD>(buffer.size()),
                       &returned, nullptr) ||
      returned < sizeof(ReparseHeader)) {
    return std::nullopt;
  }
  ReparseHeader header;
  std::memcpy(&header, buffer.data(), sizeof header);
  std::size_t names_at = sizeof header;  // a junction's names follow the header
  bool relative = false;
  if (header.tag == IO_REPARSE_TAG_SYMLINK) {
    ULONG flags = 0;
    if (returned < names_at + sizeof flags) return std::nullopt;
    std::memcpy(&flags, buffer.data() + names_at, sizeof flags);
    names_at += sizeof flags;
    relative = (flags & kSymlinkRelative) != 0;
  } else if (header.tag != IO_REPARSE_TAG_MOUNT_POINT) {
    return std::nullopt;
  }
  const std::size_t start = names_at + header.substitute_offset;
  if (start + header.substitute_length > returned || header.substitute_length % 2 != 0) return std::nullopt;
  std::wstring target(header.substitute_length / 2, L'\0');
  std::memcpy(target.data(), buffer.data() + start, header.substitute_length);
  return LinkTarget{relative, utf8_from_wide(target)};
}

bool starts_with(const std::vector<std::string>& parts, const std::vector<std::string>& prefix) {
  if (parts.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (!same_windows_name(parts[i], prefix[i])) return false;
  }
  return true;
}

std::string joined(const std::string& folder, const std::vector<std::string>& names,
                   const std::deque<std::string>& rest = {}) {
  std::string path = folder;
  while (path.size() > 3 && is_windows_separator(path.back())) path.pop_back();
  const auto add = [&](const std::string& name) {
    if (!is_windows_separator(path.back())) path += '\\';
    path += name;
  };
  for (const std::string& name : names) add(name);
  for (const std::string& name : rest) add(name);
  return path;
}

}  // namespace

std::string absolute_as_given(const std::string& path) {
  const WindowsPathForm form = windows_path_form(path);
  if (form != WindowsPathForm::kPlain && form != WindowsPathForm::kUnc) return path;  // refused wherever it is checked
  std::vector<std::string> parts;
  const bool from_a_root = !path.empty() && is_windows_separator(path.front());
  if (form == WindowsPathForm::kPlain && (path.size() < 2 || path[1] != ':')) {
    std::error_code error;
    const std::vector<std::string> base = windows_path_components(utf8_from_path(std::filesystem::current_path(error)));
    if (from_a_root && !base.empty()) {
      parts.push_back(base.front());  // \x: from the root of the current drive
    } else {
      parts = base;
    }
  }
  for (std::string& part : windows_path_components(path)) parts.push_back(std::move(part));
  if (parts.empty()) return path;
  std::string result = parts.front();
  if (parts.size() == 1) return result + "\\";
  for (std::size_t i = 1; i < parts.size(); ++i) (result += '\\') += parts[i];
  return result;
}

std::optional<std::string> resolve_beneath(const std::string& folder, const std::string& path) {
  // Device and NT namespaces and drive-relative paths are never beneath a
  // folder; a UNC path may be, when the folder itself is on that share.
  const WindowsPathForm form = windows_path_form(path);
  if (form != WindowsPathForm::kPlain && form != WindowsPathForm::kUnc) return std::nullopt;
  const std::vector<std::string> folder_parts = windows_path_components(folder);
  const std::vector<std::string> path_parts = windows_path_components(path);
  if (!starts_with(path_parts, folder_parts)) return std::nullopt;
  std::deque<std::string> rest(path_parts.begin() + static_cast<std::ptrdiff_t>(folder_parts.size()),
                               path_parts.end());
  for (const std::string& name : rest) {
    if (!windows_name_refusal(name).empty()) return std::nullopt;  // a stream, a device, a trimmed name
  }
  std::wstring wide_folder;
  try {
    wide_folder = wide_from_utf8(folder);
  } catch (...) {
    return std::nullopt;
  }
  // The folder's own path may hold links: the user's choice, followed. Every
  // folder walked stays open until the answer is made.
  std::vector<Handle> held;
  held.push_back(open_for_attributes(wide_folder, true));
  const std::optional<Attributes> root_attributes = held.back().valid() ? attributes_of(held.back().get()) : std::nullopt;
  if (!root_attributes || !(root_attributes->attributes & FILE_ATTRIBUTE_DIRECTORY)) return std::nullopt;
  const std::optional<std::string> root = final_path(held.back().get());
  if (!root) return std::nullopt;
  const std::vector<std::string> root_parts = windows_path_components(*root);
  std::vector<std::string> names;  // beneath the root, as stored (long names, their own case)
  int links = 0;
  while (!rest.empty()) {
    std::string name = std::move(rest.front());
    rest.pop_front();
    if (name == "..") {
      if (names.empty()) return std::nullopt;
      names.pop_back();
      continue;
    }
    if (!windows_name_refusal(name).empty()) return std::nullopt;
    std::wstring candidate;
    try {
      candidate = long_form(joined(*root, names, {name}));
    } catch (...) {
      return std::nullopt;  // not UTF-8
    }
    Handle opened = open_for_attributes(candidate, false);
    if (!opened.valid()) {
      // Missing (or not to be opened): opening the path fails at this name,
      // so the rest is never walked; still, it may not climb out in words.
      std::size_t depth = names.size() + 1;
      for (const std::string& later : rest) {
        if (later != "..") {
          ++depth;
        } else if (depth-- == 0) {
          return std::nullopt;
        }
      }
      rest.push_front(std::move(name));
      return joined(folder, names, rest);
    }
    const HANDLE here = opened.get();
    const std::optional<Attributes> attributes = attributes_of(here);
    if (!attributes || !attributes->on_disk) return std::nullopt;  // a console, pipe or other device
    if (attributes->attributes & FILE_ATTRIBUTE_REPARSE_POINT) {
      if (++links > kMostLinks) return std::nullopt;
      const std::optional<LinkTarget> target = link_target(here);
      if (!target) return std::nullopt;  // a reparse point that is not a link: not followed
      if (target->relative) {
        if (!target->path.empty() && is_windows_separator(target->path.front())) return std::nullopt;
        const std::vector<std::string> parts = windows_path_components(target->path);
        if (!parts.empty() && parts.front().size() >= 2 && parts.front()[1] == ':') return std::nullopt;
        rest.insert(rest.begin(), parts.begin(), parts.end());
        continue;
      }
      // Absolute (\??\C:\x): only into the folder itself, as it was named or as it resolves.
      std::string_view absolute = target->path;
      if (absolute.starts_with("\\??\\")) absolute.remove_prefix(4);
      if (windows_path_form(absolute) != WindowsPathForm::kPlain) return std::nullopt;
      std::vector<std::string> parts = windows_path_components(absolute);
      std::size_t prefix = 0;
      if (starts_with(parts, root_parts)) {
        prefix = root_parts.size();
      } else if (starts_with(parts, folder_parts)) {
        prefix = folder_parts.size();
      } else {
        return std::nullopt;
      }
      names.clear();
      rest.insert(rest.begin(), parts.begin() + static_cast<std::ptrdiff_t>(prefix), parts.end());
      continue;
    }
    // Where the handle really is: a link the system follows without showing
    // it as a reparse point (Wine's view of a Unix symbolic link) ends
    // elsewhere; a short (8.3) name or another case ends at the stored name.
    const std::optional<std::string> at = final_path(here);
    if (!at) return std::nullopt;
    const std::vector<std::string> at_parts = windows_path_components(*at);
    if (!starts_with(at_parts, root_parts) || at_parts.size() == root_parts.size()) return std::nullopt;
    names.assign(at_parts.begin() + static_cast<std::ptrdiff_t>(root_parts.size()), at_parts.end());
    if (attributes->attributes & FILE_ATTRIBUTE_DIRECTORY) {
      held.push_back(std::move(opened));
      continue;
    }
    // A regular file; a name after it fails to open (not a folder).
    return joined(folder, names, rest);
  }
  return joined(folder, names);
}

std::optional<std::string> canonical_folder(const std::string& folder) {
  try {
    const Handle h = open_for_attributes(wide_from_utf8(folder), true);
    if (!h.valid()) return std::nullopt;
    return final_path(h.get());
  } catch (...) {
    return std::nullopt;
  }
}

bool is_there_but_not_a_plain_file(const std::string& path) {
  try {
    if (!windows_path_refusal(path).empty()) return true;
    const Handle h = open_for_attributes(wide_from_utf8(path), false);
    if (!h.valid()) return GetLastError() != ERROR_FILE_NOT_FOUND && GetLastError() != ERROR_PATH_NOT_FOUND;
    const std::optional<Attributes> attributes = attributes_of(h.get());
    if (!attributes || !attributes->on_disk ||
        (attributes->attributes & (FILE_ATTRIBUTE_REPARSE_POINT | FILE_ATTRIBUTE_DIRECTORY))) {
      return true;
    }
    // Where it really is must be in its folder (as that folder resolves: its
    // own path may be named by a short name or through a junction).
    const std::optional<std::string> at = final_path(h.get());
    std::vector<std::string> folder = windows_path_components(absolute_as_given(path));
    if (!at || folder.size() < 2) return true;
    folder.pop_back();
    std::string folder_path = folder.front();
    for (std::size_t i = 1; i < folder.size(); ++i) (folder_path += '\\') += folder[i];
    const std::optional<std::string> folder_at = canonical_folder(folder.size() == 1 ? folder_path + "\\" : folder_path);
    if (!folder_at) return true;
    const std::vector<std::string> at_parts = windows_path_components(*at);
    const std::vector<std::string> folder_parts = windows_path_components(*folder_at);
    return at_parts.size() != folder_parts.size() + 1 || !starts_with(at_parts, folder_parts);
  } catch (...) {
    return true;  // not UTF-8: no name a trace's side file has
  }
}

#endif  // _WIN32

}  // namespace heapql
