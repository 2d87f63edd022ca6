// Tests for LineReader: plain/gzip/zstd input, frame and member boundaries,
// long lines, line numbers, and the errors for bad files.
#include "engine/ingest/line_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace heapql {
namespace {

namespace fs = std::filesystem;

std::string zstd_compress(std::string_view text, bool checksum = false) {
  ZSTD_CCtx* context = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, 3);
  ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, checksum ? 1 : 0);
  std::string out(ZSTD_compressBound(text.size()), '\0');
  std::size_t size = ZSTD_compress2(context, out.data(), out.size(), text.data(), text.size());
  ZSTD_freeCCtx(context);
  EXPECT_FALSE(ZSTD_isError(size)) << ZSTD_getErrorName(size);
  out.resize(size);
  return out;
}

std::string gzip_compress(std::string_view text) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// Lines of varied length (some empty), so chunk and frame boundaries fall
// everywhere, and compressed data is not trivially repetitive.
std::string varied_text(std::size_t lines) {
  std::string text;
  std::uint32_t state = 12345;
  for (std::size_t i = 0; i < lines; ++i) {
    state = state * 1103515245 + 12345;
    std::size_t length = (state >> 16) % 150;
    text += fmt::format("{} ", i);
    for (std::size_t j = 0; j < length; ++j) text += static_cast<char>('a' + (state >> (j % 24)) % 26);
    text += '\n';
  }
  return text;
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    std::size_t newline = text.find('\n');
    if (newline == std::string_view::npos) {
      lines.emplace_back(text);
      break;
    }
    lines.emplace_back(text.substr(0, newline));
    text.remove_prefix(newline + 1);
  }
  return lines;
}

std::vector<std::string> read_all(LineReader& reader) {
  std::vector<std::string> lines;
  std::string_view line;
  while (reader.next(line)) {
    lines.emplace_back(line);
    EXPECT_EQ(reader.line_number(), lines.size());
  }
  return lines;
}

class LineReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / fmt::format("heapql_line_reader_{}_{}", ::getpid(), info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, std::string_view bytes) {
    std::string path = (dir_ / name).string();
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    EXPECT_TRUE(out.good());
    return path;
  }

  // Opens and reads path to the end, expecting an Error; returns its what().
  static std::string read_error(const std::string& path) {
    try {
      LineReader reader(path, false);
      std::string_view line;
      while (reader.next(line)) {
      }
    } catch (const Error& error) {
      EXPECT_EQ(error.where().file, path);
      if (error.where().byte_offset) {
        EXPECT_LE(*error.where().byte_offset, fs::file_size(path));
      }
      return error.what();
    }
    ADD_FAILURE() << "no error for " << path;
    return {};
  }

  fs::path dir_;
};

TEST_F(LineReaderTest, CompressionNames) {
  EXPECT_EQ(compression_name(Compression::kPlain), "plain");
  EXPECT_EQ(compression_name(Compression::kGzip), "gzip");
  EXPECT_EQ(compression_name(Compression::kZstd), "zstd");
}

TEST_F(LineReaderTest, PlainText) {
  std::string path = write("trace.txt", "first\nsecond\nthird\n");
  LineReader reader(path, false);
  EXPECT_EQ(reader.compression(), Compression::kPlain);
  EXPECT_EQ(reader.path(), path);
  EXPECT_EQ(reader.file_size(), 19u);
  EXPECT_EQ(reader.line_number(), 0u);
  EXPECT_FALSE(reader.location().line.has_value());
  EXPECT_EQ(read_all(reader), (std::vector<std::string>{"first", "second", "third"}));
  EXPECT_EQ(reader.compressed_bytes_read(), 19u);
  std::string_view line;
  EXPECT_FALSE(reader.next(line));  // stays at the end
}

