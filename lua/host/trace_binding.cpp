// The Trace userdata: hq.open(path), trace:source(), trace:summary(), trace:query{...}.
#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <limits>
#include <new>
#include <optional>
#include <utility>

#include "engine/error.h"
#include "engine/query/aggregator.h"
#include "engine/query/regroup.h"
#include "engine/query/row_detail.h"
#include "engine/query/summary.h"
#include "engine/session/files_beside_trace.h"
#include "lua/host/heapql_core.h"
#include "lua/host/lua_class.h"
#include "lua/host/lua_error.h"
#include "lua/host/lua_fields.h"
#include "lua/host/lua_strings.h"
#include "lua/host/lua_state.h"
#include "lua/host/query_from_lua.h"
#include "lua/host/run_context.h"
#include "lua/host/sandbox.h"

namespace heapql::lua {

namespace {

using TraceRef = std::shared_ptr<TraceHandle>;

const LuaClass<TraceRef>& trace_class();

std::shared_ptr<TraceHandle>& check_trace(lua_State* L, int index) {
  TraceRef& trace = trace_class().check(L, index, "the receiver (write trace:query{...})");
  if (!trace) throw Error("this heapql.Trace holds no trace");
  return trace;
}

int trace_path(lua_State* L) {
  return protected_call(L, [&] {
    lua_pushstring(L, check_trace(L, 1)->path().c_str());
    return 1;
  });
}

void set_integer(lua_State* L, const char* name, std::int64_t value) {
  lua_pushinteger(L, value);
  lua_setfield(L, -2, name);
}

void set_string(lua_State* L, const char* name, const std::string& value) {
  lua_pushlstring(L, value.data(), value.size());
  lua_setfield(L, -2, name);
}

// The source's fields that trace:source() and trace:summary() share.
void set_source_fields(lua_State* L, const SourceInfo& source) {
  set_string(L, "path", source.path);
  set_string(L, "source", source.source);
  set_string(L, "format", source.format);
  set_string(L, "block_identity", std::string(block_identity_name(source.block_identity)));
  lua_pushboolean(L, source.realloc_marked);
  lua_setfield(L, -2, "realloc_known");
  set_string(L, "command", source.command);
  set_integer(L, "duration_ns", source.end_ns);
}

int trace_source(lua_State* L) {
  return protected_call(L, [&] {
    const std::shared_ptr<TraceHandle> trace = check_trace(L, 1);
    SourceInfo source;
    {
      const EngineCall engine(L);
      source = trace->source();
    }
    lua_createtable(L, 0, 7);
    set_source_fields(L, source);
    return 1;
  });
}

int trace_summary(lua_State* L) {
  return protected_call(L, [&] {
    const std::shared_ptr<TraceHandle> trace = check_trace(L, 1);
    TraceSummary s;
    {
      const EngineCall engine(L);
      trace->open();  // the queries that follow a summary replay the store
      const Answer whole = trace->answer(summary_query());
      trace->check_tables();  // summarize() reads every bucket
      s = summarize(*whole.tables, whole.source, whole.result);
    }
    lua_createtable(L, 0, 20);
    set_source_fields(L, s.source);
    set_integer(L, "blocks", static_cast<std::int64_t>(s.blocks));
    set_integer(L, "frees", static_cast<std::int64_t>(s.frees));
    set_integer(L, "unique_stacks", static_cast<std::int64_t>(s.unique_stacks));
    set_integer(L, "unique_frames", static_cast<std::int64_t>(s.unique_frames));
    set_integer(L, "processes", static_cast<std::int64_t>(s.processes));
    set_integer(L, "heaps", static_cast<std::int64_t>(s.heaps));
    set_integer(L, "total_allocated_bytes", static_cast<std::int64_t>(s.total_allocated_bytes));
    set_integer(L, "leaked_bytes", static_cast<std::int64_t>(s.leaked_bytes));
    set_integer(L, "leaked_blocks", static_cast<std::int64_t>(s.leaked_blocks));
    set_integer(L, "temporary", static_cast<std::int64_t>(s.temporary));
    lua_createtable(L, 0, 3);
    set_integer(L, "bytes", static_cast<std::int64_t>(s.peak.bytes));
    set_integer(L, "blocks", static_cast<std::int64_t>(s.peak.blocks));
    set_integer(L, "time_ns", s.peak.time_ns);
    lua_setfield(L, -2, "peak");
    return 1;
  });
}

// Calls the recipe's `by` function (at `function_index`) with a stack's frames.
std::string call_key_function(lua_State* L, int function_index, const KeyValue& stack) {
  if (!lua_checkstack(L, 4)) throw Error("the `by` function: out of Lua stack");
  lua_pushvalue(L, function_index);
  push_stack_frames(L, stack.frames, 0);
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
    std::string message = error_message(L, -1);
    lua_pop(L, 1);
    throw Error("the `by` function failed: " + message);
  }
  std::string key;
  if (lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER) {
    key = lua_tostring(L, -1);
  } else {
    const std::string type = luaL_typename(L, -1);
    lua_pop(L, 1);
    throw Error("the `by` function must return a string or a number, got " + type);
  }
  lua_pop(L, 1);
  return key;
}

int trace_query(lua_State* L) {
  return protected_call(L, [&] {
    const std::shared_ptr<TraceHandle> trace = check_trace(L, 1);
    Query query = query_from_table(L, 2);
    lua_pushliteral(L, "by_function");
    lua_rawget(L, 2);
    const int key_function = lua_gettop(L);
    const bool custom = lua_isfunction(L, key_function);
    // A recipe's mistake is said here, as the recipe's: past this point the
    // engine's errors are the trace's (exit 2).
    const auto custom_levels = std::count(query.by.begin(), query.by.end(), GroupBy::kCustom);
    if (custom_levels > 1) throw Error("query: `by` may have one custom level (a function) at most");
    if (custom_levels == 1 && !custom) {
      throw Error("query: `by` has a custom level without its function (by_function must be a function)");
    }
    std::size_t custom_level = 0;
    std::uint64_t top = query.top;
    if (custom) {
      const auto it = std::find(query.by.begin(), query.by.end(), GroupBy::kCustom);
      if (it == query.by.end()) throw Error("query: by_function given without a custom level in `by`");
      // The engine's rows are regrouped after it answers: its detail would be of a row the recipe never sees.
      if (query.detail) throw Error("query: `detail` describes a row of the engine's answer, not of a custom level's rows");
      custom_level = static_cast<std::size_t>(it - query.by.begin());
      *it = GroupBy::kStack;
      query.top = std::numeric_limits<std::uint64_t>::max();
    }
    validate(query);
    StackFilters filters = compile_stack_filters(query);
    Answer answer;
    {
      const EngineCall engine(L);
      answer = trace->answer(query, std::move(filters));
      answer.tables.reset();  // not kept with the result: a streamed answer's are freed now
      if (custom) {
        answer.result = regroup_by_stack_key(
            std::move(answer.result), custom_level,
            [&](const KeyValue& stack) { return call_key_function(L, key_function, stack); }, top);
      }
    }
    if (query.detail && !answer.result.detail) {
      throw Error("query: " + detail_beyond_rows(*query.detail, answer.result.rows.size()));
    }
    lua_settop(L, 2);
    push_result(L, std::move(answer.result), std::move(answer.source), trace);
    return 1;
  });
}

// hq.open(path, {symbols = "dir" | {"dir", ...}}): PDB folders or symbol
// stores for an ETW trace, besides those given with --symbols.
void add_symbol_paths(lua_State* L, const std::optional<Fields>& open_options, OpenOptions& options) {
  if (!open_options) return;
  for (const std::string& path : open_options->string_or_strings("symbols")) {
    const std::optional<std::string> readable = readable_path(L, path);
    if (!readable) {
      throw Error(fmt::format("hq.open: symbols '{}': every trace a recipe opens already uses the folders given "
                              "with --symbols; a recipe may name others only beside it, in the shipped queries/ "
                              "folder or as path params (run with --trusted for any)",
                              path));
    }
    options.symbol_paths.push_back(*readable);
  }
}

// The files heapql reads beside a trace (a heaptrack file's twins and
// block-identity file, its store) are under the trace's rule, each as
// itself. Beside a file in the recipe's folder they are checked there (a
// link out is refused, whatever it points at); the trace named on the
// command line brings its own; a path param allows only itself, so beside
// one nothing is read, nor looked at.
void limit_side_files(lua_State* L, const std::string& path, OpenOptions& options) {
  if (!is_sandboxed(L)) return;
  const std::vector<std::string> names = files_beside_trace(path);
  const auto refused = std::find_if(names.begin(), names.end(), [&](const std::string& name) { return !may_read(L, name); });
  if (refused == names.end()) return;
  if (!is_named_file(L, path) || is_command_line_trace(L, path)) {
    throw Error(fmt::format("hq.open('{}'): '{}' beside it (a twin, block-identity file or store heapql would read) "
                            "leads outside what a recipe may read",
                            path, *refused));
  }
  if (read_only_with_a_file_beside(path)) {  // a raw heaptrack file: only with its interpreted twin
    throw Error(fmt::format("hq.open('{}'): a raw heaptrack file is read with its interpreted twin, which a path "
                            "param does not allow: name the interpreted file",
                            path));
  }
  options.use_raw_twin = false;
  options.use_store = false;
}

int open_trace(lua_State* L) {
  return protected_call(L, [&] {
    const Arguments args(L, "hq.open");
    const std::string path(args.string(1, "path"));
    const std::optional<Fields> open_options = args.options(2);
    if (!may_read(L, path)) {
      throw Error(fmt::format("hq.open('{}'): a recipe may open only the trace named on the command line, files "
                              "named by its path params, and files beside it or in the shipped queries/ folder "
                              "(run with --trusted to open others)",
                              path));
    }
    OpenOptions options = run_context(L).open;
    limit_side_files(L, path, options);
    add_symbol_paths(L, open_options, options);
    auto trace = std::make_shared<TraceHandle>(path, std::move(options));
    {
      const EngineCall engine(L);
      trace->open();  // read now, so a bad file is reported where it was opened
    }
    push_trace(L, std::move(trace));
    return 1;
  });
}

}  // namespace

