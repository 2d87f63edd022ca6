// A file written as one zstd frame while its text arrives (`heapql record`'s
// NAME.zst and NAME.raw.zst). flush() ends the current zstd block and writes
// it out, so the file is then a prefix that readers decode up to there (as a
// frame cut short: heapql reads its whole lines, heaptrack_print reads on to
// the last one); finish() ends the frame.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

typedef struct ZSTD_CCtx_s ZSTD_CCtx;

namespace heapql {

class ZstdFileWriter {
 public:
  // Creates (or truncates) the file; throws Error naming it.
  ZstdFileWriter(std::string path, int level);
  ~ZstdFileWriter();
  ZstdFileWriter(const ZstdFileWriter&) = delete;
  ZstdFileWriter& operator=(const ZstdFileWriter&) = delete;

  void write(std::string_view text);
  // Text written since the last flush is decodable from the file.
  void flush();
  // Ends the frame and closes the file; nothing is written after.
  void finish();
  // Text written since the last flush (or finish).
  bool unflushed() const { return unflushed_; }
  const std::string& path() const { return path_; }

 private:
  void compress(std::string_view text, int mode);
  std::string path_;
  std::FILE* file_ = nullptr;
  ZSTD_CCtx* context_ = nullptr;
  std::vector<char> out_;
  bool unflushed_ = false;
};

}  // namespace heapql
