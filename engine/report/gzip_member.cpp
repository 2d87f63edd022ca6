#include "engine/report/gzip_member.h"

#include <zlib.h>

#include <fmt/format.h>

#include "engine/error.h"

namespace heapql {

std::string gzip_member(std::string_view bytes, std::string_view what) {
  z_stream z{};
  // windowBits 15 + 16: a gzip wrapper, with protobuf's GzipOutputStream's
  // settings (the pprof bytes heapql wrote before; only the OS byte differs).
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw Error(fmt::format("{}: zlib cannot start compressing", what));
  }
  gz_header header{};
  header.time = 0;
  header.os = 255;
  std::string out;
  int status = deflateSetHeader(&z, &header);
  if (status == Z_OK) {
    out.resize(deflateBound(&z, static_cast<uLong>(bytes.size())));
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z.avail_in = static_cast<uInt>(bytes.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    status = deflate(&z, Z_FINISH);
  }
  const uLong written = z.total_out;
  deflateEnd(&z);
  if (status != Z_STREAM_END) throw Error(fmt::format("{}: zlib cannot compress (status {})", what, status));
  out.resize(written);
  return out;
}

}  // namespace heapql
