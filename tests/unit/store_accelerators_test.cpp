// A store's accelerators (the bucket sums, the live checkpoints, the stack
// view) are optional, each at a revision of its own (docs/store-format.md).
// A store read by a heapql that knows another revision of one, or a newer
// accelerator, a store written without one, and a store with one this heapql
// does not know, all answer every query as the replay of the block columns
// does: adding or changing an accelerator refuses no store.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/ingest/open_trace.h"
#include "engine/query/aggregator.h"
#include "engine/report/reports.h"
#include "engine/binary_file/mapped_file.h"
#include "engine/store_file/store_format.h"
#include "engine/store_file/store_reader.h"
#include "engine/store_file/store_sections.h"
#include "engine/store_file/store_writer.h"
#include "tests/support/store_checksums.h"
#include "tests/support/test_support.h"

namespace heapql::store_file {
namespace {

using test::read_file;
using test::TempDir;
using test::write_file;

// Every way a query reads a store: the stack view (the first two), the
// bucket sums (the next two), and replays of windows, which start from a
// live checkpoint where there is one.
std::vector<Query> queries_of(std::int64_t end_ns) {
  std::vector<Query> queries(8);
  queries[0].by = {GroupBy::kStack};
  queries[1].totals_only = true;
  queries[2].by = {GroupBy::kFrame};
  queries[2].sort = Measure::kSt;
  queries[3].by = {GroupBy::kStack};
  queries[3].default_cull = false;
  queries[4].window = {end_ns / 3, end_ns - end_ns / 3};
  queries[4].impacting = {Impacting::kAifo, Impacting::kAofi};
  queries[4].by = {GroupBy::kImpacting, GroupBy::kStack};
  queries[5].window = {end_ns / 2, std::nullopt};
  queries[5].block_set = BlockSet::kAtPeak;
  queries[5].by = {GroupBy::kFrame};
  queries[6].window = {end_ns / 4, end_ns / 2};
  queries[6].series_buckets = 4;
  queries[6].by = {GroupBy::kThread};
  queries[7].temporary_only = true;
  queries[7].by = {GroupBy::kStack};
  return queries;
}

std::string answer(const TraceStore& store, const Query& query, bool replay_only) {
  Aggregator aggregator(store.tables(), query);
  if (replay_only) {
    store.replay(aggregator);
  } else {
    aggregator.answer_from(store);
  }
  return result_json(aggregator.result(store.source()), store.source());
}

struct TocRow {
  std::size_t entry_at;  // its table of contents entry's offset in the file
  std::uint32_t kind, revision;
};

// The table of contents of a store file's bytes (store_format.h).
std::vector<TocRow> toc_of(const std::string& bytes) {
  std::uint32_t count;
  std::uint64_t toc;
  std::memcpy(&count, bytes.data() + header_at::kSectionCount, 4);
  std::memcpy(&toc, bytes.data() + header_at::kTocOffset, 8);
  std::vector<TocRow> sections;
  for (std::uint32_t i = 0; i < count; ++i) {
    TocRow s{toc + i * kTocEntryBytes, 0, 0};
    std::memcpy(&s.kind, bytes.data() + s.entry_at, 4);
    std::memcpy(&s.revision, bytes.data() + s.entry_at + 4, 4);
    sections.push_back(s);
  }
  return sections;
}

// Whether the store has its accelerator that starts a window's replay
// part-way: the live checkpoints of a store of block columns, the live
// counts of a store of events (docs/store-format.md).
bool starts_windows_part_way(const TraceStore& store) {
  const StoreColumns& c = store.columns_but_blocks();
  return c.has_events ? c.has_live_counts : !c.checkpoints.empty();
}

// Whether an accelerator of this kind applies to a store of this form.
bool applies(Section kind, const TraceStore& store) {
  const bool events = store.columns_but_blocks().has_events;
  if (kind == Section::kLiveCheckpoints) return !events;
  if (kind == Section::kLiveCounts) return events;
  return true;
}

class StoreAccelerators : public ::testing::TestWithParam<std::string> {
 protected:
  // The trace's store, written with `accelerators`, live checkpoints every
  // few events (a test hook of the writer's, so that a small trace has them).
  std::string write_store(const std::string& name, std::span<const Accelerator> accelerators) {
    const std::string path = dir_.file(name);
    test::set_environment_variable("HEAPQL_STORE_CHECKPOINT_EVENTS", "3");
    TraceTables tables;
    StoreWriter writer(path, tables, accelerators);
    test::set_environment_variable("HEAPQL_STORE_CHECKPOINT_EVENTS", std::nullopt);
    OpenOptions options;
    options.show_progress = false;
    options.use_store = false;
    SourceRecord record;
    record.info = read_trace(GetParam(), tables, writer.consumer(), options);
    tables.release_indexes();
    writer.commit(record, &Aggregator::build_stack_view);
    return path;
  }

