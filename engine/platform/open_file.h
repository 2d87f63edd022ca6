// Opening a file by its UTF-8 name, the one way heapql does on both systems:
// never inherited by a program heapql starts (O_CLOEXEC; _O_NOINHERIT), and
// on Windows through the wide API (a non-ASCII name opens that file, not the
// code page's guess) and always binary (no CRLF translation, no ^Z end).
#pragma once

#include <cstdio>
#include <string>

#include <fcntl.h>

namespace heapql {

// Like open(2): a descriptor, or -1 with errno set. `flags` are the portable
// O_ flags (O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_TRUNC, O_APPEND).
int open_file(const std::string& utf8_path, int flags, int mode = 0666);

// Like fopen: a stream, or nullptr with errno set. Binary on Windows
// whatever `mode` says.
std::FILE* open_stdio_file(const std::string& utf8_path, const char* mode);

// Like close(2).
int close_file(int fd);

}  // namespace heapql
