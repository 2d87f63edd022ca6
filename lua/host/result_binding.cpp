// The Result userdata: rows, totals, peak and series as Lua tables, and the
// report writers (table, JSON, CSV, stack tree) on the engine's own code, so
// a recipe's JSON is byte for byte what `heapql query` prints.
#include <fmt/format.h>

#include "engine/error.h"
#include "engine/report/reports.h"
#include "engine/report/stack_tree.h"
#include "lua/host/heapql_core.h"
#include "lua/host/lua_error.h"
#include "lua/host/lua_strings.h"

namespace heapql::lua {

namespace {

constexpr const char* kResultMeta = "heapql.Result";

struct ResultBox {
  Result result;
  SourceInfo source;
  std::shared_ptr<TraceHandle> trace;
};

ResultBox& check_result(lua_State* L, int index) {
  auto* box = static_cast<ResultBox*>(luaL_testudata(L, index, kResultMeta));
  if (box == nullptr) throw Error("expected a query result as the receiver: write result:rows()");
  return *box;
}

int result_gc(lua_State* L) {
  auto* box = static_cast<ResultBox*>(luaL_testudata(L, 1, kResultMeta));
  if (box != nullptr) box->~ResultBox();
  return 0;
}

void set_integer(lua_State* L, const char* name, std::int64_t value) {
  lua_pushinteger(L, value);
  lua_setfield(L, -2, name);
}

void push_measures(lua_State* L, const Result& r, const Measures& m) {
  lua_createtable(L, 0, 9);
  set_integer(L, "so", static_cast<std::int64_t>(m.so));
  set_integer(L, "soc", static_cast<std::int64_t>(m.soc));
  set_integer(L, "st", static_cast<std::int64_t>(m.st));
  set_integer(L, "stc", static_cast<std::int64_t>(m.stc));
  if (r.realloc_known) set_integer(L, "src", static_cast<std::int64_t>(m.src));
  if (r.impacting_measures) {
    set_integer(L, "count", static_cast<std::int64_t>(m.count));
    set_integer(L, "size", static_cast<std::int64_t>(m.size));
    set_integer(L, "impacting", m.impacting);
  }
}

// A row: its measures, `key` (one value per level: text, or a frames list for
// a stack) and each level by name (row.process, row.stack, ...).
int result_rows(lua_State* L) {
  return protected_call(L, [&] {
    const ResultBox& box = check_result(L, 1);
    const Result& r = box.result;
    lua_createtable(L, static_cast<int>(r.rows.size()), 0);
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
      const Row& row = r.rows[i];
      push_measures(L, r, row.measures);
      lua_createtable(L, static_cast<int>(row.key.size()), 0);
      for (std::size_t level = 0; level < row.key.size(); ++level) {
        const KeyValue& k = row.key[level];
        if (k.level == GroupBy::kStack) {
          push_string_array(L, k.frames);
        } else {
          lua_pushlstring(L, k.text.data(), k.text.size());
        }
        lua_pushvalue(L, -1);
        // row.impacting is the impacting-size measure; the level is impacting_type.
        const std::string field = k.level == GroupBy::kImpacting ? "impacting_type" : std::string(group_by_name(k.level));
        lua_setfield(L, -4, field.c_str());
        lua_rawseti(L, -2, static_cast<lua_Integer>(level + 1));
      }
      lua_setfield(L, -2, "key");
      lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
    }
    return 1;
  });
}

int result_totals(lua_State* L) {
  return protected_call(L, [&] {
    const ResultBox& box = check_result(L, 1);
    push_measures(L, box.result, box.result.totals);
    return 1;
  });
}

int result_other(lua_State* L) {
  return protected_call(L, [&] {
    const ResultBox& box = check_result(L, 1);
    if (!box.result.other) {
      lua_pushnil(L);
      return 1;
    }
    push_measures(L, box.result, *box.result.other);
    set_integer(L, "rows", static_cast<std::int64_t>(box.result.other_rows));
    return 1;
  });
}

int result_peak(lua_State* L) {
  return protected_call(L, [&] {
    const Peak& p = check_result(L, 1).result.peak;
    lua_createtable(L, 0, 3);
    set_integer(L, "bytes", static_cast<std::int64_t>(p.bytes));
    set_integer(L, "blocks", static_cast<std::int64_t>(p.blocks));
    set_integer(L, "time_ns", p.time_ns);
    return 1;
  });
}

int result_series(lua_State* L) {
  return protected_call(L, [&] {
    const ResultBox& box = check_result(L, 1);
    if (!box.result.series) {
      lua_pushnil(L);
      return 1;
    }
    const Series& s = *box.result.series;
    lua_createtable(L, 0, 3);
    set_integer(L, "start_ns", s.start_ns);
    set_integer(L, "bucket_ns", s.bucket_ns);
    lua_createtable(L, static_cast<int>(s.max_bytes.size()), 0);
    for (std::size_t i = 0; i < s.max_bytes.size(); ++i) {
      lua_pushinteger(L, static_cast<lua_Integer>(s.max_bytes[i]));
      lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
    }
    lua_setfield(L, -2, "max_bytes");
    return 1;
  });
}

// What was asked and what the source could say.
int result_info(lua_State* L) {
  return protected_call(L, [&] {
    const ResultBox& box = check_result(L, 1);
    const Result& r = box.result;
    lua_createtable(L, 0, 12);
    lua_createtable(L, static_cast<int>(r.query.by.size()), 0);
    for (std::size_t i = 0; i < r.query.by.size(); ++i) {
      lua_pushstring(L, std::string(group_by_name(r.query.by[i])).c_str());
      lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
    }
    lua_setfield(L, -2, "by");
    lua_pushstring(L, std::string(measure_name(r.query.sort)).c_str());
    lua_setfield(L, -2, "sort");
    set_integer(L, "top", static_cast<std::int64_t>(std::min<std::uint64_t>(r.query.top, INT64_MAX)));
    set_integer(L, "window_start_ns", r.query.window.begin_ns);
    if (r.query.window.end_ns) set_integer(L, "window_end_ns", *r.query.window.end_ns);
    set_integer(L, "trace_end_ns", r.trace_end_ns);
    lua_pushboolean(L, r.realloc_known);
    lua_setfield(L, -2, "realloc_known");
    lua_pushboolean(L, r.impacting_measures);
    lua_setfield(L, -2, "impacting_measures");
    lua_pushstring(L, std::string(block_identity_name(box.source.block_identity)).c_str());
    lua_setfield(L, -2, "block_identity");
    lua_pushstring(L, box.source.path.c_str());
    lua_setfield(L, -2, "trace");
    set_integer(L, "excluded_blocks", static_cast<std::int64_t>(r.excluded_blocks));
    set_integer(L, "excluded_bytes", static_cast<std::int64_t>(r.excluded_bytes));
    set_integer(L, "temporary_blocks", static_cast<std::int64_t>(r.temporary_blocks));
    return 1;
  });
}

int result_json(lua_State* L) {
  return protected_call(L, [&] {
    const ResultBox& box = check_result(L, 1);
    const std::string text = result_json(box.result, box.source);
    lua_pushlstring(L, text.data(), text.size());
    return 1;
  });
}

int result_table(lua_State* L) {
  return protected_call(L, [&] {
    const ResultBox& box = check_result(L, 1);
    const std::string text = result_table(box.result, box.source);
    lua_pushlstring(L, text.data(), text.size());
    return 1;
  });
}

int result_csv(lua_State* L) {
  return protected_call(L, [&] {
    const std::string text = result_csv(check_result(L, 1).result);
    lua_pushlstring(L, text.data(), text.size());
    return 1;
  });
}

TreeOptions tree_options(lua_State* L, int index, const Result& r) {
  TreeOptions o;
  o.measure = r.query.sort;
  if (lua_isnoneornil(L, index)) return o;
  if (!lua_istable(L, index)) throw Error("tree options: expected a table");
  lua_getfield(L, index, "direction");
  if (!lua_isnil(L, -1)) {
    const std::string d = lua_isstring(L, -1) ? lua_tostring(L, -1) : "";
    if (d == "top-down") {
      o.direction = TreeDirection::kTopDown;
    } else if (d == "bottom-up") {
      o.direction = TreeDirection::kBottomUp;
    } else {
      lua_pop(L, 1);
      throw Error("tree option 'direction': expected top-down|bottom-up");
    }
  }
  lua_pop(L, 1);
  lua_getfield(L, index, "measure");
  if (!lua_isnil(L, -1)) {
    const auto m = lua_isstring(L, -1) ? parse_measure(lua_tostring(L, -1)) : std::nullopt;
    lua_pop(L, 1);
    if (!m) throw Error("tree option 'measure': expected so|soc|st|stc|src");
    o.measure = *m;
  } else {
    lua_pop(L, 1);
  }
  lua_getfield(L, index, "threshold");
  if (!lua_isnil(L, -1)) {
    int ok = 0;
    const lua_Number t = lua_tonumberx(L, -1, &ok);
    lua_pop(L, 1);
    if (!ok || t < 0 || t > 1) throw Error("tree option 'threshold': expected a fraction from 0 to 1");
    o.threshold = t;
  } else {
    lua_pop(L, 1);
  }
  lua_getfield(L, index, "depth");
  if (!lua_isnil(L, -1)) {
    int ok = 0;
    const lua_Integer d = lua_tointegerx(L, -1, &ok);
    lua_pop(L, 1);
    if (!ok || d < 0 || d > 100000) throw Error("tree option 'depth': expected a whole number (0 = unlimited)");
    o.max_depth = static_cast<std::uint32_t>(d);
  } else {
    lua_pop(L, 1);
  }
  return o;
}

void push_tree_node(lua_State* L, const Result& r, const TreeNode& node) {
  lua_createtable(L, 0, 5);
  lua_pushlstring(L, node.label.data(), node.label.size());
  lua_setfield(L, -2, "label");
  push_measures(L, r, node.inclusive);
  lua_setfield(L, -2, "inclusive");
  push_measures(L, r, node.self);
  lua_setfield(L, -2, "self");
  set_integer(L, "pruned", static_cast<std::int64_t>(node.pruned_children));
  lua_createtable(L, static_cast<int>(node.children.size()), 0);
  for (std::size_t i = 0; i < node.children.size(); ++i) {
    push_tree_node(L, r, node.children[i]);
    lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
  }
  lua_setfield(L, -2, "children");
}

int result_tree(lua_State* L) {
  return protected_call(L, [&] {
    const ResultBox& box = check_result(L, 1);
    const TreeOptions options = tree_options(L, 2, box.result);
    const TreeNode root = build_stack_tree(box.result, options);
    push_tree_node(L, box.result, root);
    return 1;
  });
}

int result_tree_text(lua_State* L) {
  return protected_call(L, [&] {
    const ResultBox& box = check_result(L, 1);
    const TreeOptions options = tree_options(L, 2, box.result);
    const std::string text = stack_tree_text(build_stack_tree(box.result, options), box.result, options);
    lua_pushlstring(L, text.data(), text.size());
    return 1;
  });
}

int result_tree_json(lua_State* L) {
  return protected_call(L, [&] {
    const ResultBox& box = check_result(L, 1);
    const TreeOptions options = tree_options(L, 2, box.result);
    const std::string text = stack_tree_json(build_stack_tree(box.result, options), box.result);
    lua_pushlstring(L, text.data(), text.size());
    return 1;
  });
}

// result:with_columns(names, values): a copy with derived columns, values[i]
// being the list of strings for row i.
int result_with_columns(lua_State* L) {
  return protected_call(L, [&] {
    const ResultBox& box = check_result(L, 1);
    if (!lua_istable(L, 2) || !lua_istable(L, 3)) throw Error("with_columns(names, values): expected two tables");
    Result copy = box.result;
    const auto names = static_cast<lua_Integer>(lua_rawlen(L, 2));
    for (lua_Integer i = 1; i <= names; ++i) {
      lua_rawgeti(L, 2, i);
      if (!lua_isstring(L, -1)) {
        lua_pop(L, 1);
        throw Error("with_columns: column names must be strings");
      }
      copy.derived_columns.emplace_back(lua_tostring(L, -1));
      lua_pop(L, 1);
    }
    for (std::size_t row = 0; row < copy.rows.size(); ++row) {
      lua_rawgeti(L, 3, static_cast<lua_Integer>(row + 1));
      for (lua_Integer i = 1; i <= names; ++i) {
        lua_rawgeti(L, -1, i);
        copy.rows[row].derived.emplace_back(lua_isstring(L, -1) ? lua_tostring(L, -1) : "");
        lua_pop(L, 1);
      }
      lua_pop(L, 1);
    }
    push_result(L, std::move(copy), box.source, box.trace);
    return 1;
  });
}

int result_trace(lua_State* L) {
  return protected_call(L, [&] {
    const ResultBox& box = check_result(L, 1);
    if (!box.trace) throw Error("this result has no trace to query again");
    push_trace(L, box.trace);
    return 1;
  });
}

}  // namespace

void push_result(lua_State* L, Result result, SourceInfo source, std::shared_ptr<TraceHandle> trace) {
  void* memory = lua_newuserdatauv(L, sizeof(ResultBox), 0);
  new (memory) ResultBox{std::move(result), std::move(source), std::move(trace)};
  if (luaL_newmetatable(L, kResultMeta)) {
    lua_pushcfunction(L, result_gc);
    lua_setfield(L, -2, "__gc");
    const luaL_Reg methods[] = {{"rows", result_rows},
                                {"totals", result_totals},
                                {"other", result_other},
                                {"peak", result_peak},
                                {"series", result_series},
                                {"info", result_info},
                                {"json", result_json},
                                {"table", result_table},
                                {"csv", result_csv},
                                {"tree", result_tree},
                                {"tree_text", result_tree_text},
                                {"tree_json", result_tree_json},
                                {"with_columns", result_with_columns},
                                {"trace", result_trace},
                                {nullptr, nullptr}};
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "__index");
    lua_pushstring(L, "heapql.Result");
    lua_setfield(L, -2, "__name");
  }
  lua_setmetatable(L, -2);
}

}  // namespace heapql::lua
