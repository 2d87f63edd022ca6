// PackedRows: the store file's stack tree and buckets, 64 rows to a block,
// each field at its block's width (docs/store-format.md, "Packed rows").
#include "engine/store/packed_rows.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <vector>

#include "engine/error.h"
#include "engine/store/packed_rows_writer.h"
#include "engine/store/trace_tables.h"

namespace heapql {
namespace {

using Rows3 = PackedRows<3>;

std::vector<std::uint64_t> pack(const std::vector<Rows3::Row>& rows) {
  std::vector<std::uint64_t> words;
  PackedRowsWriter<3> writer(words);
  for (const Rows3::Row& row : rows) writer.push_back(row);
  writer.finish();
  return words;
}

Rows3 view(const std::vector<std::uint64_t>& words, std::size_t count) {
  Rows3 rows;
  const std::string wrong = Rows3::view(words, count, rows);
  EXPECT_EQ(wrong, "");
  return rows;
}

// Rows whose fields take every width from 0 to 64: a constant, small ids,
// and values spread over the whole 64 bits (a bucket's size may be any).
std::vector<Rows3::Row> mixed_rows(std::size_t n, std::uint32_t seed) {
  std::mt19937_64 random(seed);
  std::vector<Rows3::Row> rows;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t wide = (i / 64) % 3 == 0 ? random() : random() >> (random() % 64);
    rows.push_back({7, 1000 + i + random() % 50, wide});
  }
  return rows;
}

TEST(PackedRows, EveryRowReadsBackAtRandomAndByBlock) {
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{65},
                              std::size_t{1000}}) {
    const std::vector<Rows3::Row> rows = mixed_rows(n, static_cast<std::uint32_t>(n));
    const std::vector<std::uint64_t> words = pack(rows);
    const Rows3 packed = view(words, n);
    ASSERT_EQ(packed.size(), n);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(packed[i], rows[i]) << "row " << i << " of " << n;
    std::array<Rows3::Row, Rows3::kBlockRows> block;
    std::array<std::uint64_t, Rows3::kBlockRows> field;
    for (std::size_t k = 0; k * 64 < n; ++k) {
      packed.decode_block(k, block.data());
      const Rows3::BlockFields fields = packed.block_fields(k);
      for (std::size_t f = 0; f < 3; ++f) {
        fields.decode(f, field.data());
        const auto range = fields.range(f);
        for (std::size_t j = 0; j < 64 && k * 64 + j < n; ++j) {
          ASSERT_EQ(block[j], rows[k * 64 + j]);
          ASSERT_EQ(field[j], rows[k * 64 + j][f]);
          ASSERT_GE(field[j], range.least);
          if (!range.wraps) {
            ASSERT_LE(field[j], range.greatest);
          }
        }
      }
    }
    EXPECT_EQ(packed.bytes(), words.size() * 8);
  }
}

TEST(PackedRows, NarrowFieldsTakeLittleRoom) {
  // The stack tree's shape: frames of a small table, callers just before.
  std::vector<Rows3::Row> rows;
  for (std::uint64_t i = 0; i < 64 * 100; ++i) rows.push_back({i % 100, i == 0 ? 0 : i - 1, 0});
  const std::vector<std::uint64_t> words = pack(rows);
  // 7 bits of frame and 7 of caller a row, plus a directory of 5 words a block: 24 bytes a record as u64s.
  EXPECT_LE(words.size() * 8, rows.size() * 3);
  const Rows3 packed = view(words, rows.size());
  EXPECT_EQ(packed[6399], rows[6399]);
}

TEST(PackedRows, SizesThatDisagreeAreRefusedAtView) {
  const std::vector<std::uint64_t> words = pack(mixed_rows(130, 1));
  Rows3 rows;
  EXPECT_EQ(Rows3::view(words, 64 * 1000, rows), "its bytes are fewer than its rows' directory");
  // A block more than there are: its entry would be taken from the rows' words.
  EXPECT_EQ(Rows3::view(words, 200, rows), "its directory's last word is not the count of its rows' words");
  std::vector<std::uint64_t> shorter(words.begin() + 1, words.end());
  EXPECT_EQ(Rows3::view(shorter, 130, rows), "its directory's last word is not the count of its rows' words");
  EXPECT_EQ(Rows3::view({}, 0, rows), "its bytes are fewer than its rows' directory");
}

