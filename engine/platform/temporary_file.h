// Files made to be renamed into place or thrown away: a uniquely named new
// file, and a scratch file that disappears when closed (or when heapql dies).
#pragma once

#include <string>

namespace heapql {

// Like mkostemps: the last six characters before the `suffix_length` last
// ones of `utf8_template` ("XXXXXX") are replaced to name a new file, created
// read-write; its descriptor, or -1 with errno set.
int create_unique_file(std::string& utf8_template, int suffix_length);
// A read-write file in `utf8_folder` that no name reaches once made (Linux:
// O_TMPFILE, or unlinked at once; Windows: delete-on-close); its descriptor,
// or -1 with errno set.
int create_scratch_file(const std::string& utf8_folder);

#ifdef _WIN32
// Whether the file of `fd`, made by create_unique_file, is deleted when its
// last handle closes, however the process ends (killed too): set while a file
// to be renamed into place is written, cleared just before the rename, as
// Linux's O_TMPFILE leaves nothing of a killed writer. False with errno set
// when the system refuses.
bool delete_when_closed(int fd, bool yes);
#endif

}  // namespace heapql
