#include "lua/host/query_from_lua.h"

#include <fmt/format.h>

#include <limits>
#include <string>
#include <vector>

#include "engine/error.h"

namespace heapql::lua {

namespace {

class Fields {
 public:
  Fields(lua_State* L, int index) : L_(L), table_(lua_absindex(L, index)) {
    if (!lua_istable(L, table_)) throw Error("query: expected a table");
  }

  // Pushes field `name`, read raw (no metamethod of the recipe's runs); the
  // caller pops.
  int push(const char* name) const {
    lua_pushstring(L_, name);
    return lua_rawget(L_, table_);
  }

  bool boolean(const char* name, bool fallback) const {
    const int type = push(name);
    bool value = fallback;
    if (type == LUA_TBOOLEAN) {
      value = lua_toboolean(L_, -1);
    } else if (type != LUA_TNIL) {
      lua_pop(L_, 1);
      throw Error(fmt::format("query field '{}': expected a boolean", name));
    }
    lua_pop(L_, 1);
    return value;
  }

  std::optional<std::int64_t> integer(const char* name) const {
    push(name);
    std::optional<std::int64_t> value;
    if (!lua_isnil(L_, -1)) value = integer_at(-1, name);
    lua_pop(L_, 1);
    return value;
  }

  std::optional<std::string> string(const char* name) const {
    const int type = push(name);
    std::optional<std::string> value;
    if (type == LUA_TSTRING) {
      value = lua_tostring(L_, -1);
    } else if (type != LUA_TNIL) {
      lua_pop(L_, 1);
      throw Error(fmt::format("query field '{}': expected a string", name));
    }
    lua_pop(L_, 1);
    return value;
  }

  std::vector<std::string> strings(const char* name) const {
    std::vector<std::string> values;
    const int type = push(name);
    if (type == LUA_TTABLE) {
      const lua_Integer n = static_cast<lua_Integer>(lua_rawlen(L_, -1));
      for (lua_Integer i = 1; i <= n; ++i) {
        if (lua_rawgeti(L_, -1, i) != LUA_TSTRING) {
          lua_pop(L_, 2);
          throw Error(fmt::format("query field '{}': item {} is not a string", name, i));
        }
        values.emplace_back(lua_tostring(L_, -1));
        lua_pop(L_, 1);
      }
    } else if (type != LUA_TNIL) {
      lua_pop(L_, 1);
      throw Error(fmt::format("query field '{}': expected a list of strings", name));
    }
    lua_pop(L_, 1);
    return values;
  }

  std::vector<std::int64_t> integers(const char* name) const {
    std::vector<std::int64_t> values;
    const int type = push(name);
    if (type == LUA_TTABLE) {
      const lua_Integer n = static_cast<lua_Integer>(lua_rawlen(L_, -1));
      for (lua_Integer i = 1; i <= n; ++i) {
        lua_rawgeti(L_, -1, i);
        const std::int64_t value = integer_at(-1, name);
        lua_pop(L_, 1);
        values.push_back(value);
      }
    } else if (type != LUA_TNIL) {
      lua_pop(L_, 1);
      throw Error(fmt::format("query field '{}': expected a list of integers", name));
    }
    lua_pop(L_, 1);
    return values;
  }

  // A {first = n, last = n|nil} range; absent means the whole range.
  std::pair<std::int64_t, std::optional<std::int64_t>> range(const char* name) const {
    std::pair<std::int64_t, std::optional<std::int64_t>> r{0, std::nullopt};
    const int type = push(name);
    if (type == LUA_TTABLE) {
      lua_pushliteral(L_, "first");
      lua_rawget(L_, -2);
      if (!lua_isnil(L_, -1)) r.first = integer_at(-1, name);
      lua_pop(L_, 1);
      lua_pushliteral(L_, "last");
      lua_rawget(L_, -2);
      if (!lua_isnil(L_, -1)) r.second = integer_at(-1, name);
      lua_pop(L_, 1);
    } else if (type != LUA_TNIL) {
      lua_pop(L_, 1);
      throw Error(fmt::format("query field '{}': expected a range table", name));
    }
    lua_pop(L_, 1);
    if (r.first < 0 || (r.second && *r.second < r.first)) {
      throw Error(fmt::format("query field '{}': the range ends before it starts", name));
    }
    return r;
  }

 private:
  std::int64_t integer_at(int index, const char* name) const {
    int is_integer = 0;
    const lua_Integer value = lua_tointegerx(L_, index, &is_integer);
    if (!is_integer) {
      lua_pop(L_, 1);
      throw Error(fmt::format("query field '{}': expected an integer", name));
    }
    return value;
  }

  lua_State* L_;
  int table_;
};

}  // namespace

Query query_from_table(lua_State* L, int index, QueryDoor door) {
  const Fields f(L, index);
  Query q;
  const auto window = f.range("window");
  q.window = TimeWindow{window.first, window.second};
  if (f.boolean("at_peak", false)) q.block_set = BlockSet::kAtPeak;
  const auto size = f.range("size");
  q.size_min = static_cast<std::uint64_t>(size.first);
  if (size.second) q.size_end = static_cast<std::uint64_t>(*size.second);
  f.push("lifetime");
  const bool has_lifetime = !lua_isnil(L, -1);
  lua_pop(L, 1);
  if (has_lifetime) {
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
      throw Error(fmt::format("query field 'kind': '{}' is not heap|virtual", kind));
    }
  }
  for (const std::int64_t id : f.integers("thread")) {
    if (id < 0 || id > std::numeric_limits<std::uint32_t>::max()) throw Error("query field 'thread': ids are 32-bit");
    q.threads.push_back(static_cast<std::uint32_t>(id));
  }
  for (const std::string& type : f.strings("impacting")) {
    const auto t = parse_impacting(type);
    if (!t) throw Error(fmt::format("query field 'impacting': '{}' is not AIFI|AIFO|AOFI|AOFO", type));
    q.impacting.push_back(*t);
  }
  q.temporary_only = f.boolean("temporary", false);
  q.require = f.strings("require");
  q.exclude = f.strings("exclude");
  q.suppressions = f.strings("suppressions");
  q.embedded_suppressions = f.boolean("embedded_suppressions", false);
  q.cull = f.strings("cull");
  for (const char* files : {"cull_files", "suppression_files"}) {
    f.push(files);
    const bool named = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (named && door != QueryDoor::kCommandLine) {
      throw Error(fmt::format("query field '{}': only the command line names files (a recipe reads its own)", files));
    }
  }
  q.cull_files = f.strings("cull_files");
  q.suppression_files = f.strings("suppression_files");
  q.default_cull = f.boolean("default_cull", true);
  q.cull_origin = f.string("cull_origin").value_or("");
  q.by.clear();
  for (const std::string& level : f.strings("by")) {
    const auto g = level == "custom" ? std::optional<GroupBy>(GroupBy::kCustom) : parse_group_by(level);
    if (!g) throw Error(fmt::format("query field 'by': '{}' is not a grouping", level));
    q.by.push_back(*g);
  }
  if (const auto sort = f.string("sort")) {
    const auto m = parse_measure(*sort);
    if (!m) throw Error(fmt::format("query field 'sort': '{}' is not so|soc|st|stc|src", *sort));
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
  return q;
}

}  // namespace heapql::lua
