// TraceTables' interning after its indexes are released (a read is over and
// the roll-up wants the memory): interning again finds every entry it had,
// and new entries get the next ids. Its memory count includes the text of
// each string it holds, in a copy too.
#include "engine/store/trace_tables.h"

#include <gtest/gtest.h>

#include <string>

namespace heapql {
namespace {

TEST(TraceTables, InterningAfterTheIndexesAreReleasedFindsEveryEntry) {
  TraceTables t;
  const StringId module = t.intern_string("app");
  const StringId main_symbol = t.intern_string("main");
  const StringId work_symbol = t.intern_string("work");
  const FrameId main_frame = t.intern_frame(module, main_symbol, 0);
  const FrameId work_frame = t.intern_frame(module, work_symbol, 0);
  const StackId root = t.intern_stack(main_frame, StackId());
  const StackId leaf = t.intern_stack(work_frame, root);
  const Bucket bucket{16, leaf, HeapId(), 0, BlockKind::kHeap, false};
  const BucketId b = t.intern_bucket(bucket);

  t.release_indexes();
  EXPECT_EQ(t.intern_string("main"), main_symbol);
  EXPECT_EQ(t.intern_frame(module, work_symbol, 0), work_frame);
  EXPECT_EQ(t.intern_stack(main_frame, StackId()), root);
  EXPECT_EQ(t.intern_stack(work_frame, root), leaf);
  EXPECT_EQ(t.intern_bucket(bucket), b);
  EXPECT_EQ(t.stack_count(), 2u);
  EXPECT_EQ(t.bucket_count(), 1u);

  t.release_indexes();
  const StackId other = t.intern_stack(main_frame, leaf);
  EXPECT_EQ(other.value, 2u);
  EXPECT_EQ(t.intern_stack(main_frame, leaf), other);
  const StringId fresh = t.intern_string("new");
  EXPECT_EQ(fresh.value, t.string_count() - 1);
}

TEST(TraceTables, MemoryCountsTheTextOfEveryStringHeld) {
  TraceTables t;
  const std::size_t empty = t.memory_bytes();
  const std::string long_name(10'000, 'x');
  t.intern_string(long_name);
  const std::size_t with_one = t.memory_bytes();
  EXPECT_GE(with_one, empty + long_name.size());
  t.intern_string(long_name);  // already held: no second copy
  EXPECT_EQ(t.memory_bytes(), with_one);
  t.intern_string(std::string(20'000, 'y'));
  EXPECT_GE(t.memory_bytes(), with_one + 20'000);
  const TraceTables copy(t);
  EXPECT_GE(copy.memory_bytes(), long_name.size() + 20'000);
}

}  // namespace
}  // namespace heapql