namespace {

// The session's errors are the trace's, whatever their kind, except running
// out of memory.
template <class Work>
decltype(auto) as_trace_error(const std::string& path, Work&& work) {
  try {
    return work();
  } catch (const TraceReadError&) {
    throw;
  } catch (const Error& e) {
    throw TraceReadError(e);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    throw TraceReadError(SourceLocation::of_file(path), e.what());
  }
}

}  // namespace

void TraceHandle::open() {
  as_trace_error(path(), [&] { session_.open(); });
}

SourceInfo TraceHandle::source() {
  return as_trace_error(path(), [&] {
    session_.open();
    return session_.store()->source();
  });
}

void TraceHandle::check_tables() const {
  as_trace_error(path(), [&] { session_.check_tables(); });
}

Answer TraceHandle::answer(const Query& query) { return answer(query, compile_stack_filters(query)); }

Answer TraceHandle::answer(const Query& query, StackFilters filters) {
  const bool stream = std::exchange(stream_next_, false);
  return as_trace_error(path(), [&] {
    if (stream) return session_.answer_once(query, std::move(filters));
    session_.open();
    return session_.answer(query, std::move(filters));
  });
}

namespace {

const LuaMethod kTraceMethods[] = {
    {"query_normalized", trace_query, "Answers a query already in the engine's form (from hq.schema.normalize); trace:query and query recipes use it."},
    {"source", trace_source, "What the source tells of itself (no query): the tracer, what was read, block identity, whether reallocs are marked, the command and the trace's length."},
    {"summary", trace_summary, "What the trace holds: blocks, frees, leaked, peak, unique stacks and frames, and what the source can tell."},
    {"path", trace_path, "The trace's path, as it was opened."},
};

const LuaClass<TraceRef>& trace_class() {
  static const LuaClass<TraceRef> trace_class("heapql.Trace", kTraceMethods);
  return trace_class;
}

}  // namespace

void push_trace(lua_State* L, std::shared_ptr<TraceHandle> trace) { trace_class().push(L, std::move(trace)); }

void push_trace_methods(lua_State* L) { trace_class().push_methods(L); }

// Registered by heapql_core.cpp.
int core_open(lua_State* L) { return open_trace(L); }

}  // namespace heapql::lua
