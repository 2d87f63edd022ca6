#include "engine/ingest/zstd_file_writer.h"

#include <zstd.h>

#include <cerrno>

#include "engine/error.h"
#include "engine/platform/errno_text.h"
#include "engine/platform/open_file.h"

namespace heapql {

ZstdFileWriter::ZstdFileWriter(std::string path, int level)
    : path_(std::move(path)), out_(ZSTD_CStreamOutSize()) {
  file_ = open_stdio_file(path_, "wb");
  if (file_ == nullptr) throw Error(SourceLocation::of_file(path_), "cannot create: " + errno_text(errno));
  context_ = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(context_, ZSTD_c_compressionLevel, level);
  // The size is unknown; a checksum lets zstd -t vouch for a finished file.
  ZSTD_CCtx_setParameter(context_, ZSTD_c_checksumFlag, 1);
}

ZstdFileWriter::~ZstdFileWriter() {
  if (context_ != nullptr) ZSTD_freeCCtx(context_);
  if (file_ != nullptr) std::fclose(file_);
}

void ZstdFileWriter::compress(std::string_view text, int mode) {
  if (file_ == nullptr) throw Error(SourceLocation::of_file(path_), "written after it was finished");
  ZSTD_inBuffer in{text.data(), text.size(), 0};
  for (;;) {
    ZSTD_outBuffer out{out_.data(), out_.size(), 0};
    const std::size_t left = ZSTD_compressStream2(context_, &out, &in, static_cast<ZSTD_EndDirective>(mode));
    if (ZSTD_isError(left)) throw Error(SourceLocation::of_file(path_), ZSTD_getErrorName(left));
    if (out.pos > 0 && std::fwrite(out_.data(), 1, out.pos, file_) != out.pos) {
      throw Error(SourceLocation::of_file(path_), "cannot write: " + errno_text(errno));
    }
    const bool input_taken = in.pos == in.size;
    if (mode == ZSTD_e_continue ? input_taken : left == 0) break;
  }
}

void ZstdFileWriter::write(std::string_view text) {
  if (text.empty()) return;
  compress(text, ZSTD_e_continue);
  unflushed_ = true;
}

void ZstdFileWriter::flush() {
  compress({}, ZSTD_e_flush);
  if (std::fflush(file_) != 0) throw Error(SourceLocation::of_file(path_), "cannot write: " + errno_text(errno));
  unflushed_ = false;
}

void ZstdFileWriter::finish() {
  compress({}, ZSTD_e_end);
  std::FILE* file = file_;
  file_ = nullptr;
  unflushed_ = false;
  if (std::fclose(file) != 0) throw Error(SourceLocation::of_file(path_), "cannot write: " + errno_text(errno));
}

}  // namespace heapql
