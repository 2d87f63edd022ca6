// hq.diff and the heapql.Diff userdata (semantics.md §10): two results'
// rows matched by key, with the engine's own diff writers, so a recipe's
// diff is byte for byte what `heapql diff` prints.
#include <fmt/format.h>

#include <limits>

#include "engine/error.h"
#include "engine/query/result_diff.h"
#include "engine/report/diff_reports.h"
#include "lua/host/heapql_core.h"
#include "lua/host/lua_class.h"
#include "lua/host/lua_error.h"
#include "lua/host/lua_fields.h"
#include "lua/host/row_tables.h"
#include "lua/host/run_context.h"

namespace heapql::lua {

namespace {

struct DiffBox {
  ResultDiff diff;
  SourceInfo a, b;
};

const LuaClass<DiffBox>& diff_class();

const DiffBox& check_diff(lua_State* L) { return diff_class().check(L, 1, "the receiver (write diff:rows())"); }

void push_signed_deltas(lua_State* L, const ResultDiff& d, const DiffRow& row) {
  lua_createtable(L, 0, 5);
  for (Measure m : {Measure::kSo, Measure::kSoc, Measure::kSt, Measure::kStc, Measure::kSrc}) {
    if (m == Measure::kSrc && !d.realloc_known) continue;
    lua_pushinteger(L, row.delta(m));
    lua_setfield(L, -2, std::string(measure_name(m)).c_str());
  }
}

// {a = measures, b = measures, delta = signed measures}, on a new table.
void push_sides(lua_State* L, const ResultDiff& d, const DiffRow& row) {
  lua_createtable(L, 0, 6);
  push_measures_table(L, row.a, d.realloc_known, false);
  lua_setfield(L, -2, "a");
  push_measures_table(L, row.b, d.realloc_known, false);
  lua_setfield(L, -2, "b");
  push_signed_deltas(L, d, row);
  lua_setfield(L, -2, "delta");
}

void push_diff_row(lua_State* L, const ResultDiff& d, const DiffRow& row, int frame_cache) {
  push_sides(L, d, row);
  lua_pushstring(L, row.presence == DiffPresence::kNew ? "new" : row.presence == DiffPresence::kGone ? "gone" : "both");
  lua_setfield(L, -2, "status");
  set_key_fields(L, *row.key, frame_cache);
}

int diff_rows(lua_State* L) {
  return protected_call(L, [&] {
    const ResultDiff& d = check_diff(L).diff;
    push_row_array(L, d.rows, [&](const DiffRow& row, int frame_cache) { push_diff_row(L, d, row, frame_cache); });
    return 1;
  });
}

int diff_each_next(lua_State* L) {
  return protected_call(L, [&] {
    const ResultDiff& d = diff_class().check(L, row_iterator_receiver(), "the iterator's diff").diff;
    return push_next_row(L, d.rows, [&](const DiffRow& row, int frame_cache) { push_diff_row(L, d, row, frame_cache); });
  });
}

int diff_each(lua_State* L) {
  return protected_call(L, [&] {
    check_diff(L);
    push_row_iterator(L, diff_each_next);
    return 1;
  });
}

int diff_totals(lua_State* L) {
  return protected_call(L, [&] {
    const ResultDiff& d = check_diff(L).diff;
    push_sides(L, d, d.totals);
    return 1;
  });
}

int diff_other(lua_State* L) {
  return protected_call(L, [&] {
    const ResultDiff& d = check_diff(L).diff;
    if (!d.other) {
      lua_pushnil(L);
      return 1;
    }
    push_sides(L, d, *d.other);
    lua_pushinteger(L, static_cast<lua_Integer>(d.other_rows));
    lua_setfield(L, -2, "rows");
    return 1;
  });
}

template <typename Writer>
int diff_text(lua_State* L, Writer writer) {
  return protected_call(L, [&] {
    const DiffBox& box = check_diff(L);
    const std::string text = writer(box);
    lua_pushlstring(L, text.data(), text.size());
    return 1;
  });
}

int diff_table_method(lua_State* L) {
  return diff_text(L, [L](const DiffBox& box) { return diff_table(box.diff, box.a, box.b, run_context(L).display); });
}
int diff_json_method(lua_State* L) {
  return diff_text(L, [](const DiffBox& box) { return diff_json(box.diff, box.a, box.b); });
}
int diff_csv_method(lua_State* L) {
  return diff_text(L, [](const DiffBox& box) { return diff_csv(box.diff); });
}
int diff_folded_method(lua_State* L) {
  return diff_text(L, [](const DiffBox& box) { return diff_folded(box.diff); });
}
int diff_html_method(lua_State* L) {
  return diff_text(L, [L](const DiffBox& box) { return diff_html(box.diff, box.a, box.b, run_context(L).display); });
}

const LuaMethod kDiffMethods[] = {
    {"rows", diff_rows,
     "The shown rows, biggest change of the sort measure first: `key` and each level by name as in result:rows(), "
     "`status` (`both`, `new`: only in B, `gone`: only in A), and `a`, `b` and `delta` (B - A, signed) measures."},
    {"each", diff_each,
     "An iterator over the rows of rows(), one table at a time: `for i, row in diff:each() do`. Use it over many rows: "
     "rows() makes them all at once."},
    {"totals", diff_totals, "Both sides' totals and their delta: {a, b, delta}."},
    {"other", diff_other, "The rows beyond `top`, summed as {a, b, delta, rows}, or nil."},
    {"table", diff_table_method, "The text table `heapql diff` prints."},
    {"json", diff_json_method, "The JSON `heapql diff --format json` prints (docs/json.md)."},
    {"csv", diff_csv_method, "The CSV `heapql diff --format csv` prints."},
    {"folded", diff_folded_method,
     "Folded stacks with A's and B's values of the sort measure, which flamegraph.pl draws as a differential flame "
     "graph."},
    {"html", diff_html_method,
     "The page `heapql diff --format html` writes (docs/reports.md): one offline HTML file with both sides' summary, a "
     "differential flame graph (B's widths, frames coloured by their change) and the delta table; frames shortened "
     "unless `--full-names`."},
};

const LuaClass<DiffBox>& diff_class() {
  static const LuaClass<DiffBox> diff_class("heapql.Diff", kDiffMethods);
  return diff_class;
}

// Every key must be matched: a side cut at top N is asked again, whole.
std::shared_ptr<const Result> whole(const ResultRef& side, const char* name) {
  if (!side.result->other) return side.result;
  Query query = side.result->query;
  if (std::find(query.by.begin(), query.by.end(), GroupBy::kCustom) != query.by.end() || !side.trace) {
    throw Error(fmt::format(
        "hq.diff: result {} was cut at top {} and cannot be asked again; query it with a larger top", name, query.top));
  }
  query.top = std::numeric_limits<std::uint64_t>::max();
  return std::make_shared<const Result>(side.trace->answer(query).result);
}

}  // namespace

int core_diff(lua_State* L) {
  return protected_call(L, [&] {
    const ResultRef a = check_result_ref(L, 1, "hq.diff's first argument (a result)");
    const ResultRef b = check_result_ref(L, 2, "hq.diff's second argument (a result)");
    std::uint64_t top = a.result->query.top;
    if (const std::optional<Fields> options = Arguments(L, "hq.diff").options(3)) {
      const auto n = options->integer("top", 1, std::numeric_limits<std::int64_t>::max(),
                                      "expected a whole number of at least 1");
      if (n) top = static_cast<std::uint64_t>(*n);
    }
    if (a.result->query.by != b.result->query.by) throw Error("hq.diff: the two results are grouped differently");
    if (a.result->query.sort != b.result->query.sort) throw Error("hq.diff: the two results are sorted differently");
    diff_class().push(L, DiffBox{diff_results(whole(a, "a"), whole(b, "b"), top), *a.source, *b.source});
    return 1;
  });
}

}  // namespace heapql::lua
