// engine/report/gzip_member: the gzip framing of --format pprof, the same
// bytes on Linux and Windows (zlib's own header names the system it ran on).
#include "engine/report/gzip_member.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

namespace heapql {
namespace {

std::string gunzip(const std::string& member) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  std::string out(1 << 20, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(member.data()));
  z.avail_in = static_cast<uInt>(member.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
  EXPECT_EQ(z.avail_in, 0u) << "bytes after the gzip member";
  out.resize(z.total_out);
  inflateEnd(&z);
  return out;
}

std::string sample_bytes() {
  std::string bytes;
  for (int i = 0; i < 5000; ++i) bytes += "frame " + std::to_string(i % 97) + '\n';
  bytes.push_back('\0');
  return bytes;
}

TEST(GzipMember, HeaderSaysNoTimeAndUnknownSystem) {
  const std::string member = gzip_member(sample_bytes(), "test");
  ASSERT_GE(member.size(), 18u);
  EXPECT_EQ(static_cast<unsigned char>(member[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(member[1]), 0x8b);
  EXPECT_EQ(member[2], 8) << "deflate";
  EXPECT_EQ(member[3], 0) << "no name, comment or extra field";
  EXPECT_EQ(member.substr(4, 4), std::string(4, '\0')) << "mtime 0";
  // Byte 9 is the OS: 255 "unknown" on every system (zlib writes 3 on Linux, 10 on Windows).
  EXPECT_EQ(static_cast<unsigned char>(member[9]), 255);
}

TEST(GzipMember, InflatesBackToTheBytes) {
  const std::string bytes = sample_bytes();
  const std::string member = gzip_member(bytes, "test");
  EXPECT_LT(member.size(), bytes.size() / 4) << "compressed";
  EXPECT_EQ(gunzip(member), bytes);
  EXPECT_EQ(gunzip(gzip_member("", "test")), "");
}

TEST(GzipMember, SameBytesEachTime) {
  EXPECT_EQ(gzip_member(sample_bytes(), "test"), gzip_member(sample_bytes(), "test"));
}

}  // namespace
}  // namespace heapql