TEST_F(LineReaderTest, LineNumbersAndLocation) {
  std::string path = write("trace.txt", "a\nb\nc\n");
  LineReader reader(path, false);
  std::string_view line;
  ASSERT_TRUE(reader.next(line));
  ASSERT_TRUE(reader.next(line));
  EXPECT_EQ(line, "b");
  EXPECT_EQ(reader.line_number(), 2u);
  SourceLocation where = reader.location();
  EXPECT_EQ(where.file, path);
  EXPECT_EQ(where.line, 2u);
  EXPECT_FALSE(where.byte_offset.has_value());
  ASSERT_TRUE(reader.next(line));
  EXPECT_EQ(reader.line_number(), 3u);
  EXPECT_FALSE(reader.next(line));
  EXPECT_EQ(reader.line_number(), 3u);
}

// A last line without its newline is what a cut left of a record: it is
// left over, not handed out, and cut() says so.
TEST_F(LineReaderTest, FinalLineWithoutNewlineIsLeftOver) {
  for (const auto& [name, bytes] : {std::pair<std::string, std::string>{"a.txt", "one\ntwo"},
                                    {"a.zst", zstd_compress("one\ntwo")},
                                    {"a.gz", gzip_compress("one\ntwo")}}) {
    LineReader reader(write(name, bytes), false);
    EXPECT_EQ(read_all(reader), (std::vector<std::string>{"one"})) << name;
    ASSERT_TRUE(reader.cut().has_value()) << name;
    EXPECT_EQ(reader.cut()->what, "the last line has no newline");
    EXPECT_EQ(reader.cut()->left_over_bytes, 3u);
    EXPECT_EQ(reader.cut()->at_byte, bytes.size());
  }
  LineReader whole(write("b.txt", "one\ntwo\n"), false);
  EXPECT_EQ(read_all(whole), (std::vector<std::string>{"one", "two"}));
  EXPECT_FALSE(whole.cut().has_value());
}

TEST_F(LineReaderTest, InMemoryBytesReadAsTheFile) {
  const std::string text = varied_text(3000);
  const std::string compressed = zstd_compress(text);
  LineReader from_file(write("m.zst", compressed), false);
  LineReader from_memory("m.zst", compressed);
  EXPECT_EQ(from_memory.compression(), Compression::kZstd);
  EXPECT_EQ(read_all(from_memory), read_all(from_file));
  EXPECT_EQ(from_memory.path(), "m.zst");
}

TEST_F(LineReaderTest, EmptyLines) {
  LineReader reader(write("a.txt", "\n\nx\n\n"), false);
  EXPECT_EQ(read_all(reader), (std::vector<std::string>{"", "", "x", ""}));
  LineReader single(write("b.txt", "\n"), false);
  EXPECT_EQ(read_all(single), (std::vector<std::string>{""}));
}

TEST_F(LineReaderTest, CarriageReturnAndNulArePassedThrough) {
  using namespace std::string_literals;
  LineReader reader(write("a.txt", "a\r\nb\0c\n"s), false);
  EXPECT_EQ(read_all(reader), (std::vector<std::string>{"a\r", "b\0c"s}));
}

TEST_F(LineReaderTest, ManyLinesAcrossChunks) {
  std::string text = varied_text(60000);  // about 5 MB, several chunks
  std::vector<std::string> expected = split_lines(text);
  LineReader plain(write("big.txt", text), false);
  EXPECT_EQ(read_all(plain), expected);
  LineReader zstd(write("big.zst", zstd_compress(text)), false);
  EXPECT_EQ(zstd.compression(), Compression::kZstd);
  EXPECT_EQ(read_all(zstd), expected);
  EXPECT_EQ(zstd.compressed_bytes_read(), zstd.file_size());
  LineReader gzip(write("big.gz", gzip_compress(text)), false);
  EXPECT_EQ(gzip.compression(), Compression::kGzip);
  EXPECT_EQ(read_all(gzip), expected);
}

