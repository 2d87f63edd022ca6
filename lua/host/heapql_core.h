// heapql.core: the C side of the heapql Lua module (the Lua side is
// lua/heapql/init.lua). Traces and results are userdata owned by Lua's
// collector; every function runs its C++ inside protected_call.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <lua.hpp>

#include "engine/ingest/open_trace.h"
#include "engine/report/reports.h"
#include "engine/ingest/trace_store_file.h"
#include "engine/query/result.h"
#include "engine/query/stack_plan.h"
#include "engine/store/source_info.h"
#include "engine/store/trace_store.h"

namespace heapql::lua {

int luaopen_heapql_core(lua_State* L);
// The engine's parsers of the little languages as a table (grammar_binding.cpp),
// core.grammar, which heapql.grammar parses with.
void push_grammar_functions(lua_State* L);

// A trace file. With `stream_first`, the first query streams the file (one
// pass, memory for live blocks only: what a one-query recipe needs); later
// queries load it into the store once and replay it.
class TraceHandle {
 public:
  TraceHandle(std::string path, OpenOptions options, bool stream_first = false)
      : path_(std::move(path)), options_(options), stream_next_(stream_first) {}
  const std::string& path() const { return path_; }
  // Both throw TraceReadError when the file cannot be read.
  TraceStore& store();
  Result answer(const Query& query, SourceInfo& source);
  // With the query's patterns compiled already (compile_stack_filters).
  Result answer(const Query& query, StackFilters filters, SourceInfo& source);

 private:
  std::string path_;
  OpenOptions options_;
  bool stream_next_;
  std::unique_ptr<TraceStore> store_;
  std::optional<FoundStore> found_store_;  // a store file that answers for the trace
};

void push_trace(lua_State* L, std::shared_ptr<TraceHandle> trace);
// The method table every trace shares (heapql's Lua side adds `query`).
void push_trace_methods(lua_State* L);
void push_result(lua_State* L, Result result, SourceInfo source, std::shared_ptr<TraceHandle> trace);

// What a Result userdata holds, for other bindings (hq.diff); Error naming
// `role` when the value at `index` is not a live Result.
struct ResultRef {
  std::shared_ptr<const Result> result;  // shared, not copied, by a diff of it
  const SourceInfo* source;
  std::shared_ptr<TraceHandle> trace;
};
ResultRef check_result_ref(lua_State* L, int index, const char* role);
// hq.diff(a, b [, {top = N}]): the heapql.Diff of two results (diff_binding.cpp).
int core_diff(lua_State* L);
void push_measures_table(lua_State* L, const Measures& m, bool realloc_known, bool impacting);
// Sets `key` (one value per level: text, or a frames list for a stack) and
// each level by name (row.process, row.stack, ...) on the table at the top.
// `frame_cache`: as push_stack_frames's `cache`, for the rows of one call.
void set_key_fields(lua_State* L, const std::vector<KeyValue>& key, int frame_cache);

}  // namespace heapql::lua
