#include "lua/host/recipe_runner.h"

#include <fmt/format.h>

#include <cstdlib>

#include "engine/error.h"
#include "engine/text_file.h"
#include "lua/host/heapql_core.h"
#include "lua/host/lua_error.h"
#include "lua/host/lua_strings.h"
#include "lua/host/sandbox.h"

namespace heapql::lua {

namespace fs = std::filesystem;

namespace {

// Message handler for checks of the user's own input (--param): the message
// says it all, a traceback into heapql's library would only be noise.
int keep_message(lua_State* L) {
  push_error_object(L, error_kind(L, 1), error_message(L, 1).c_str());
  return 1;
}

// Message handler: keeps the error's kind, appends a traceback.
int add_traceback(lua_State* L) {
  const ErrorKind kind = error_kind(L, 1);
  std::string message = error_message(L, 1);
  luaL_traceback(L, L, nullptr, 1);
  message += "\n";
  message += lua_tostring(L, -1);
  lua_pop(L, 1);
  push_error_object(L, kind, message.c_str());
  return 1;
}

struct Session {
  explicit Session(const RecipeSource& recipe, const RecipeOptions& options, const std::vector<fs::path>& files)
      : state(options.limits) {
    SandboxOptions sandbox;
    sandbox.trusted = options.trusted;
    sandbox.folders = {recipe.folder(), queries_folder()};
    sandbox.files = files;
    sandbox.files.insert(sandbox.files.end(), options.readable_files.begin(), options.readable_files.end());
    L = state.get();
    open_sandbox(L, sandbox);
    set_output_buffer(L, &output);
    set_recipe_dir(L, recipe.folder().string());
  }

  // Calls the function under the stack's top `nargs` arguments with the
  // traceback handler; leaves `nresults` values. Throws RecipeFailure.
  void call(int nargs, int nresults, lua_CFunction handler = add_traceback) {
    const int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, handler);
    lua_insert(L, base);
    state.enforce_memory_cap(true);
    const int status = lua_pcall(L, nargs, nresults, base);
    state.enforce_memory_cap(false);
    lua_remove(L, base);
    if (status != LUA_OK) fail_from_stack();
  }

  [[noreturn]] void fail_from_stack() {
    RunStatus status = error_kind(L, -1) == ErrorKind::kTrace ? RunStatus::kBadTrace : RunStatus::kRecipeError;
    std::string message = error_message(L, -1);
    lua_pop(L, 1);
    if (state.timed_out()) {
      status = RunStatus::kRecipeError;
      const std::string limit = fmt::format("the recipe ran longer than its time limit of {} (--timeout)",
                                            describe_timeout(state.limits().timeout));
      if (message.find(limit) == std::string::npos) message = limit + "\n" + message;
    } else if (state.out_of_memory()) {
      status = RunStatus::kRecipeError;
      message = fmt::format("the recipe used more than its memory limit of {} (--memory)\n{}",
                            describe_memory(state.limits().memory_bytes), message);
    }
    throw Failure{status, message};
  }

  void require(const char* module) {
    lua_getglobal(L, "require");
    lua_pushstring(L, module);
    call(1, 1);
  }

  // Loads and runs the recipe file; leaves its declaration on the stack.
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
    state.arm_deadline();
    call(0, 1);
    require("heapql.recipe");
    lua_getfield(L, -1, "is_recipe");
    lua_pushvalue(L, -3);
    call(1, 1);
    const bool is_recipe = lua_toboolean(L, -1);
    lua_pop(L, 2);
    if (!is_recipe) {
      throw Failure{RunStatus::kRecipeError,
                    fmt::format("{}: a recipe must return hq.recipe{{...}} (got a {})", recipe.path.string(),
                                luaL_typename(L, -1))};
    }
  }

  // "recipe FILE (query at line N)": where a query table came from.
  std::string where(const RecipeSource& recipe, int declaration) {
    lua_getfield(L, declaration, "query");
    if (!lua_isfunction(L, -1)) {
      lua_pop(L, 1);
      return "recipe " + recipe.path.string();
    }
    lua_Debug ar;
    lua_getinfo(L, ">S", &ar);
    return fmt::format("recipe {} (query at line {})", recipe.path.string(), ar.linedefined);
  }