// whole_lines() and skip(), mixed with next() as the heaptrack pipeline mixes
// them: the same lines and line numbers as next() alone, and a final line
// without '\n' still comes from next().
std::vector<std::string> read_in_bulk(LineReader& reader) {
  std::vector<std::string> lines;
  for (;;) {
    const std::string_view buffered = reader.whole_lines();
    if (buffered.empty()) {
      std::string_view line;
      if (!reader.next(line)) return lines;
      lines.emplace_back(line);
      EXPECT_EQ(reader.line_number(), lines.size());
      continue;
    }
    EXPECT_EQ(buffered.back(), '\n');
    // Take up to three lines at once here and one through next(), so both
    // interleave.
    std::size_t taken = 0;
    std::size_t at = 0;
    while (taken < 3 && at < buffered.size()) {
      const std::size_t newline = buffered.find('\n', at);
      lines.emplace_back(buffered.substr(at, newline - at));
      at = newline + 1;
      ++taken;
    }
    reader.skip(buffered.data() + at, taken);
    EXPECT_EQ(reader.line_number(), lines.size());
    std::string_view line;
    if (!reader.next(line)) return lines;
    lines.emplace_back(line);
    EXPECT_EQ(reader.line_number(), lines.size());
  }
}

TEST_F(LineReaderTest, WholeLinesInBulkGiveTheSameLinesAsNext) {
  const std::string text = varied_text(60000) + "a cut line at the end";
  std::vector<std::string> expected = split_lines(text);
  expected.pop_back();  // left over
  LineReader plain(write("big.txt", text), false);
  EXPECT_EQ(read_in_bulk(plain), expected);
  LineReader zstd(write("big.zst", zstd_compress(text)), false);
  EXPECT_EQ(read_in_bulk(zstd), expected);
  LineReader gzip(write("big.gz", gzip_compress(text)), false);
  EXPECT_EQ(read_in_bulk(gzip), expected);
}

TEST_F(LineReaderTest, Gzip) {
  LineReader reader(write("trace.gz", gzip_compress("alpha\nbeta\n")), false);
  EXPECT_EQ(reader.compression(), Compression::kGzip);
  EXPECT_EQ(read_all(reader), (std::vector<std::string>{"alpha", "beta"}));
}

TEST_F(LineReaderTest, Zstd) {
  LineReader reader(write("trace.zst", zstd_compress("alpha\nbeta\n")), false);
  EXPECT_EQ(reader.compression(), Compression::kZstd);
  EXPECT_EQ(read_all(reader), (std::vector<std::string>{"alpha", "beta"}));
}

TEST_F(LineReaderTest, MultiFrameZstd) {
  // The line "split here" is cut across the frame boundary.
  std::string data = zstd_compress("one\ntwo\nsplit ") + zstd_compress("here\nthree\n") + zstd_compress("");
  std::string text = varied_text(20000);
  data += zstd_compress(text);
  std::vector<std::string> expected{"one", "two", "split here", "three"};
  for (auto& line : split_lines(text)) expected.push_back(line);
  LineReader reader(write("multi.zst", data), false);
  EXPECT_EQ(read_all(reader), expected);
}

TEST_F(LineReaderTest, MultiMemberGzip) {
  std::string data = gzip_compress("one\ntwo\nsplit ") + gzip_compress("here\nthree\n") + gzip_compress("");
  std::string text = varied_text(20000);
  data += gzip_compress(text);
  std::vector<std::string> expected{"one", "two", "split here", "three"};
  for (auto& line : split_lines(text)) expected.push_back(line);
  LineReader reader(write("multi.gz", data), false);
  EXPECT_EQ(read_all(reader), expected);
}

TEST_F(LineReaderTest, CompressedButNoText) {
  LineReader zstd(write("none.zst", zstd_compress("")), false);
  EXPECT_EQ(read_all(zstd), std::vector<std::string>{});
  LineReader gzip(write("none.gz", gzip_compress("")), false);
  EXPECT_EQ(read_all(gzip), std::vector<std::string>{});
}

