// The events section and the live counts (engine/store/store_events.h):
// what is written reads back, chunk by chunk; damage is refused, never read.
#include "engine/store/store_events.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/error.h"

namespace heapql {
namespace {

struct WrittenEvents {
  std::vector<std::uint8_t> bytes;  // the section: head, entries, frames
  std::vector<std::uint32_t> words;
};

// `n` events over `buckets` buckets, frees only of buckets with live blocks.
WrittenEvents write_events(std::uint64_t n, std::uint32_t buckets, std::uint64_t chunk_events, unsigned seed = 7) {
  WrittenEvents out;
  std::vector<std::uint8_t> frames;
  StoreEventsWriter writer([&](std::span<const std::uint8_t> f) { frames.insert(frames.end(), f.begin(), f.end()); },
                           chunk_events);
  std::mt19937 random(seed);
  std::vector<std::uint32_t> live(buckets, 0);
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint32_t b = random() % buckets;
    const bool free = live[b] > 0 && random() % 2 == 0;
    live[b] += free ? -1 : 1;
    const std::uint32_t word = b << 1 | (free ? 1u : 0u);
    out.words.push_back(word);
    writer.push(word);
  }
  writer.finish();
  out.bytes = writer.head();
  out.bytes.insert(out.bytes.end(), frames.begin(), frames.end());
  return out;
}

std::string_view as_view(const std::vector<std::uint8_t>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

TEST(StoreEventsTest, ChunksReadBackAsWritten) {
  for (const std::uint64_t n : {0ull, 1ull, 63ull, 64ull, 65ull, 1000ull, 4096ull}) {
    const WrittenEvents w = write_events(n, 17, 64);
    StoreEvents events;
    ASSERT_EQ(events.view(as_view(w.bytes), n), "") << n;
    EXPECT_EQ(events.chunk_count(), (n + 63) / 64);
    FrameDecoder decoder;
    std::vector<std::uint32_t> words, all;
    std::uint64_t allocs = 0;
    for (std::size_t k = 0; k < events.chunk_count(); ++k) {
      EXPECT_EQ(events.allocs_before_chunk(k), allocs);
      events.decode(k, decoder, words, 17);
      for (const std::uint32_t word : words) allocs += (word & 1) ^ 1;
      all.insert(all.end(), words.begin(), words.end());
    }
    EXPECT_EQ(all, w.words);
    EXPECT_EQ(events.allocation_count(), allocs);
  }
}

TEST(StoreEventsTest, SizesThatDisagreeAreRefusedAtView) {
  const WrittenEvents w = write_events(1000, 17, 64);
  StoreEvents events;
  EXPECT_NE(events.view(as_view(w.bytes), 960), "");   // another event count: another chunk count
  // The same chunk count: the last chunk's frame holds another size, found when read.
  ASSERT_EQ(events.view(as_view(w.bytes), 999), "");
  FrameDecoder decoder;
  std::vector<std::uint32_t> words;
  EXPECT_THROW(events.decode(events.chunk_count() - 1, decoder, words, 17), Error);
  EXPECT_NE(events.view(as_view(w.bytes), 1100), "");
  EXPECT_NE(events.view(as_view(w.bytes).substr(0, 100), 1000), "");
  EXPECT_NE(events.view(as_view(w.bytes).substr(0, w.bytes.size() - 1), 1000), "");  // the last frame cut
  std::vector<std::uint8_t> odd = w.bytes;
  const std::uint64_t not_a_power = 100;
  std::memcpy(odd.data(), &not_a_power, 8);
  EXPECT_NE(events.view(as_view(odd), 1000), "");
  std::vector<std::uint8_t> swapped = w.bytes;  // chunk 1 starting past the frames
  const std::uint64_t past = 1u << 30;
  std::memcpy(swapped.data() + 16 + 16, &past, 8);
  EXPECT_NE(events.view(as_view(swapped), 1000), "");
  std::vector<std::uint8_t> too_many = w.bytes;  // chunk 0 with more allocations than events
  const std::uint64_t allocs = 65;
  std::memcpy(too_many.data() + 16 + 16 + 8, &allocs, 8);
  EXPECT_NE(events.view(as_view(too_many), 1000), "");
}

TEST(StoreEventsTest, ADamagedFrameIsAnErrorWhenRead) {
  const WrittenEvents w = write_events(1000, 17, 64);
  const std::size_t frames_at = 16 + 16 * (16 + 1);
  FrameDecoder decoder;
  std::vector<std::uint32_t> words;
  for (const std::size_t at : {frames_at, frames_at + 5, w.bytes.size() - 3}) {
    std::vector<std::uint8_t> damaged = w.bytes;
    damaged[at] ^= 0x55;
    StoreEvents events;
    ASSERT_EQ(events.view(as_view(damaged), 1000), "");
    bool refused = false;
    for (std::size_t k = 0; k < events.chunk_count(); ++k) {
      try {
        events.decode(k, decoder, words, 17);
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("store is inconsistent: the events' chunk"), std::string::npos) << e.what();
        refused = true;
      }
    }
    EXPECT_TRUE(refused) << "byte " << at;
  }
}

TEST(StoreEventsTest, AChunkWhoseAllocationsDifferFromItsEntryIsRefused) {
  const WrittenEvents w = write_events(128, 5, 64);
  std::vector<std::uint8_t> moved = w.bytes;  // chunk 1 starts one allocation later; chunk 0 claims it
  std::uint64_t allocs = 0;
  std::memcpy(&allocs, moved.data() + 16 + 16 + 8, 8);
  ++allocs;
  std::memcpy(moved.data() + 16 + 16 + 8, &allocs, 8);
  StoreEvents events;
  ASSERT_EQ(events.view(as_view(moved), 128), "");
  FrameDecoder decoder;
  std::vector<std::uint32_t> words;
  EXPECT_THROW(events.decode(0, decoder, words, 5), Error);
}

TEST(StoreEventsTest, LiveCountsReadBack) {
  const WrittenEvents w = write_events(1000, 300, 64);
  StoreEvents events;
  ASSERT_EQ(events.view(as_view(w.bytes), 1000), "");
  StoreLiveCountsWriter writer;
  writer.list(128, {{7, 2}, {0, 1}, {299, 5}});
  writer.list(256, {});
  writer.list(512, {{3, 1}});
  const std::vector<std::uint8_t> bytes = writer.bytes();
  StoreLiveCounts counts;
  ASSERT_EQ(counts.view(as_view(bytes), events), "");
  ASSERT_EQ(counts.count(), 3u);
  EXPECT_EQ(counts.seq(1), 256u);
  FrameDecoder decoder;
  std::vector<std::uint32_t> live(300, 9);
  counts.decode(0, decoder, live, 100);
  EXPECT_EQ(live[0], 1u);
  EXPECT_EQ(live[7], 2u);
  EXPECT_EQ(live[299], 5u);
  EXPECT_EQ(live[1], 0u);
  counts.decode(1, decoder, live, 100);
  EXPECT_EQ(std::count(live.begin(), live.end(), 0u), 300);
  // More live blocks than were allocated before, or a bucket past the table: refused.
  EXPECT_THROW(counts.decode(0, decoder, live, 7), Error);
  std::vector<std::uint32_t> fewer(299);
  EXPECT_THROW(counts.decode(0, decoder, fewer, 100), Error);
}

TEST(StoreEventsTest, LiveCountsOutOfPlaceAreRefusedAtView) {
  const WrittenEvents w = write_events(1000, 30, 64);
  StoreEvents events;
  ASSERT_EQ(events.view(as_view(w.bytes), 1000), "");
  for (const std::vector<std::uint64_t>& seqs :
       std::vector<std::vector<std::uint64_t>>{{100}, {0}, {1024}, {256, 128}, {128, 128}}) {
    StoreLiveCountsWriter writer;
    for (const std::uint64_t seq : seqs) writer.list(seq, {{1, 1}});
    StoreLiveCounts counts;
    EXPECT_NE(counts.view(as_view(writer.bytes()), events), "") << seqs.front();
  }
}

}  // namespace
}  // namespace heapql
