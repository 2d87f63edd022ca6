// The Result userdata: rows, totals, peak and series as Lua tables, and the
// report writers (table, JSON, CSV, stack tree) on the engine's own code, so
// a recipe's JSON is byte for byte what `heapql query` prints.
#include <fmt/format.h>

#include "engine/error.h"
#include "engine/report/reports.h"
#include "engine/report/stack_tree.h"
#include "lua/host/heapql_core.h"
#include "lua/host/lua_class.h"
#include "lua/host/lua_error.h"
#include "lua/host/lua_fields.h"
#include "lua/host/lua_strings.h"
#include "lua/host/row_tables.h"
#include "lua/host/run_context.h"

namespace heapql::lua {

namespace {

struct ResultBox {
  std::shared_ptr<const Result> result;
  SourceInfo source;
  std::shared_ptr<TraceHandle> trace;
};

const LuaClass<ResultBox>& result_class();

ResultBox& check_result(lua_State* L, int index) {
  return result_class().check(L, index, "the receiver (write result:rows())");
}

void set_integer(lua_State* L, const char* name, std::int64_t value) {
  lua_pushinteger(L, value);
  lua_setfield(L, -2, name);
}

void push_measures(lua_State* L, const Result& r, const Measures& m) {
  push_measures_table(L, m, r.realloc_known, r.impacting_measures);
}

// A row: its measures, `key` (one value per level: text, or a frames list for
// a stack) and each level by name (row.process, row.stack, ...).
void push_result_row(lua_State* L, const Result& r, const Row& row, int frame_cache) {
  push_measures(L, r, row.measures);
  set_key_fields(L, row.key, frame_cache);
}

int result_rows(lua_State* L) {
  return protected_call(L, [&] {
    const Result& r = *check_result(L, 1).result;
    push_row_array(L, r.rows, [&](const Row& row, int frame_cache) { push_result_row(L, r, row, frame_cache); });
    return 1;
  });
}

int result_each_next(lua_State* L) {
  return protected_call(L, [&] {
    const Result& r = *result_class().check(L, row_iterator_receiver(), "the iterator's result").result;
    return push_next_row(L, r.rows, [&](const Row& row, int frame_cache) { push_result_row(L, r, row, frame_cache); });
  });
}

int result_each(lua_State* L) {
  return protected_call(L, [&] {
    check_result(L, 1);
    push_row_iterator(L, result_each_next);
    return 1;
  });
}

int result_totals(lua_State* L) {
  return protected_call(L, [&] {
    const ResultBox& box = check_result(L, 1);
    push_measures(L, *box.result, box.result->totals);
    return 1;
  });
}

int result_other(lua_State* L) {
  return protected_call(L, [&] {
    const ResultBox& box = check_result(L, 1);
    if (!box.result->other) {
      lua_pushnil(L);
      return 1;
    }
    push_measures(L, *box.result, *box.result->other);
    set_integer(L, "rows", static_cast<std::int64_t>(box.result->other_rows));
    return 1;
  });
}

int result_peak(lua_State* L) {
  return protected_call(L, [&] {
    const Peak& p = check_result(L, 1).result->peak;
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
    if (!box.result->series) {
      lua_pushnil(L);
      return 1;
    }
    const Series& s = *box.result->series;
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
    const Result& r = *box.result;
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
    const std::string text = result_json(*box.result, box.source);
    lua_pushlstring(L, text.data(), text.size());
    return 1;
  });
}

int result_table(lua_State* L) {
  return protected_call(L, [&] {
    const ResultBox& box = check_result(L, 1);
    const std::string text = result_table(*box.result, box.source, run_context(L).display);
    lua_pushlstring(L, text.data(), text.size());
    return 1;
  });
}

int result_html(lua_State* L) {
  return protected_call(L, [&] {
    const ResultBox& box = check_result(L, 1);
    const std::string text = result_html(*box.result, box.source, run_context(L).display);
    lua_pushlstring(L, text.data(), text.size());
    return 1;
  });
}

int result_csv(lua_State* L) {
  return protected_call(L, [&] {
    const std::string text = result_csv(*check_result(L, 1).result);
    lua_pushlstring(L, text.data(), text.size());
    return 1;
  });
}

std::optional<TreeDirection> parse_direction(std::string_view text) {
  if (text == "top-down") return TreeDirection::kTopDown;
  if (text == "bottom-up") return TreeDirection::kBottomUp;
  return std::nullopt;
}

TreeOptions tree_options(lua_State* L, int index, const Result& r) {
  TreeOptions o;
  // A tree weighs by a measure that is never negative: a result ranked by
  // impacting size is drawn by so (its AIFO bytes).
  o.measure = r.query.sort == Measure::kImpacting ? Measure::kSo : r.query.sort;
  const std::optional<Fields> f = Fields::optional(L, index, "tree option");
  if (!f) return o;
  if (const auto direction = f->parsed("direction", parse_direction, "expected top-down|bottom-up")) {
    o.direction = *direction;
  }
  if (const auto measure = f->parsed("measure", parse_measure, "expected so|soc|st|stc|src")) o.measure = *measure;
  if (const auto threshold = f->number("threshold", 0, 1, "expected a fraction from 0 to 1")) o.threshold = *threshold;
  if (const auto depth = f->integer("depth", 0, 100000, "expected a whole number (0 = unlimited)")) {
    o.max_depth = static_cast<std::uint32_t>(*depth);
  }
  return o;
}

// One node's table without its children: label, inclusive, self, pruned,
// and an empty children list.
void push_tree_node_fields(lua_State* L, const Result& r, const TreeNode& node) {
  lua_createtable(L, 0, 5);
  lua_pushlstring(L, node.label.data(), node.label.size());
  lua_setfield(L, -2, "label");
  push_measures(L, r, node.inclusive);
  lua_setfield(L, -2, "inclusive");
  push_measures(L, r, node.self);
  lua_setfield(L, -2, "self");
  set_integer(L, "pruned", static_cast<std::int64_t>(node.pruned_children));
  lua_createtable(L, static_cast<int>(node.children.size()), 0);
  lua_setfield(L, -2, "children");
}

// The tree as nested tables, however deep: the path from the root to the
// node being filled is kept in a Lua table, not on the C or Lua stack.
void push_tree(lua_State* L, const Result& r, const TreeNode& root) {
  if (!lua_checkstack(L, 8)) throw Error("tree: out of Lua stack");
  push_tree_node_fields(L, r, root);
  const int result = lua_gettop(L);
  lua_createtable(L, 64, 0);  // path[d] = the children list of the node at depth d
  const int path = lua_gettop(L);
  struct Step {
    const TreeNode* node;
    std::size_t next_child;
  };
  std::vector<Step> steps{{&root, 0}};
  lua_getfield(L, result, "children");
  lua_rawseti(L, path, 1);
  while (!steps.empty()) {
    Step& step = steps.back();
    if (step.next_child == step.node->children.size()) {
      steps.pop_back();
      continue;
    }
    const TreeNode& child = step.node->children[step.next_child++];
    const auto depth = static_cast<lua_Integer>(steps.size());
    lua_rawgeti(L, path, depth);  // the parent's children list
    push_tree_node_fields(L, r, child);
    lua_getfield(L, -1, "children");
    lua_rawseti(L, path, depth + 1);
    lua_rawseti(L, -2, static_cast<lua_Integer>(step.next_child));
    lua_pop(L, 1);
    steps.push_back(Step{&child, 0});
  }
  lua_settop(L, result);
}

int result_tree(lua_State* L) {
  return protected_call(L, [&] {
    const ResultBox& box = check_result(L, 1);
    const TreeOptions options = tree_options(L, 2, *box.result);
    const TreeNode root = build_stack_tree(*box.result, options);
    push_tree(L, *box.result, root);
    return 1;
  });
}

int result_tree_text(lua_State* L) {
  return protected_call(L, [&] {
    const ResultBox& box = check_result(L, 1);
    const TreeOptions options = tree_options(L, 2, *box.result);
    const std::string text = stack_tree_text(build_stack_tree(*box.result, options), *box.result, options);
    lua_pushlstring(L, text.data(), text.size());
    return 1;
  });
}

int result_tree_json(lua_State* L) {
  return protected_call(L, [&] {
    const ResultBox& box = check_result(L, 1);
    const TreeOptions options = tree_options(L, 2, *box.result);
    const std::string text = stack_tree_json(build_stack_tree(*box.result, options), *box.result);
    lua_pushlstring(L, text.data(), text.size());
    return 1;
  });
}

// result:with_columns(names, values): a copy with derived columns, values[i]
// being the list of strings (or numbers) for row i.
int result_with_columns(lua_State* L) {
  return protected_call(L, [&] {
    const ResultBox& box = check_result(L, 1);
    const Arguments args(L, "result:with_columns");
    args.table(2, "names");
    args.table(3, "values");
    Result copy = *box.result;
    const auto names = static_cast<lua_Integer>(lua_rawlen(L, 2));
    for (lua_Integer i = 1; i <= names; ++i) {
      if (lua_rawgeti(L, 2, i) != LUA_TSTRING)
        throw Error(fmt::format("with_columns: column name {} is not a string", i));
      copy.derived_columns.emplace_back(lua_tostring(L, -1));
      lua_pop(L, 1);
    }
    for (std::size_t row = 0; row < copy.rows.size(); ++row) {
      const auto row_number = static_cast<lua_Integer>(row + 1);
      const int type = lua_rawgeti(L, 3, row_number);
      if (type != LUA_TTABLE && type != LUA_TNIL) {
        throw Error(fmt::format("with_columns: values[{}] must be a list of cells, got a {}", row_number,
                                lua_typename(L, type)));
      }
      for (lua_Integer i = 1; i <= names; ++i) {
        std::string cell;
        if (type == LUA_TTABLE) {
          const int cell_type = lua_rawgeti(L, -1, i);
          if (cell_type == LUA_TSTRING || cell_type == LUA_TNUMBER) {
            std::size_t length = 0;
            const char* text = lua_tolstring(L, -1, &length);  // a number is converted on the copy
            cell.assign(text, length);
          } else if (cell_type != LUA_TNIL) {
            throw Error(fmt::format("with_columns: values[{}][{}] must be a string or a number, got a {}", row_number,
                                    i, lua_typename(L, cell_type)));
          }
          lua_pop(L, 1);
        }
        copy.rows[row].derived.push_back(std::move(cell));
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

namespace {

const LuaMethod kResultMethods[] = {
    {"rows", result_rows,
     "The shown rows in order (at most `top`): each with the measures, `key` (one entry per `by` level, outermost "
     "first: text, or for `stack` the list of frames, top first) and each level by its name (row.stack, row.process, "
     "...; a `by` function's level is row.custom)."},
    {"each", result_each,
     "An iterator over the rows of rows(), one table at a time: `for i, row in result:each() do`. Use it over many "
     "rows: rows() makes them all at once."},
    {"totals", result_totals, "The measures of every counted block: the rows plus other."},
    {"other", result_other, "The rows beyond `top`, summed (with `rows`, how many), or nil when none were cut."},
    {"peak", result_peak, "The peak of outstanding size inside the window (docs/semantics.md §8)."},
    {"series", result_series, "Outstanding size over time, when the query asked for `series`; nil otherwise."},
    {"info", result_info, "What was asked and what the source could tell."},
    {"json", result_json,
     "The JSON `heapql query --format json` prints, byte for byte (docs/json.md); derived columns are under each row's "
     "`derived`."},
    {"table", result_table, "The text table `heapql query` prints."},
    {"csv", result_csv, "The CSV `heapql query --format csv` prints, derived columns last."},
    {"html", result_html,
     "The offline HTML page `heapql query --format html` prints (docs/reports.md): the result's JSON, pruned to stay "
     "small, with a chart, a flame graph and the rows."},
    {"tree", result_tree, "The stack tree (rows merged by frame, from the root `[total]`) as nested tables."},
    {"tree_text", result_tree_text, "The stack tree as indented text."},
    {"tree_json", result_tree_json, "The stack tree as JSON."},
    {"with_columns", result_with_columns,
     "A copy with derived columns given as text: values[i] holds row i's cells. hq.with_columns computes them from "
     "functions and is usually what a recipe wants."},
    {"trace", result_trace, "The trace the result came from, to query it again."},
};

const LuaClass<ResultBox>& result_class() {
  static const LuaClass<ResultBox> result_class("heapql.Result", kResultMethods);
  return result_class;
}

}  // namespace

void push_measures_table(lua_State* L, const Measures& m, bool realloc_known, bool impacting) {
  lua_createtable(L, 0, 9);
  set_integer(L, "so", static_cast<std::int64_t>(m.so));
  set_integer(L, "soc", static_cast<std::int64_t>(m.soc));
  set_integer(L, "st", static_cast<std::int64_t>(m.st));
  set_integer(L, "stc", static_cast<std::int64_t>(m.stc));
  if (realloc_known) set_integer(L, "src", static_cast<std::int64_t>(m.src));
  if (impacting) {
    set_integer(L, "count", static_cast<std::int64_t>(m.count));
    set_integer(L, "size", static_cast<std::int64_t>(m.size));
    set_integer(L, "impacting", m.impacting);
  }
}

void set_key_fields(lua_State* L, const std::vector<KeyValue>& key, int frame_cache) {
  lua_createtable(L, static_cast<int>(key.size()), 0);
  for (std::size_t level = 0; level < key.size(); ++level) {
    const KeyValue& k = key[level];
    if (k.level == GroupBy::kStack) {
      push_stack_frames(L, k.frames, frame_cache);
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
}

ResultRef check_result_ref(lua_State* L, int index, const char* role) {
  const ResultBox& box = result_class().check(L, index, role);
  return ResultRef{box.result, &box.source, box.trace};
}

void push_result(lua_State* L, Result result, SourceInfo source, std::shared_ptr<TraceHandle> trace) {
  result_class().push(
      L, ResultBox{std::make_shared<const Result>(std::move(result)), std::move(source), std::move(trace)});
}

}  // namespace heapql::lua