  void SetUp() override {
    full_ = write_store("full.hqdb", kAccelerators);
    const OpenedStore opened = read_store_file(full_);
    const TraceStore& store = *opened.store;
    // The full store has every accelerator, so that leaving one out is seen.
    ASSERT_NE(store.stack_view(), nullptr);
    ASSERT_FALSE(store.columns().bucket_sums.empty());
    ASSERT_TRUE(starts_windows_part_way(store)) << "neither live checkpoints nor live counts";
    queries_ = queries_of(store.columns().end_ns);
    for (const Query& query : queries_) replayed_.push_back(answer(store, query, true));
  }

  // Every query answered from the store as the replay of the full store answers it.
  void expect_replay_answers(const OpenedStore& opened, const std::string& what) {
    for (std::size_t i = 0; i < queries_.size(); ++i) {
      EXPECT_EQ(answer(*opened.store, queries_[i], false), replayed_[i]) << what << ", query " << i;
      EXPECT_EQ(answer(*opened.store, queries_[i], true), replayed_[i]) << what << ", query " << i << " replayed";
    }
  }

  TempDir dir_;
  std::string full_;
  std::vector<Query> queries_;
  std::vector<std::string> replayed_;
};

TEST_P(StoreAccelerators, TheFullStoreAnswersAsItsReplay) {
  expect_replay_answers(read_store_file(full_), "the full store");
}

// A later heapql that changed an accelerator (raised its revision) passes
// this store's over: one at a time, then all three.
TEST_P(StoreAccelerators, AReaderOfAnotherRevisionPassesItOverAndReplays) {
  for (std::size_t changed = 0; changed <= kAccelerators.size(); ++changed) {
    std::vector<Accelerator> known(kAccelerators.begin(), kAccelerators.end());
    for (std::size_t k = 0; k < known.size(); ++k) {
      if (k == changed || changed == kAccelerators.size()) ++known[k].revision;
    }
    ReadOptions options;
    options.accelerators = known;
    const OpenedStore opened = read_store_file(full_, options);
    const std::string what = changed == kAccelerators.size() ? std::string("all changed")
                                                              : std::string(section_name(kAccelerators[changed].kind)) +
                                                                    " changed";
    const auto passed_over = [&](Section kind) {
      return changed == kAccelerators.size() || kAccelerators[changed].kind == kind;
    };
    EXPECT_EQ(opened.store->stack_view() == nullptr, passed_over(Section::kStackView)) << what;
    EXPECT_EQ(opened.store->columns().bucket_sums.empty(), passed_over(Section::kBucketSums)) << what;
    const bool window_accelerator_passed_over = opened.store->columns_but_blocks().has_events
                                                    ? passed_over(Section::kLiveCounts)
                                                    : passed_over(Section::kLiveCheckpoints);
    EXPECT_EQ(!starts_windows_part_way(*opened.store), window_accelerator_passed_over) << what;
    expect_replay_answers(opened, what);
  }
}

// A later heapql that added an accelerator reads this store, which has none of it.
TEST_P(StoreAccelerators, AReaderWithAnAddedAcceleratorReadsAStoreWithoutIt) {
  std::vector<Accelerator> known(kAccelerators.begin(), kAccelerators.end());
  known.push_back({Section(kSectionKinds + 1), 1});
  ReadOptions options;
  options.accelerators = known;
  expect_replay_answers(read_store_file(full_, options), "an added accelerator");
}

// A store written without an accelerator: one at a time, then none at all.
TEST_P(StoreAccelerators, AStoreWithoutAnAcceleratorAnswersAsItsReplay) {
  for (std::size_t left_out = 0; left_out <= kAccelerators.size(); ++left_out) {
    std::vector<Accelerator> written;
    for (std::size_t k = 0; k < kAccelerators.size(); ++k) {
      if (k != left_out && left_out != kAccelerators.size()) written.push_back(kAccelerators[k]);
    }
    const std::string what = left_out == kAccelerators.size()
                                 ? std::string("none written")
                                 : std::string(section_name(kAccelerators[left_out].kind)) + " left out";
    const OpenedStore opened = read_store_file(write_store("partial.hqdb", written), ReadOptions{});
    std::size_t listed = 0, applying = 0;
    for (const StoreSectionInfo& section : opened.info.sections) {
      for (const Accelerator& a : kAccelerators) listed += section.name == section_name(a.kind);
    }
    for (const Accelerator& a : written) applying += applies(a.kind, *opened.store);
    EXPECT_EQ(listed, applying) << what;
    expect_replay_answers(opened, what);
  }
}

// The bucket sums are a packed table (docs/store-format.md, "Packed
// tables"). Crafted with their checksums right, sums whose columns do not
// fit their section, or whose block is wider than 32 bits, refuse the query
// that reads them (a whole-trace answer from them), naming the section; the
// stack view's query and a window's replay, which read none of them, still
// answer.
TEST_P(StoreAccelerators, PackedSumsThatDoNotFitAreRefusedByTheQueryThatReadsThem) {
  const std::string bytes = read_file(full_);
  std::uint64_t at = 0, words = 0, sums = 0;
  for (const TocRow& section : toc_of(bytes)) {
    if (section.kind != static_cast<std::uint32_t>(Section::kBucketSums)) continue;
    std::memcpy(&at, bytes.data() + section.entry_at + 16, 8);
    std::memcpy(&words, bytes.data() + section.entry_at + 24, 8);
    std::memcpy(&sums, bytes.data() + section.entry_at + 32, 8);
    words /= 8;
  }
  ASSERT_GT(words, kBucketSumColumns);
  std::uint64_t first_length = 0;
  std::memcpy(&first_length, bytes.data() + at, 8);
  // The first column: its packed words, then a directory entry per block, then its end.
  const std::uint64_t blocks = PackedColumn::block_count(sums);
  const std::uint64_t packed_words = first_length - blocks - 1;
  const struct {
    const char* what;
    std::uint64_t index;  // the word changed
    std::uint64_t value;
    const char* refusal;
  } crafted[] = {
      {"a column longer than the section", 0, words, "a column's length runs past its bytes"},
      {"a column one word longer", 0, first_length + 1, "its directory's last entry is not the count of its words"},
      // The last block's first word past the end entry's: its width (the
      // end's first word minus its own) wraps to 4294967295.
      {"a block wider than 32 bits", kBucketSumColumns + packed_words + blocks - 1, (packed_words + 1) << 32,
       "bits wide, beyond 32"},
  };
  for (const auto& c : crafted) {
    std::string bad = bytes;
    std::memcpy(bad.data() + at + c.index * 8, &c.value, 8);
    heapql::test::set_store_checksums(bad.data(), bad.size());
    const std::string path = dir_.file("crafted.hqdb");
    write_file(path, bad);
    const OpenedStore opened = read_store_file(path);
    const TraceStore& store = *opened.store;
    EXPECT_EQ(answer(store, queries_[0], false), replayed_[0]) << c.what << ": the stack view's query";
    EXPECT_EQ(answer(store, queries_[4], false), replayed_[4]) << c.what << ": a window";
    try {
      answer(store, queries_[2], false);  // from the sums
      ADD_FAILURE() << c.what << ": the query from the sums answered";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(c.refusal), std::string::npos) << c.what << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find("crafted.hqdb: byte "), std::string::npos) << c.what << ": " << e.what();
    }
  }
}

