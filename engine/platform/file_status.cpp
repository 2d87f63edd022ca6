#include "engine/platform/file_status.h"

#ifdef _WIN32
#include <io.h>
#include <windows.h>

#include "engine/error.h"
#include "engine/platform/utf8_wide.h"
#include "engine/platform/windows_errno.h"
#else
#include <sys/stat.h>
#endif

#include <cerrno>

namespace heapql {

#ifdef _WIN32

namespace {

// FILETIME counts 100 ns steps from 1601; 1970 is this many steps later.
constexpr std::int64_t kUnixEpochIn100ns = 116'444'736'000'000'000;

FileStatus status_of_handle_information(const BY_HANDLE_FILE_INFORMATION& info, bool link) {
  FileStatus status;
  if (link) {
    status.kind = FileStatus::Kind::kLink;
  } else if ((info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0) {
    status.kind = FileStatus::Kind::kDirectory;
  } else if ((info.dwFileAttributes & FILE_ATTRIBUTE_DEVICE) == 0) {
    status.kind = FileStatus::Kind::kRegular;
  }
  status.size = (std::uint64_t{info.nFileSizeHigh} << 32) | info.nFileSizeLow;
  const std::int64_t written =
      static_cast<std::int64_t>((std::uint64_t{info.ftLastWriteTime.dwHighDateTime} << 32) | info.ftLastWriteTime.dwLowDateTime);
  status.mtime_ns = (written - kUnixEpochIn100ns) * 100;
  status.device = info.dwVolumeSerialNumber;
  status.id = (std::uint64_t{info.nFileIndexHigh} << 32) | info.nFileIndexLow;
  return status;
}

std::optional<FileStatus> status_of_handle(HANDLE handle, bool link) {
  // A pipe or a console has no file information: it is kOther.
  if (::GetFileType(handle) != FILE_TYPE_DISK) return FileStatus{};
  BY_HANDLE_FILE_INFORMATION info{};
  if (!::GetFileInformationByHandle(handle, &info)) {
    fail_with_last_windows_error();
    return std::nullopt;
  }
  return status_of_handle_information(info, link);
}

}  // namespace

std::optional<FileStatus> status_of_path(const std::string& utf8_path, bool follow_links) {
  std::wstring wide;
  try {
    wide = wide_from_utf8(utf8_path);
  } catch (const Error&) {
    errno = ENOENT;
    return std::nullopt;
  }
  // Opened for no access at all: metadata only, never blocking on a device,
  // and (BACKUP_SEMANTICS) folders too.
  DWORD flags = FILE_FLAG_BACKUP_SEMANTICS;
  if (!follow_links) flags |= FILE_FLAG_OPEN_REPARSE_POINT;
  const HANDLE handle = ::CreateFileW(wide.c_str(), FILE_READ_ATTRIBUTES,
                                      FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                                      flags, nullptr);
  if (handle == INVALID_HANDLE_VALUE) {
    fail_with_last_windows_error();
    return std::nullopt;
  }
  bool link = false;
  if (!follow_links) {
    FILE_ATTRIBUTE_TAG_INFO tag{};
    link = ::GetFileInformationByHandleEx(handle, FileAttributeTagInfo, &tag, sizeof tag) &&
           (tag.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0;
  }
  std::optional<FileStatus> status = status_of_handle(handle, link);
  ::CloseHandle(handle);
  return status;
}

std::optional<FileStatus> status_of_fd(int fd) {
  const auto handle = reinterpret_cast<HANDLE>(::_get_osfhandle(fd));
  if (handle == INVALID_HANDLE_VALUE) {
    errno = EBADF;
    return std::nullopt;
  }
  return status_of_handle(handle, false);
}

#else

namespace {

FileStatus status_of_stat(const struct stat& st) {
  FileStatus status;
  status.kind = S_ISREG(st.st_mode)   ? FileStatus::Kind::kRegular
                : S_ISDIR(st.st_mode) ? FileStatus::Kind::kDirectory
                : S_ISLNK(st.st_mode) ? FileStatus::Kind::kLink
                                      : FileStatus::Kind::kOther;
  status.size = static_cast<std::uint64_t>(st.st_size);
  status.mtime_ns = std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
  status.device = static_cast<std::uint64_t>(st.st_dev);
  status.id = static_cast<std::uint64_t>(st.st_ino);
  return status;
}

}  // namespace

std::optional<FileStatus> status_of_path(const std::string& utf8_path, bool follow_links) {
  struct stat st {};
  if ((follow_links ? ::stat(utf8_path.c_str(), &st) : ::lstat(utf8_path.c_str(), &st)) != 0) return std::nullopt;
  return status_of_stat(st);
}

std::optional<FileStatus> status_of_fd(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return std::nullopt;
  return status_of_stat(st);
}

#endif

}  // namespace heapql
