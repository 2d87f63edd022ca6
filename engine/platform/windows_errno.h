// The errno value nearest a Windows error code, so that a failure of a wide
// Windows call reads as the same C library message as its Linux twin
// ("No such file or directory", "Permission denied", ...). Windows only.
#pragma once

#ifdef _WIN32

namespace heapql {

int errno_from_windows_error(unsigned long windows_error);
// errno set from GetLastError(); returns -1, the failure value of the calls it stands for.
int fail_with_last_windows_error();

}  // namespace heapql

#endif