// A store from a heapql that writes an accelerator this one does not know,
// or a revision of one it does not know: each is passed over, and listed.
TEST_P(StoreAccelerators, AnUnknownAcceleratorInTheFileIsPassedOver) {
  const std::string bytes = read_file(full_);
  for (const TocRow& section : toc_of(bytes)) {
    if (is_fact(section.kind)) continue;
    for (const bool new_kind : {true, false}) {
      std::string other = bytes;
      const std::uint32_t changed = new_kind ? kSectionKinds + 7 : section.revision + 1;
      std::memcpy(other.data() + section.entry_at + (new_kind ? 0 : 4), &changed, 4);
      heapql::test::set_store_checksums(other.data(), other.size());
      const std::string path = dir_.file("other.hqdb");
      write_file(path, other);
      const OpenedStore opened = read_store_file(path);
      const std::string name = new_kind ? "kind " + std::to_string(changed)
                                        : std::string(section_name(Section(section.kind)));
      const std::string listed =
          name + " (revision " + std::to_string(new_kind ? section.revision : changed) + ", not read)";
      bool found = false;
      for (const StoreSectionInfo& s : opened.info.sections) found |= s.name == listed;
      EXPECT_TRUE(found) << listed;
      expect_replay_answers(opened, listed);
    }
  }
}