  std::string string_field(int table, const char* name) {
    lua_getfield(L, table, name);
    std::string value = lua_isstring(L, -1) ? lua_tostring(L, -1) : "";
    lua_pop(L, 1);
    return value;
  }

  struct Failure {
    RunStatus status;
    std::string message;
  };

  std::string output;
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
  return HEAPQL_QUERIES_DIR;
}

RunOutcome run_recipe(const RecipeRun& run) {
  RunOutcome outcome;
  try {
    Session s(run.recipe, run.options, {fs::path(run.trace_path)});
    lua_State* L = s.L;
    set_open_options(L, run.open);
    s.load_declaration(run.recipe);
    const int declaration = lua_gettop(L);
    const std::string where = s.where(run.recipe, declaration);

    s.require("heapql.recipe");
    const int recipe_module = lua_gettop(L);
    lua_getfield(L, recipe_module, "params");
    lua_pushvalue(L, declaration);
    lua_createtable(L, 0, static_cast<int>(run.params.size()));
    for (const auto& [name, value] : run.params) {
      lua_pushstring(L, value.c_str());
      lua_setfield(L, -2, name.c_str());
    }
    lua_pushstring(L, ("recipe " + run.recipe.path.string()).c_str());
    s.call(3, 2, keep_message);
    const auto paths = static_cast<lua_Integer>(lua_rawlen(L, -1));
    for (lua_Integer i = 1; i <= paths; ++i) {
      lua_rawgeti(L, -1, i);
      allow_file(L, fs::path(lua_tostring(L, -1)));
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    const int params = lua_gettop(L);

    lua_getfield(L, recipe_module, "run");
    s.require("heapql");
    lua_pushvalue(L, declaration);
    lua_pushvalue(L, params);
    push_trace(L, std::make_shared<TraceHandle>(run.trace_path, run.open, true));
    lua_pushstring(L, run.format.c_str());
    lua_pushstring(L, where.c_str());
    s.call(6, 0);
    outcome.failed_gates = failed_gates(L);
    if (!outcome.failed_gates.empty()) outcome.status = RunStatus::kGateFailed;
    outcome.output = std::move(s.output);
  } catch (const Session::Failure& f) {
    outcome.status = f.status;
    outcome.error = f.message;
  }
  return outcome;
}

RecipeInfo describe_recipe(const RecipeSource& recipe, const RecipeOptions& options) {
  try {
    Session s(recipe, options, {});
    lua_State* L = s.L;
    s.load_declaration(recipe);
    const int declaration = lua_gettop(L);
    RecipeInfo info;
    info.name = s.string_field(declaration, "name");
    info.doc = s.string_field(declaration, "doc");
    s.require("heapql.recipe");
    lua_getfield(L, -1, "describe");
    lua_pushvalue(L, declaration);
    lua_pushstring(L, recipe.path.string().c_str());
    s.call(2, 1);
    info.help = lua_tostring(L, -1);
    return info;
  } catch (const Session::Failure& f) {
    throw Error(f.message);
  }
}

std::string translate_xperf(const std::vector<std::string>& words) {
  try {
    Session s(RecipeSource{"xperf", std::string()}, RecipeOptions{}, {});
    lua_State* L = s.L;
    s.require("heapql.xperf");
    const int xperf = lua_gettop(L);
    lua_getfield(L, xperf, "parse");
    push_string_array(L, words);
    s.call(1, 2);
    if (lua_isnil(L, -2)) throw Error(lua_isstring(L, -1) ? lua_tostring(L, -1) : "xperf: bad flags");
    lua_pop(L, 1);
    lua_getfield(L, xperf, "to_recipe");
    lua_insert(L, -2);
    s.call(1, 1);
    return lua_tostring(L, -1);
  } catch (const Session::Failure& f) {
    throw Error(f.message);
  }
}

}  // namespace heapql::lua
