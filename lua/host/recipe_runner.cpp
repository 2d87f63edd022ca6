#include "lua/host/recipe_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <regex>
#include <string_view>

#include "engine/error.h"
#include "engine/platform/program_path.h"
#include "engine/text_file.h"
#include "lua/host/heapql_core.h"
#include "lua/host/lua_error.h"
#include "lua/host/lua_fields.h"
#include "lua/host/lua_state.h"
#include "lua/host/lua_strings.h"
#include "lua/host/recipe_stack.h"
#include "lua/host/run_context.h"
#include "lua/host/run_limits.h"
#include "lua/host/sandbox.h"

namespace heapql::lua {

namespace fs = std::filesystem;

namespace {

// The error value at 1 as heapql's error object: its own objects and strings
// as they are, anything else through tostring (a __tostring of the recipe's
// runs here, inside the protected call, under the run's limits).
void normalize_error_value(lua_State* L) {
  if (lua_type(L, 1) != LUA_TSTRING && lua_type(L, 1) != LUA_TNUMBER && error_message(L, 1).starts_with("(error object is a ")) {
    luaL_tolstring(L, 1, nullptr);
    lua_replace(L, 1);
  }
}

// Message handler for checks of the user's own input (--param): the message
// says it all, a traceback into heapql's library would only be noise.
int keep_message(lua_State* L) {
  normalize_error_value(L);
  const ErrorKind kind = error_kind(L, 1);
  lua_pushstring(L, error_message(L, 1).c_str());
  push_error_object(L, kind, lua_tostring(L, -1));
  return 1;
}

// Calls function upvalue(2) of module upvalue(1) with the arguments given:
// the module is found and read inside the protected call, so a module a
// --trusted recipe has tampered with raises a recipe error, never a panic.
int call_library_function(lua_State* L) {
  const int nargs = lua_gettop(L);
  push_run_value(L, RunValue::kHostRequire);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_call(L, 1, 1);
  lua_pushvalue(L, lua_upvalueindex(2));
  lua_gettable(L, -2);
  lua_remove(L, -2);
  lua_insert(L, 1);
  lua_call(L, nargs, LUA_MULTRET);
  return lua_gettop(L);
}

// "FILE:LINE" of the innermost frame that is the recipe's own code (not C,
// not heapql's library), or "" when there is none.
std::string recipe_location(lua_State* L) {
  lua_Debug ar;
  for (int level = 1; lua_getstack(L, level, &ar) != 0; ++level) {
    if (lua_getinfo(L, "Sl", &ar) == 0 || ar.currentline <= 0 || ar.source == nullptr || ar.source[0] != '@') continue;
    if (is_library_source(ar.source)) continue;
    return fmt::format("{}:{}", ar.source + 1, ar.currentline);
  }
  return "";
}

// The message as the recipe's author reads it: where in the recipe, and what
// went wrong, without the library file that raised it.
std::string message_for_recipe(lua_State* L, std::string message) {
  const std::size_t colon = message.find(": ");
  if (colon != std::string::npos) {
    const std::size_t line = message.rfind(':', colon - 1);
    if (line != std::string::npos && is_library_source(("@" + message.substr(0, line)).c_str())) {
      message.erase(0, colon + 2);
    }
  }
  const std::string where = recipe_location(L);
  if (where.empty() || message.starts_with(where.substr(0, where.rfind(':')) + ":")) return message;
  return where + ": " + message;
}

// `return hq.recipe {...}` is a tail call, so an error the declaration
// raises (a field too many, 'query' and 'run' both) finds no frame of the
// recipe's to name: the message gets the recipe's file and the line of its
// `.recipe {` (or its file alone when that is not found).
std::string at_declaration(const std::string& file, std::string_view text, std::string message) {
  if (!message.starts_with("hq.recipe: ")) return message;  // named already, or not the declaration's
  static const std::regex declaration(R"([.:]\s*recipe\s*[({"'])");
  std::match_results<std::string_view::const_iterator> found;
  if (!std::regex_search(text.begin(), text.end(), found, declaration)) return file + ": " + message;
  const auto line = 1 + std::count(text.begin(), found[0].first, '\n');
  return fmt::format("{}:{}: {}", file, line, message);
}

// Message handler: keeps the error's kind; says where in the recipe it
// happened; adds a Lua traceback with --verbose.
int add_traceback(lua_State* L) {
  normalize_error_value(L);
  const ErrorKind kind = error_kind(L, 1);
  std::string message = message_for_recipe(L, error_message(L, 1));
  if (run_context(L).verbose) {
    luaL_traceback(L, L, nullptr, 1);
    message += "\n";
    message += lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  push_error_object(L, kind, message.c_str());
  return 1;
}

struct Session {
  Session(const RecipeSource& recipe, const RecipeOptions& options, std::optional<fs::path> trace = std::nullopt) {
    SandboxOptions sandbox;
    sandbox.trusted = options.trusted;
    sandbox.folders = {recipe.folder(), queries_folder()};
    sandbox.files = options.readable_files;
    sandbox.trace = std::move(trace);
    L = state.get();
    RunGuard::watch(L);
    open_sandbox(L, sandbox);
    lua_getglobal(L, "require");
    set_run_value(L, RunValue::kHostRequire);
    RunContext& context = run_context(L);
    context.report.emplace();
    context.recipe_dir = recipe.folder().string();
    context.verbose = options.verbose;
  }

  // Calls the function under the stack's top `nargs` arguments with the
  // traceback handler; leaves `nresults` values. Throws Failure.
  void call(int nargs, int nresults, lua_CFunction handler = add_traceback) {
    const int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, handler);
    lua_insert(L, base);
    const int status = lua_pcall(L, nargs, nresults, base);
    lua_remove(L, base);
    if (status != LUA_OK) fail_from_stack();
  }

  [[noreturn]] void fail_from_stack() {
    const RunStatus status = error_kind(L, -1) == ErrorKind::kTrace ? RunStatus::kBadTrace : RunStatus::kRecipeError;
    std::string message = error_message(L, -1);
    lua_pop(L, 1);
    throw Failure{status, message};
  }

  void require(const char* module) {
    push_run_value(L, RunValue::kHostRequire);
    lua_pushstring(L, module);
    call(1, 1);
  }

  // Calls module.function with the `nargs` values on the stack's top.
  void call_library(const char* module, const char* function, int nargs, int nresults,
                    lua_CFunction handler = add_traceback) {
    lua_pushstring(L, module);
    lua_pushstring(L, function);
    lua_pushcclosure(L, call_library_function, 2);
    lua_insert(L, -nargs - 1);
    call(nargs, nresults, handler);
  }

  // Loads and runs the recipe file; leaves a snapshot of its declaration on
  // the stack: a plain table heapql's own code made and checked, so that
  // reading it runs no code of the recipe's.
  void load_declaration(const RecipeSource& recipe) {
    std::string text;
    if (recipe.text) {
      text = *recipe.text;
    } else {
      try {
        text = read_text_file(recipe.path.string(), "recipe");
      } catch (const Error& e) {
        throw Failure{RunStatus::kRecipeError, e.what()};
      }
    }
    if (!load_recipe_chunk(L, text, "@" + recipe.path.string())) {
      std::string message = error_message(L, -1);
      lua_pop(L, 1);
      throw Failure{RunStatus::kRecipeError, message};
    }
    try {
      call(0, 1);
    } catch (Failure& failure) {
      failure.message = at_declaration(recipe.path.string(), text, std::move(failure.message));
      throw;
    }
    lua_pushstring(L, recipe.path.string().c_str());
    call_library("heapql.recipe", "snapshot", 2, 1, keep_message);
  }

  // "recipe FILE (query at line N)": where a query table came from.
  std::string where(const RecipeSource& recipe, int declaration) {
    lua_pushliteral(L, "query");
    lua_rawget(L, declaration);
    if (!lua_isfunction(L, -1)) {
      lua_pop(L, 1);
      return "recipe " + recipe.path.string();
    }
    lua_Debug ar;
    lua_getinfo(L, ">S", &ar);
    return fmt::format("recipe {} (query at line {})", recipe.path.string(), ar.linedefined);
  }

  // A string field of a snapshot ("" when absent).
  std::string string_field(int table, const char* name) {
    return Fields(L, table, "recipe field").string(name).value_or("");
  }

  // The declared type of param `name` in a snapshot ("" if none).
  std::string param_type(int declaration, const std::string& name) {
    const int top = lua_gettop(L);
    std::string type;
    if (Fields(L, declaration, "recipe field").push("params") == LUA_TTABLE &&
        Fields(L, -1, "recipe param").push(name.c_str()) == LUA_TTABLE) {
      type = string_field(lua_gettop(L), "type");
    }
    lua_settop(L, top);
    return type;
  }

  // The string a Lua function returned (at the top), or a recipe error.
  std::string returned_string(const char* what) {
    if (lua_type(L, -1) != LUA_TSTRING) {
      const std::string type = luaL_typename(L, -1);
      lua_pop(L, 1);
      throw Failure{RunStatus::kRecipeError, fmt::format("{} returned a {} where a string was expected", what, type)};
    }
    std::string text(lua_tostring(L, -1), lua_rawlen(L, -1));
    lua_pop(L, 1);
    return text;
  }

  struct Failure {
    RunStatus status;
    std::string message;
  };

  LuaState state;
  lua_State* L = nullptr;
};

}  // namespace

fs::path RecipeSource::folder() const {
  if (text) return fs::path(".");
  const fs::path parent = path.parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

fs::path queries_folder() {
  if (const char* env = std::getenv("HEAPQL_QUERIES"); env != nullptr && *env != '\0') return env;
  // Installed: beside the program, as <prefix>/bin/../share/heapql/queries;
  // on Windows first as the zip has it, queries/ beside heapql.exe.
  if (const std::optional<fs::path> program = program_path()) {
    std::vector<fs::path> candidates;
#ifdef _WIN32
    candidates.push_back(program->parent_path() / "queries");
#endif
    candidates.push_back((program->parent_path() / HEAPQL_INSTALLED_QUERIES).lexically_normal());
    for (const fs::path& candidate : candidates) {
      std::error_code error;
      if (fs::is_directory(candidate, error)) return candidate;
    }
  }
  // Run from its build folder: the source tree's.
  return HEAPQL_QUERIES_DIR;
}

namespace {

RunOutcome run_recipe_here(const RecipeRun& run) {
  RunOutcome outcome;
  try {
    Session s(run.recipe, run.options, fs::path(run.trace_path));
    lua_State* L = s.L;
    RunContext& context = run_context(L);
    // The traces the recipe opens are read as the one named on the command line.
    context.open.use_raw_twin = run.open.use_raw_twin;
    context.open.strict = run.open.strict;
    context.open.use_store = run.open.use_store;
    context.open.symbol_paths = run.open.symbol_paths;
    context.display = DisplayOptions{run.full_names, 0};
    OpenOptions open = run.open;
    open.confined = !run.options.trusted;  // the trace's side files only as themselves
    s.load_declaration(run.recipe);
    const int declaration = lua_gettop(L);
    const std::string where = s.where(run.recipe, declaration);

    lua_pushvalue(L, declaration);
    lua_createtable(L, 0, static_cast<int>(run.params.size()));
    for (const auto& [name, value] : run.params) {
      lua_pushstring(L, value.c_str());
      lua_setfield(L, -2, name.c_str());
    }
    lua_pushstring(L, ("recipe " + run.recipe.path.string()).c_str());
    s.call_library("heapql.recipe", "params", 3, 1, keep_message);
    const int params = lua_gettop(L);
    // A path-typed param names a file the user lets the recipe read: the
    // value given on the command line, never one the recipe computed.
    for (const auto& [name, value] : run.params) {
      if (s.param_type(declaration, name) == "path") allow_file(L, fs::path(value));
    }

    s.require("heapql");
    lua_pushvalue(L, declaration);
    lua_pushvalue(L, params);
    push_trace(L, std::make_shared<TraceHandle>(run.trace_path, open, true));
    lua_pushstring(L, run.format.c_str());
    lua_pushstring(L, where.c_str());
    s.call_library("heapql.recipe", "run", 6, 0);
    // Fetched again: the recipe's code ran since (a --trusted one may even
    // have replaced the context through debug.getregistry).
    RunContext& finished = run_context(L);
    outcome.failed_gates = finished.failed_gates;
    if (!outcome.failed_gates.empty()) outcome.status = RunStatus::kGateFailed;
    if (finished.report) outcome.output = std::move(*finished.report);
  } catch (const Session::Failure& f) {
    outcome.status = f.status;
    outcome.error = f.message;
  }
  return outcome;
}

RecipeInfo describe_recipe_here(const RecipeSource& recipe, const RecipeOptions& options) {
  try {
    Session s(recipe, options);
    lua_State* L = s.L;
    s.load_declaration(recipe);
    const int declaration = lua_gettop(L);
    RecipeInfo info;
    info.name = s.string_field(declaration, "name");
    info.doc = s.string_field(declaration, "doc");
    lua_pushvalue(L, declaration);
    lua_pushstring(L, recipe.path.string().c_str());
    s.call_library("heapql.recipe", "describe", 2, 1);
    info.help = s.returned_string("the recipe's description");
    lua_pushvalue(L, declaration);
    s.call_library("heapql.recipe", "param_list", 1, 1);
    for (lua_Integer i = 1; lua_rawgeti(L, -1, i) == LUA_TTABLE; ++i) {
      const Fields param(L, -1, "recipe param");
      info.params.push_back(RecipeParam{param.string("name").value_or(""), param.string("type").value_or(""),
                                        param.string("default"), param.string("doc").value_or("")});
      if (info.params.back().type == "path") info.path_params.push_back(info.params.back().name);
      lua_pop(L, 1);
    }
    lua_pop(L, 2);
    return info;
  } catch (const Session::Failure& f) {
    throw Error(f.message);
  }
}

std::string translate_xperf_here(const std::vector<std::string>& words, const RecipeOptions& options) {
  try {
    Session s(RecipeSource{"xperf", std::string()}, options);
    lua_State* L = s.L;
    push_string_array(L, words);
    s.call_library("heapql.xperf", "parse", 1, 2);
    if (lua_isnil(L, -2)) {
      const std::string message = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "xperf: bad flags";
      throw Error(message);
    }
    lua_pop(L, 1);
    const int spec = lua_gettop(L);
    // The -cullLists files are the user's, named on this command line: their
    // patterns go into the recipe, so that it works wherever it is saved.
    lua_newtable(L);
    const int cull_texts = lua_gettop(L);
    lua_pushliteral(L, "cull_lists");
    if (lua_rawget(L, spec) == LUA_TTABLE) {
      for (lua_Integer i = 1; lua_rawgeti(L, -1, i) == LUA_TSTRING; ++i) {
        const std::string path = lua_tostring(L, -1);
        const std::string text = read_text_file(path, "-cullLists file");
        lua_pushlstring(L, text.data(), text.size());
        lua_rawset(L, cull_texts);
      }
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    lua_pushvalue(L, spec);
    lua_pushvalue(L, cull_texts);
    s.call_library("heapql.xperf", "to_recipe", 2, 1);
    return s.returned_string("xperf.to_recipe");
  } catch (const Session::Failure& f) {
    throw Error(f.message);
  }
}

}  // namespace

// Each runs under its limits from the state's creation through lua_close
// (finalizers), on the recipe thread.
RunOutcome run_recipe(const RecipeRun& run) {
  const RunGuard guard(run.options.limits, run.options.message_prefix);
  RunOutcome outcome;
  run_on_recipe_stack([&] { outcome = run_recipe_here(run); }, run.options.message_prefix);
  return outcome;
}

RecipeInfo describe_recipe(const RecipeSource& recipe, const RecipeOptions& options) {
  const RunGuard guard(options.limits, options.message_prefix);
  RecipeInfo info;
  run_on_recipe_stack([&] { info = describe_recipe_here(recipe, options); }, options.message_prefix);
  return info;
}

std::string translate_xperf(const std::vector<std::string>& words) {
  RecipeOptions options;
  options.message_prefix = "heapql xperf: ";
  const RunGuard guard(options.limits, options.message_prefix);
  std::string text;
  run_on_recipe_stack([&] { text = translate_xperf_here(words, options); }, options.message_prefix);
  return text;
}

}  // namespace heapql::lua