// The facts have no revision: a fact section with one is a damaged store.
TEST_P(StoreAccelerators, AFactWithARevisionIsRefused) {
  std::string bytes = read_file(full_);
  const TocRow first = toc_of(bytes).front();
  ASSERT_TRUE(is_fact(first.kind));
  const std::uint32_t revision = 1;
  std::memcpy(bytes.data() + first.entry_at + 4, &revision, 4);
  heapql::test::set_store_checksums(bytes.data(), bytes.size());
  const std::string path = dir_.file("fact.hqdb");
  write_file(path, bytes);
  try {
    read_store_file(path);
    FAIL() << "a fact with a revision was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("section '" + std::string(section_name(Section(first.kind))) +
                                         "' has revision 1, and facts have none"),
              std::string::npos)
        << e.what();
  }
}

// A section read by copies (StoreSections::for_each_piece, the checks of
// the stack view and of the stack tree under it) is the section read in
// place: the same bytes in order, each piece aligned for its records, the
// same checksums; a copy that fails partway gives the rest in place; and the
// checksum is of what was read, so damage in the copy is damage.
TEST_P(StoreAccelerators, ASectionReadByCopiesIsTheSectionInPlace) {
  const MappedFile mapped = map_file(full_, "a heapql store");
  if (!mapped.read_at) GTEST_SKIP() << "a store is read in place alone on Windows (mapped_file.h)";
  int reads_left = 0;
  bool flip = false;
  const ReadFileAt failing = [&](std::uint64_t offset, char* to, std::size_t size) {
    if (reads_left-- == 0) return false;
    if (!mapped.read_at(offset, to, size)) return false;
    if (flip) to[size / 2] = static_cast<char>(to[size / 2] ^ 0x01);
    return true;
  };
  for (const int fail_after : {-1, 0, 1, 3}) {
    StoreSections file(mapped.bytes, full_, kAccelerators);
    file.read_by_copy(failing);
    for (std::uint32_t kind = 1; kind <= kSectionKinds; ++kind) {
      if (!file.has(Section(kind))) continue;
      const std::string_view section = file.bytes(Section(kind));
      reads_left = fail_after;
      std::string read;
      file.for_each_piece(section, 4096, [&](std::string_view piece) {
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(piece.data()) % 8, 0u);
        EXPECT_LE(piece.size(), 4096u);
        read.append(piece);
      });
      EXPECT_EQ(read, section) << section_name(Section(kind)) << ", failing after " << fail_after;
      reads_left = fail_after;
      EXPECT_NO_THROW(file.verify(Section(kind))) << section_name(Section(kind));
    }
  }
  StoreSections file(mapped.bytes, full_, kAccelerators);
  file.read_by_copy(failing);
  reads_left = -1;
  flip = true;
  for (std::uint32_t kind = 1; kind <= kSectionKinds; ++kind) {
    if (!file.has(Section(kind)) || file.bytes(Section(kind)).empty()) continue;
    try {
      file.verify(Section(kind));
      ADD_FAILURE() << section_name(Section(kind)) << ": a damaged copy passed";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("is damaged (its checksum does not match)"), std::string::npos) << e.what();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Traces, StoreAccelerators,
                         ::testing::Values(std::string(HEAPQL_TEST_DATA_DIR) + "/worked_example.txt",
                                           std::string(HEAPQL_SOURCE_DIR) + "/examples/traces/memory_test_app.zst"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.index == 0 ? std::string("WorkedExample") : std::string("MemoryTestApp");
                         });

}  // namespace
}  // namespace heapql::store_file
