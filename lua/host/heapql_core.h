// heapql.core: the C side of the heapql Lua module (the Lua side is
// lua/heapql/init.lua). Traces and results are userdata owned by Lua's
// collector; every function runs its C++ inside protected_call.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <lua.hpp>

#include "engine/ingest/open_options.h"
#include "engine/query/result.h"
#include "engine/query/stack_plan.h"
#include "engine/report/reports.h"
#include "engine/session/open_sessions.h"
#include "engine/session/trace_session.h"
#include "engine/store/source_info.h"

namespace heapql::lua {

int luaopen_heapql_core(lua_State* L);
// The engine's parsers of the little languages as a table (grammar_binding.cpp),
// core.grammar, which heapql.grammar parses with.
void push_grammar_functions(lua_State* L);

// A trace file, answered by its session (engine/session). With
// `stream_first`, the first query streams the file (one pass, memory for live
// blocks only: what a one-query recipe needs); later queries load it into the
// store once and replay it. Every error of the session is the trace's:
// TraceReadError (exit 2), even after it crossed recipe code. A session
// registered open (engine/session/open_sessions.h: a server's worker) is
// taken as it is.
class TraceHandle {
 public:
  TraceHandle(std::string path, OpenOptions options, bool stream_first = false)
      : session_(session_for(std::move(path), std::move(options))), stream_next_(stream_first) {}
  const std::string& path() const { return session_.path(); }
  // Reads the trace (or maps its store) now, for the queries to come.
  void open();
  Answer answer(const Query& query);
  // With the query's patterns compiled already (compile_stack_filters).
  Answer answer(const Query& query, StackFilters filters);
  // What the source tells of itself, the trace opened (open()).
  SourceInfo source();
  // The store's tables checked (TraceSession::check_tables).
  void check_tables() const;

 private:
  TraceSession session_;
  bool stream_next_;
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