TEST_F(LineReaderTest, SniffingBeatsTheName) {
  LineReader zstd_named_gz(write("trace.gz", zstd_compress("x\ny\n")), false);
  EXPECT_EQ(zstd_named_gz.compression(), Compression::kZstd);
  EXPECT_EQ(read_all(zstd_named_gz), (std::vector<std::string>{"x", "y"}));
  LineReader gzip_named_txt(write("trace.txt", gzip_compress("x\ny\n")), false);
  EXPECT_EQ(gzip_named_txt.compression(), Compression::kGzip);
  EXPECT_EQ(read_all(gzip_named_txt), (std::vector<std::string>{"x", "y"}));
  LineReader plain_named_zst(write("trace.zst", "plain text\n"), false);
  EXPECT_EQ(plain_named_zst.compression(), Compression::kPlain);
  EXPECT_EQ(read_all(plain_named_zst), (std::vector<std::string>{"plain text"}));
}

TEST_F(LineReaderTest, TooShortToSniffGoesByName) {
  LineReader plain(write("short.txt", "ab"), false);
  EXPECT_EQ(plain.compression(), Compression::kPlain);
  EXPECT_EQ(read_all(plain), (std::vector<std::string>{}));  // "ab" has no newline: left over
  std::string path = write("short.zst", std::string("\x28\xb5\x2f", 3));
  LineReader zstd(path, false);
  EXPECT_EQ(zstd.compression(), Compression::kZstd);
  EXPECT_EQ(read_all(zstd), (std::vector<std::string>{}));
  ASSERT_TRUE(zstd.cut().has_value());
  EXPECT_EQ(zstd.cut()->what, "the zstd stream ends inside a frame");
}

TEST_F(LineReaderTest, LineLongerThanFourMebibytes) {
  std::string long_line(5 * 1024 * 1024 + 17, 'x');
  for (std::size_t i = 0; i < long_line.size(); i += 4096) long_line[i] = static_cast<char>('a' + i % 26);
  std::string text = "before\n" + long_line + "\nafter\n" + long_line + "\n";
  std::vector<std::string> expected{"before", long_line, "after", long_line};
  LineReader plain(write("long.txt", text), false);
  EXPECT_EQ(read_all(plain), expected);
  LineReader zstd(write("long.zst", zstd_compress(text)), false);
  EXPECT_EQ(read_all(zstd), expected);
  LineReader gzip(write("long.gz", gzip_compress(text)), false);
  EXPECT_EQ(read_all(gzip), expected);
}

TEST_F(LineReaderTest, MissingFile) {
  std::string path = (dir_ / "absent.txt").string();
  std::string message = read_error(path);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("cannot open"), std::string::npos) << message;
  EXPECT_NE(message.find("No such file"), std::string::npos) << message;
}

TEST_F(LineReaderTest, DirectoryIsNotAFile) {
  std::string message = read_error(dir_.string());
  EXPECT_NE(message.find("cannot open"), std::string::npos) << message;
}

TEST_F(LineReaderTest, EmptyFile) {
  std::string path = write("empty.txt", "");
  std::string message = read_error(path);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("empty file"), std::string::npos) << message;
}

// A stream cut short (a killed recording) gives its complete lines and
// says where it ends; it is no error.
TEST_F(LineReaderTest, TruncatedZstdGivesItsCompleteLines) {
  const std::string text = varied_text(5000);
  std::string data = zstd_compress(text);
  data.resize(data.size() - 7);
  LineReader reader(write("cut.zst", data), false);
  const std::vector<std::string> lines = read_all(reader);
  const std::vector<std::string> all = split_lines(text);
  ASSERT_LE(lines.size(), all.size());
  EXPECT_GT(lines.size(), 0u);
  EXPECT_TRUE(std::equal(lines.begin(), lines.end(), all.begin()));
  ASSERT_TRUE(reader.cut().has_value());
  EXPECT_EQ(reader.cut()->what, "the zstd stream ends inside a frame");
  EXPECT_EQ(reader.cut()->at_byte, data.size());
  EXPECT_EQ(reader.cut()->file, reader.path());
}

