#pragma once
// One gzip member (RFC 1952) of some bytes, with a header that is the same on
// every system: no name, mtime 0 and OS 255 ("unknown"). zlib's own header
// would say OS 3 on Linux and 10 on Windows, and heapql's pprof files must be
// byte-identical on both.
#include <string>
#include <string_view>

namespace heapql {

// Compressed with zlib's default level; throws Error naming `what` if zlib fails.
std::string gzip_member(std::string_view bytes, std::string_view what);

}  // namespace heapql
