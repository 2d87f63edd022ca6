#include "lua/host/query_from_lua.h"

#include <fmt/format.h>

#include <limits>
#include <string>
#include <vector>

#include "engine/error.h"
#include "lua/host/lua_fields.h"

namespace heapql::lua {

Query query_from_table(lua_State* L, int index, QueryDoor door) {
  const Fields f(L, index, "query field");
  Query q;
  const auto window = f.range("window");
  q.window = TimeWindow{window.first, window.second};
  if (f.boolean("at_peak", false)) q.block_set = BlockSet::kAtPeak;
  const auto size = f.range("size");
  q.size_min = static_cast<std::uint64_t>(size.first);
  if (size.second) q.size_end = static_cast<std::uint64_t>(*size.second);
  if (f.has("lifetime")) {
    const auto lifetime = f.range("lifetime");
    q.lifetime_min_ns = lifetime.first;
    q.lifetime_end_ns = lifetime.second;
  }
  q.processes = f.strings("process");
  q.heaps = f.strings("heap");
  for (const std::string& kind : f.strings("kind")) {
    if (kind == "heap") {
      q.kinds.push_back(BlockKind::kHeap);
    } else if (kind == "virtual") {
      q.kinds.push_back(BlockKind::kVirtual);
    } else {
      throw f.refused("kind", fmt::format("'{}' is not heap|virtual", kind));
    }
  }
  for (const std::int64_t id : f.integers("thread")) {
    if (id < 0 || id > std::numeric_limits<std::uint32_t>::max()) throw f.refused("thread", "ids are 32-bit");
    q.threads.push_back(static_cast<std::uint32_t>(id));
  }
  for (const std::string& type : f.strings("impacting")) {
    const auto t = parse_impacting(type);
    if (!t) throw f.refused("impacting", fmt::format("'{}' is not AIFI|AIFO|AOFI|AOFO", type));
    q.impacting.push_back(*t);
  }
  q.temporary_only = f.boolean("temporary", false);
  q.require = f.strings("require");
  q.exclude = f.strings("exclude");
  q.suppressions = f.strings("suppressions");
  q.embedded_suppressions = f.boolean("embedded_suppressions", false);
  q.cull = f.strings("cull");
  for (const char* files : {"cull_files", "suppression_files"}) {
    if (f.has(files) && door != QueryDoor::kCommandLine) {
      throw f.refused(files, "only the command line names files (a recipe reads its own)");
    }
  }
  q.cull_files = f.strings("cull_files");
  q.suppression_files = f.strings("suppression_files");
  q.default_cull = f.boolean("default_cull", true);
  q.cull_origin = f.string("cull_origin").value_or("");
  q.by.clear();
  for (const std::string& level : f.strings("by")) {
    const auto g = level == "custom" ? std::optional<GroupBy>(GroupBy::kCustom) : parse_group_by(level);
    if (!g) throw f.refused("by", fmt::format("'{}' is not a grouping", level));
    q.by.push_back(*g);
  }
  if (const auto sort = f.string("sort")) {
    const auto m = parse_measure(*sort);
    if (!m) throw f.refused("sort", fmt::format("'{}' is not so|soc|st|stc|src", *sort));
    q.sort = *m;
  }
  // Values are copied as they are: Query::validate (the engine's guard of
  // what the schema allows) refuses what the schema would have.
  if (const auto top = f.integer("top")) q.top = *top < 0 ? 0 : static_cast<std::uint64_t>(*top);
  q.totals_only = f.boolean("totals", false);
  if (q.totals_only) q.by.clear();
  if (const auto series = f.integer("series")) {
    const bool in_range = *series >= 0 && *series <= kMaxSeriesBuckets;
    q.series_buckets = in_range ? static_cast<std::uint32_t>(*series) : kMaxSeriesBuckets + 1;
  }
  if (const auto detail = f.integer("detail")) q.detail = *detail < 1 ? 0 : static_cast<std::uint64_t>(*detail);
  return q;
}

}  // namespace heapql::lua