TEST_F(LineReaderTest, TruncatedZstdAtSecondFrame) {
  std::string second = zstd_compress("more\n");
  std::string data = zstd_compress("whole\n") + second.substr(0, 6);
  LineReader reader(write("cut2.zst", data), false);
  EXPECT_EQ(read_all(reader), (std::vector<std::string>{"whole"}));
  ASSERT_TRUE(reader.cut().has_value());
  EXPECT_EQ(reader.cut()->what, "the zstd stream ends inside a frame");
  EXPECT_EQ(reader.cut()->left_over_bytes, 0u);
}

TEST_F(LineReaderTest, TruncatedGzipGivesItsCompleteLines) {
  const std::string text = varied_text(5000);
  std::string data = gzip_compress(text);
  data.resize(data.size() - 3);  // inside the trailer: all the text decodes, the member is unfinished
  LineReader whole_text(write("cut.gz", data), false);
  EXPECT_EQ(read_all(whole_text), split_lines(text));
  ASSERT_TRUE(whole_text.cut().has_value());
  EXPECT_EQ(whole_text.cut()->what, "the gzip stream ends inside a member");
  EXPECT_EQ(whole_text.cut()->at_byte, data.size());

  std::string half = gzip_compress(text);
  half.resize(half.size() / 2);
  LineReader reader(write("half.gz", half), false);
  const std::vector<std::string> lines = read_all(reader);
  EXPECT_GT(lines.size(), 0u);
  EXPECT_LT(lines.size(), split_lines(text).size());
  ASSERT_TRUE(reader.cut().has_value());
}

TEST_F(LineReaderTest, CorruptZstd) {
  std::string data = zstd_compress(varied_text(5000), /*checksum=*/true);
  for (std::size_t i = data.size() / 2; i < data.size() / 2 + 16; ++i) data[i] = static_cast<char>(data[i] ^ 0x5a);
  std::string path = write("bad.zst", data);
  std::string message = read_error(path);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("corrupt zstd stream"), std::string::npos) << message;
  EXPECT_NE(message.find("byte"), std::string::npos) << message;
}

TEST_F(LineReaderTest, GarbageAfterZstdFrame) {
  std::string path = write("tail.zst", zstd_compress("fine\n") + "not a frame\n");
  std::string message = read_error(path);
  EXPECT_NE(message.find("corrupt zstd stream"), std::string::npos) << message;
}

TEST_F(LineReaderTest, CorruptGzip) {
  std::string data = gzip_compress(varied_text(5000));
  for (std::size_t i = data.size() / 2; i < data.size() / 2 + 16; ++i) data[i] = static_cast<char>(data[i] ^ 0x5a);
  std::string path = write("bad.gz", data);
  std::string message = read_error(path);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("corrupt gzip stream"), std::string::npos) << message;
  EXPECT_NE(message.find("byte"), std::string::npos) << message;
}

TEST_F(LineReaderTest, CompressedByTheCommandLineTools) {
  // The real tools' output (zstd adds a checksum, gzip a file name header).
  std::string text = varied_text(3000);
  std::string path = write("tools.txt", text);
  if (std::system(fmt::format("zstd -q -f -k '{0}' -o '{0}.zst' && gzip -c '{0}' > '{0}.gz'", path).c_str()) != 0) {
    GTEST_SKIP() << "zstd or gzip not runnable";
  }
  LineReader zstd(path + ".zst", false);
  EXPECT_EQ(zstd.compression(), Compression::kZstd);
  EXPECT_EQ(read_all(zstd), split_lines(text));
  LineReader gzip(path + ".gz", false);
  EXPECT_EQ(gzip.compression(), Compression::kGzip);
  EXPECT_EQ(read_all(gzip), split_lines(text));
}

TEST_F(LineReaderTest, NoProgressOutputWhenStderrIsNotATerminal) {
  if (::isatty(STDERR_FILENO)) GTEST_SKIP() << "stderr is a terminal";
  ::testing::internal::CaptureStderr();
  {
    LineReader reader(write("a.txt", varied_text(1000)), true);
    read_all(reader);
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace heapql
