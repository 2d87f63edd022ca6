#include "engine/path_beneath.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <deque>
#include <filesystem>
#include <vector>

namespace heapql {

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

}  // namespace heapql
