// A Lua state's run context: everything heapql's C side keeps about the run
// in that state (what the recipe may read, how the traces it opens are read,
// where its report goes, its failed gates, the sandbox's own Lua tables), in
// one full userdata under one registry key, fetched by run_context(). A state
// heapql made gets it from open_sandbox; stock Lua loading heapql.so gets a
// default one (no sandbox, the report to stdout) on first use.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <lua.hpp>

#include "engine/ingest/open_options.h"
#include "engine/report/reports.h"

namespace heapql::lua {

// How a file the helpers may read was allowed (sandbox.h's readable_path).
enum class FileGrant {
  kNamed,   // named on the command line: read as named, links and all
  kBeside,  // beside the trace named on the command line: only as itself, never through a link
};

struct RunContext {
  // What the run may read. Outside a sandbox (stock Lua, --trusted) anything.
  bool sandboxed = false;
  // Folders whose .lua files `require` may load and whose files the helpers
  // may read: each as named and as it resolves.
  std::vector<std::string> folders;
  // Single files the helpers may read, by their absolute path as given.
  std::map<std::string, FileGrant, std::less<>> files;
  // The trace named on the command line, absolute as given.
  std::optional<std::string> trace;

  // How a trace the recipe opens (hq.open) is read: the command line's
  // --raw, --strict, --no-store and --symbols.
  OpenOptions open = [] {
    OpenOptions options;
    options.show_progress = false;
    return options;
  }();
  // How result:table() and :html() show frames (--full-names).
  DisplayOptions display;
  // The folder recipe-relative files are read from (hq.cull.file, hq.include); none outside a run.
  std::optional<std::string> recipe_dir;
  // Errors carry a Lua traceback (--verbose).
  bool verbose = false;

  // The report, kept whole until the run ends so that a failing recipe
  // leaves no half-written file; none: written to stdout at once (stock Lua).
  std::optional<std::string> report;
  // Messages of the gates (hq.fail_if) that failed so far.
  std::vector<std::string> failed_gates;

  // Appends to the report, or writes to stdout; throws Error on a short write.
  void write_report(std::string_view text);
};

// The run context of L's state. Never raises an error or throws, except
// Lua's out-of-memory error when it makes the context.
RunContext& run_context(lua_State* L);

// The Lua values a run keeps beside its context (the context userdata's user
// values), which only heapql's C side reaches.
enum class RunValue {
  kEnvironment = 1,  // the recipe environment every chunk gets as _ENV (the globals when trusted)
  kPreload,          // the sandbox's `require`: module name -> loader
  kLoaded,           // the sandbox's `require`: module name -> value
  kFrozen,           // the set of read-only tables (proxies), for rawset
  kHostRequire,      // `require` as it was before recipe code ran
};
constexpr int kRunValueCount = 5;

// Pushes the value (nil when it was never set).
void push_run_value(lua_State* L, RunValue which);
// Pops the stack's top into the value.
void set_run_value(lua_State* L, RunValue which);

}  // namespace heapql::lua
