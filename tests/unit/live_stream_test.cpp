// Tests for what `heapql record` reads a recording in progress with: a
// ByteQueue fed by another thread, read by LineReader as a stream, and the
// ZstdFileWriter whose flushed file is a readable prefix.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "engine/error.h"
#include "engine/ingest/byte_queue.h"
#include "engine/ingest/line_reader.h"
#include "engine/ingest/zstd_file_writer.h"
#include "tests/support/test_support.h"

namespace heapql {
namespace {

std::vector<std::string> all_lines(LineReader& reader) {
  std::vector<std::string> lines;
  std::string_view line;
  while (reader.next(line)) lines.emplace_back(line);
  return lines;
}

// Lines split across pushes, pushed while the reader waits for them, read
// whole and in order; the stream ends at close().
TEST(LiveStream, LineReaderReadsAQueueAsItIsFed) {
  ByteQueue queue;
  std::thread feeder([&] {
    for (int i = 0; i < 1000; ++i) {
      const std::string line = "+ " + std::to_string(i) + "\n";
      queue.push(line.substr(0, 1));  // the line arrives in two pieces
      queue.push(line.substr(1));
    }
    queue.close();
  });
  LineReader reader("stream", queue);
  const std::vector<std::string> lines = all_lines(reader);
  feeder.join();
  ASSERT_EQ(lines.size(), 1000u);
  EXPECT_EQ(lines.front(), "+ 0");
  EXPECT_EQ(lines.back(), "+ 999");
  EXPECT_FALSE(reader.cut());
  EXPECT_EQ(reader.path(), "stream");
  EXPECT_EQ(queue.peak_bytes() > 0, true);
}

// A half line at the end of the stream is a cut, as in a file.
TEST(LiveStream, AStreamEndingInsideALineIsCut) {
  ByteQueue queue;
  queue.push("v 3\n+ 1\n- 1\n+ 2");
  queue.close();
  LineReader reader("stream", queue);
  EXPECT_EQ(all_lines(reader), (std::vector<std::string>{"v 3", "+ 1", "- 1"}));
  ASSERT_TRUE(reader.cut());
  EXPECT_EQ(reader.cut()->left_over_bytes, 3u);
}

// A queue whose reader has gone drops what is pushed, and a read ends.
TEST(LiveStream, AnAbandonedQueueHoldsNothing) {
  ByteQueue queue;
  queue.push("abc\n");
  queue.abandon();
  queue.push(std::string(1 << 20, 'x'));
  char buffer[16];
  EXPECT_EQ(queue.read(buffer, sizeof buffer), 0u);
  EXPECT_EQ(queue.peak_bytes(), 4u);
}

// What was flushed reads back as lines (a frame cut short); once finished,
// the whole text, uncut.
TEST(LiveStream, AFlushedZstdFileIsAReadablePrefix) {
  test::TempDir dir;
  const std::string path = dir.file("t.zst");
  ZstdFileWriter writer(path, 3);
  writer.write("v 3\n+ 1\n");
  EXPECT_TRUE(writer.unflushed());
  writer.flush();
  EXPECT_FALSE(writer.unflushed());
  {
    LineReader reader(path, false);
    EXPECT_EQ(all_lines(reader), (std::vector<std::string>{"v 3", "+ 1"}));
    ASSERT_TRUE(reader.cut());
    EXPECT_NE(reader.cut()->what.find("inside a frame"), std::string::npos) << reader.cut()->what;
  }
  writer.write("- 1\n");
  writer.finish();
  LineReader reader(path, false);
  EXPECT_EQ(all_lines(reader), (std::vector<std::string>{"v 3", "+ 1", "- 1"}));
  EXPECT_FALSE(reader.cut());
  EXPECT_EQ(reader.compression(), Compression::kZstd);
}

TEST(LiveStream, AZstdFileThatCannotBeCreatedIsNamed) {
  test::TempDir dir;
  const std::string path = dir.file("no-such-folder/t.zst");
  try {
    ZstdFileWriter writer(path, 3);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cannot create"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace heapql
