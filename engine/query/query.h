// A query as plain, validated data (semantics.md §2-§8). The CLI, the tests
// and recipes (through lua/host/query_from_lua.cpp) all build this one
// struct; one aggregator answers it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/store/trace_tables.h"

namespace heapql {

// The five xperf measures (§3), then kImpacting: WPA's impacting size (§7),
// a sort key only, ranking rows by its magnitude (the biggest change either
// way first); only a query that uses impacting types has it (validate).
enum class Measure { kSo, kSoc, kSt, kStc, kSrc, kImpacting };
// kCustom: a key that a recipe computes from each row's culled stack (see
// regroup.h); the aggregator itself never groups by it.
enum class GroupBy { kStack, kFrame, kImage, kProcess, kHeap, kKind, kThread, kImpacting, kCustom };
enum class Impacting : std::uint8_t { kAifi = 0, kAifo = 1, kAofi = 2, kAofo = 3 };
// Which blocks a query looks at: those allocated in the window (xperf), or
// those alive at the peak (semantics.md §8, peak consumers).
enum class BlockSet { kWindow, kAtPeak };

std::string_view measure_name(Measure m);
std::string_view group_by_name(GroupBy g);
std::string_view impacting_name(Impacting t);
std::optional<Measure> parse_measure(std::string_view text);
std::optional<GroupBy> parse_group_by(std::string_view text);
std::optional<Impacting> parse_impacting(std::string_view text);

struct TimeWindow {
  std::int64_t begin_ns = 0;
  std::optional<std::int64_t> end_ns;  // none = open (+inf)
};

struct Query {
  TimeWindow window;
  BlockSet block_set = BlockSet::kWindow;

  // Filters (§4). Empty lists mean "no filter".
  std::uint64_t size_min = 0;
  std::optional<std::uint64_t> size_end;  // exclusive
  std::optional<std::int64_t> lifetime_min_ns;
  std::optional<std::int64_t> lifetime_end_ns;  // exclusive
  std::vector<std::string> processes;  // pid (decimal) or name, case-insensitive
  std::vector<std::string> heaps;      // handle (0x.. or decimal) or name
  std::vector<BlockKind> kinds;
  std::vector<std::uint32_t> threads;
  std::vector<Impacting> impacting;  // non-empty: only blocks of these types (WPA set, §7)
  bool temporary_only = false;       // only temporary blocks (§8)

  // Frame patterns (§5, §6).
  std::vector<std::string> require;
  std::vector<std::string> cull;
  std::vector<std::string> cull_files;
  bool default_cull = true;
  // How a recipe's pattern set of cull patterns was made ("defaults +
  // shipped stl + 2 patterns"): what reports show instead of its patterns
  // and default_cull. Empty when cull and default_cull are options.
  std::string cull_origin;
  // Exclusion and suppressions (§11): frame patterns whose match drops a
  // block, LSan patterns and files of them, and the trace's own.
  std::vector<std::string> exclude;
  std::vector<std::string> suppressions;
  std::vector<std::string> suppression_files;
  bool embedded_suppressions = false;

  // Grouping and output (§6).
  std::vector<GroupBy> by;  // empty = totals only
  Measure sort = Measure::kSo;
  std::uint64_t top = 10000;
  bool totals_only = false;

  // Outstanding size over time (§8): at most this many buckets, 0 = none.
  std::uint32_t series_buckets = 0;

  // The drill-down (row_detail.h): row N (1-based, as listed) described by
  // its blocks' full stacks, sizes and lifetimes. None: no detail.
  std::optional<std::uint64_t> detail;

  // True when the query works on WPA's set of blocks (§7).
  bool uses_impacting() const;
};

// The most buckets a series may have (query schema: series).
inline constexpr std::uint32_t kMaxSeriesBuckets = 100000;

// Rejects combinations that cannot mean anything (an inverted window, the
// blocks alive at the peak asked for a property of their future): Error
// naming the options.
void validate(const Query& query);

}  // namespace heapql