TEST(PackedRows, ADamagedBlockThrowsWhenRead) {
  std::vector<std::uint64_t> words = pack(mixed_rows(130, 2));
  const std::size_t directory = words.size() - 1 - 3 * Rows3::kEntryWords;
  {
    std::vector<std::uint64_t> wide = words;
    wide[directory + Rows3::kEntryWords + 1 + 3] |= 0x41;  // block 1's first field 65+ bits wide
    const Rows3 rows = view(wide, 130);
    EXPECT_EQ(rows[0], mixed_rows(130, 2)[0]);  // other blocks still read
    EXPECT_THROW((void)rows[64], Error);
    std::array<Rows3::Row, 64> block;
    EXPECT_THROW(rows.decode_block(1, block.data()), Error);
  }
  {
    std::vector<std::uint64_t> past = words;
    past[directory + 2 * Rows3::kEntryWords] = words.back();  // block 2 starts at its words' end
    const Rows3 rows = view(past, 130);
    EXPECT_THROW((void)rows[128], Error);
    EXPECT_THROW((void)rows.block_fields(2), Error);
  }
}

TEST(PackedRows, TheTablesRowsRoundTrip) {
  const StackNode node{FrameId(12), StackId()};
  EXPECT_EQ(StackNodeRows::join(StackNodeRows::split(node)).frame, node.frame);
  EXPECT_FALSE(StackNodeRows::join(StackNodeRows::split(node)).parent.valid());
  Bucket b;
  b.size = std::numeric_limits<std::uint64_t>::max();
  b.stack = StackId(5);
  b.thread = 0xFFFFFFFFu;
  b.kind = BlockKind::kVirtual;
  b.is_realloc = true;
  EXPECT_EQ(BucketRows::join(BucketRows::split(b)), b);
  b.is_realloc = false;
  b.kind = BlockKind::kHeap;
  EXPECT_EQ(BucketRows::join(BucketRows::split(b)), b);
}

}  // namespace
}  // namespace heapql

namespace heapql {
namespace {

// The tables read packed rows through a cache of decoded blocks on each
// thread (viewed_prefix_vector.h): any order of reads, two tables read in
// turn, and blocks that share a slot all give each row as it was written.
TEST(PackedRows, TablesViewedPackedReadEveryRowInAnyOrder) {
  const auto packed_buckets = [](std::size_t n, std::uint64_t salt, std::vector<Bucket>& rows) {
    std::vector<std::uint64_t> words;
    PackedRowsWriter<5> writer(words);
    for (std::size_t i = 0; i < n; ++i) {
      Bucket b;
      b.size = (i * 2654435761u + salt) % 100000;
      b.stack = StackId(static_cast<std::uint32_t>(i / 3));
      b.thread = static_cast<std::uint32_t>(salt);
      b.is_realloc = i % 7 == 0;
      rows.push_back(b);
      writer.push_back(BucketRows::split(b));
    }
    writer.finish();
    return words;
  };
  constexpr std::size_t kRows = 64 * 40 + 5;  // more blocks than the cache has slots
  std::vector<Bucket> rows_a, rows_b;
  const std::vector<std::uint64_t> words_a = packed_buckets(kRows, 1, rows_a), words_b = packed_buckets(kRows, 2, rows_b);
  TraceTables a, b;
  BucketRows::Rows view_a, view_b;
  ASSERT_EQ(BucketRows::Rows::view(words_a, kRows, view_a), "");
  ASSERT_EQ(BucketRows::Rows::view(words_b, kRows, view_b), "");
  a.view_buckets(view_a);
  b.view_buckets(view_b);
  std::mt19937 random(5);
  for (int round = 0; round < 3; ++round) {
    for (std::size_t n = 0; n < 4 * kRows; ++n) {
      const std::size_t i = round == 0 ? n % kRows : random() % kRows;
      const BucketId id(static_cast<std::uint32_t>(i));
      ASSERT_EQ(a.bucket(id), rows_a[i]) << i;
      ASSERT_EQ(b.bucket(id), rows_b[i]) << i;
    }
  }
  // A copy owns its rows and reads the same.
  const TraceTables copy = a;
  for (std::size_t i = 0; i < kRows; i += 97) ASSERT_EQ(copy.bucket(BucketId(static_cast<std::uint32_t>(i))), rows_a[i]);
}

}  // namespace
}  // namespace heapql
