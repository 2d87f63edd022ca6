// An advisory lock on a whole open file, held while a writer is alive: the
// live journal's writer holds it, and a reader that finds it held knows the
// writer is still there (docs/store-format.md, "The live journal"). The
// system drops it when the process ends, however it ends, so a journal
// whose writer died is never taken for a live one.
//
// Linux: flock(2), which belongs to the open file description, so two
// descriptors of one process exclude each other as two processes do.
// Windows: LockFileEx on one byte far past any data (a locked range there
// blocks other handles' reads of it, so the data itself is never locked).
#pragma once

#include <string>

namespace heapql {

// Takes the exclusive lock on `fd` without waiting: true when taken, false
// when another holds it (errno set otherwise, and false).
bool lock_file_exclusively(int fd);
// Releases a lock taken by lock_file_exclusively (closing `fd` does too).
void unlock_file(int fd);

// Whether some descriptor holds the lock of the file at `utf8_path`: a
// shared lock is tried without waiting and at once released. False when
// the file cannot be opened.
bool file_lock_is_held(const std::string& utf8_path);

}  // namespace heapql
