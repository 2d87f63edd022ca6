#include "lua/host/sandbox.h"

#include <fmt/format.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <system_error>

#include "engine/error.h"
#include "engine/path_beneath.h"
#include "engine/session/files_beside_trace.h"
#include "engine/text_file.h"
#include "lua/host/embedded_modules.h"
#include "lua/host/heapql_core.h"
#include "lua/host/lua_strings.h"
#include "lua/host/run_limits.h"

extern "C" int luaopen_lpeg(lua_State* L);

namespace heapql::lua {

namespace {

namespace fs = std::filesystem;

int sandbox_require(lua_State* L);

// Registry keys.
constexpr const char* kEnvKey = "heapql.env";          // the recipe environment
constexpr const char* kPreloadKey = "heapql.preload";  // name -> loader
constexpr const char* kLoadedKey = "heapql.loaded";    // name -> module value
constexpr const char* kFrozenKey = "heapql.frozen";    // set of read-only tables
constexpr const char* kFoldersKey = "heapql.folders";  // array of folder paths
constexpr const char* kFilesKey = "heapql.files";      // file path -> true (named) or "beside" (never a link)
constexpr const char* kSandboxedKey = "heapql.sandboxed";
constexpr const char* kTraceKey = "heapql.trace";  // the trace named on the command line, absolute as given
constexpr const char* kLibrarySourcesKey = "heapql.library_sources";  // set of the embedded modules' chunk names

// heapql.core is the library's own: in a sandbox nobody requires it; the
// heapql module gets it as its loader's second argument (load_embedded), so
// no finalizer a recipe left can reach it while the library loads.
constexpr std::string_view kPrivateModule = "heapql.core";

int load_embedded(lua_State* L) {
  const auto* module = static_cast<const EmbeddedModule*>(lua_touserdata(L, lua_upvalueindex(1)));
  lua_pushliteral(L, "@");
  lua_pushlstring(L, module->source_path.data(), module->source_path.size());
  lua_concat(L, 2);
  if (luaL_loadbufferx(L, module->source.data(), module->source.size(), lua_tostring(L, -1), "t") != LUA_OK) {
    return lua_error(L);
  }
  lua_getfield(L, LUA_REGISTRYINDEX, kEnvKey);
  if (!lua_isnil(L, -1)) {
    lua_setupvalue(L, -2, 1);
  } else {
    lua_pop(L, 1);
  }
  lua_pushvalue(L, 1);
  luaopen_heapql_core(L);  // `...` of the chunk: its name and heapql.core
  lua_call(L, 2, 1);
  return 1;
}

int readonly_newindex(lua_State* L) {
  const char* what = lua_tostring(L, lua_upvalueindex(1));
  const char* key = lua_isstring(L, 2) ? lua_tostring(L, 2) : luaL_typename(L, 2);
  return luaL_error(L, "cannot set '%s': %s", key, what);
}

// The iterator of a frozen table: a closure over the real table, which never
// leaves it (pairs would otherwise hand out the real table as its state).
int frozen_next(lua_State* L) {
  lua_settop(L, 2);
  if (lua_next(L, lua_upvalueindex(1)) == 0) return 0;
  return 2;
}

int frozen_pairs(lua_State* L) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushcclosure(L, frozen_next, 1);
  lua_pushnil(L);
  lua_pushnil(L);
  return 3;
}

int frozen_len(lua_State* L) {
  lua_pushinteger(L, static_cast<lua_Integer>(luaL_len(L, lua_upvalueindex(1))));
  return 1;
}

// Pushes a read-only proxy of the table at `real` and records it as frozen.
void push_proxy(lua_State* L, int real, const char* what) {
  real = lua_absindex(L, real);
  lua_newtable(L);                // proxy
  lua_createtable(L, 0, 5);       // its metatable
  lua_pushvalue(L, real);
  lua_setfield(L, -2, "__index");
  lua_pushstring(L, what);
  lua_pushcclosure(L, readonly_newindex, 1);
  lua_setfield(L, -2, "__newindex");
  lua_pushvalue(L, real);
  lua_pushcclosure(L, frozen_pairs, 1);
  lua_setfield(L, -2, "__pairs");
  lua_pushvalue(L, real);
  lua_pushcclosure(L, frozen_len, 1);
  lua_setfield(L, -2, "__len");
  lua_pushstring(L, "read-only");
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_getfield(L, LUA_REGISTRYINDEX, kFrozenKey);
  lua_pushvalue(L, -2);
  lua_pushboolean(L, 1);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

// Replaces the table at the top by a read-only proxy of it.
void freeze_top(lua_State* L, const char* what) {
  push_proxy(L, -1, what);
  lua_replace(L, -2);
}

// Replaces the module value at the top, a table, by a read-only proxy, and
// so every plain table (one without a metatable) reachable from it through
// values: the tables that held them hold their proxies. Objects (tables with
// a metatable) are the module's to guard. Iterative, breadth first.
void freeze_module_top(lua_State* L, const char* what) {
  const int root = lua_gettop(L);
  lua_newtable(L);  // real table -> its proxy (false until made)
  const int proxies = lua_gettop(L);
  lua_newtable(L);  // the real tables, in the order found
  const int order = lua_gettop(L);
  lua_pushvalue(L, root);
  lua_pushboolean(L, 0);
  lua_rawset(L, proxies);
  lua_pushvalue(L, root);
  lua_rawseti(L, order, 1);
  lua_Integer found = 1;
  for (lua_Integer i = 1; i <= found; ++i) {
    lua_rawgeti(L, order, i);
    const int table = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, table) != 0) {
      bool plain = lua_type(L, -1) == LUA_TTABLE;
      if (plain && lua_getmetatable(L, -1)) {
        lua_pop(L, 1);
        plain = false;
      }
      if (plain) {
        lua_pushvalue(L, -1);
        if (lua_rawget(L, proxies) == LUA_TNIL) {
          lua_pushvalue(L, -2);
          lua_pushboolean(L, 0);
          lua_rawset(L, proxies);
          lua_pushvalue(L, -2);
          lua_rawseti(L, order, ++found);
        }
        lua_pop(L, 1);
      }
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  for (lua_Integer i = 1; i <= found; ++i) {
    lua_rawgeti(L, order, i);
    push_proxy(L, -1, what);
    lua_rawset(L, proxies);
  }
  for (lua_Integer i = 1; i <= found; ++i) {
    lua_rawgeti(L, order, i);
    const int table = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, table) != 0) {
      if (lua_type(L, -1) == LUA_TTABLE) {
        if (lua_rawget(L, proxies) == LUA_TTABLE) {
          lua_pushvalue(L, -2);  // key
          lua_insert(L, -2);
          lua_rawset(L, table);  // existing field: allowed while iterating
        } else {
          lua_pop(L, 1);
        }
      } else {
        lua_pop(L, 1);
      }
    }
    lua_pop(L, 1);
  }
  lua_pushvalue(L, root);
  lua_rawget(L, proxies);
  lua_replace(L, root);
  lua_settop(L, root);
}

bool is_frozen(lua_State* L, int index) {
  index = lua_absindex(L, index);
  lua_getfield(L, LUA_REGISTRYINDEX, kFrozenKey);
  lua_pushvalue(L, index);
  lua_rawget(L, -2);
  const bool frozen = lua_toboolean(L, -1);
  lua_pop(L, 2);
  return frozen;
}

// A table whose metatable is protected (__metatable) is an object whose
// maker guards its fields (heapql's pattern sets and outputs).
bool has_protected_metatable(lua_State* L, int index) {
  if (!lua_getmetatable(L, index)) return false;
  lua_pushliteral(L, "__metatable");
  const bool protected_metatable = lua_rawget(L, -2) != LUA_TNIL;
  lua_pop(L, 2);
  return protected_metatable;
}

int safe_rawset(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  if (is_frozen(L, 1) || has_protected_metatable(L, 1)) {
    return luaL_error(L, "rawset: the globals and library tables are read-only in a recipe, and so are objects "
                      "with a protected metatable (heapql's pattern sets and outputs)");
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

int safe_load(lua_State* L) {
  const int n = lua_gettop(L);
  if (n >= 3 && !lua_isnil(L, 3)) {
    const char* mode = luaL_checkstring(L, 3);
    if (std::string_view(mode) != "t") {
      return luaL_error(L, "load: binary chunks are not allowed in a recipe (mode '%s'; only \"t\")", mode);
    }
  }
  if (lua_type(L, 1) == LUA_TSTRING && lua_tostring(L, 1)[0] == LUA_SIGNATURE[0]) {
    return luaL_error(L, "load: binary chunks are not allowed in a recipe");
  }
  lua_settop(L, 4);
  lua_pushstring(L, "t");
  lua_replace(L, 3);
  if (lua_isnil(L, 4)) {
    lua_getfield(L, LUA_REGISTRYINDEX, kEnvKey);
    lua_replace(L, 4);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, 4, LUA_MULTRET);
  return lua_gettop(L);
}

// The largest step collectgarbage("step", n) takes, in KiB (1 GiB of work).
constexpr lua_Integer kMostStepKib = lua_Integer{1} << 20;

// collectgarbage with the options that collect or measure. Those that stop
// or retune the collector are left out: they only let a recipe hold garbage
// until the memory cap ends it, or slow the whole run.
int safe_collectgarbage(lua_State* L) {
  const std::string_view option = luaL_optstring(L, 1, "collect");
  if (option == "step" && !lua_isnoneornil(L, 2)) {
    // Lua takes the step's size in KiB as an int: a larger one would wrap,
    // and a negative step stops the collector as "stop" would.
    const lua_Integer kib = luaL_checkinteger(L, 2);
    if (kib < 0 || kib > kMostStepKib) {
      return luaL_error(L, "collectgarbage('step', n): n must be a whole number of KiB from 0 to %d",
                        static_cast<int>(kMostStepKib));
    }
  }
  for (const char* allowed : {"collect", "count", "step", "isrunning"}) {
    if (option == allowed) {
      lua_settop(L, option == "step" ? 2 : 1);  // what Lua would read past them is not passed on
      lua_pushvalue(L, lua_upvalueindex(1));
      lua_insert(L, 1);
      lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
      return lua_gettop(L);
    }
  }
  // luaL_optstring's text is NUL-terminated; no C++ object may outlive the jump.
  return luaL_error(L, "collectgarbage('%s') is not available in a recipe (collect, count, step and isrunning are)",
                    option.data());
}

// LPeg's pattern metatable is shared by every pattern (heapql's grammars
// too); lock it as the string metatable is. re.lua takes it at load, so re is
// loaded first.
void lock_lpeg_metatable(lua_State* L) {
  lua_pushcfunction(L, sandbox_require);
  lua_pushliteral(L, "re");
  lua_call(L, 1, 0);
  lua_pushcfunction(L, sandbox_require);
  lua_pushliteral(L, "lpeg");
  lua_call(L, 1, 1);
  lua_getfield(L, -1, "P");
  lua_pushinteger(L, 0);
  lua_call(L, 1, 1);
  if (lua_getmetatable(L, -1)) {
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
  }
  lua_pop(L, 2);
}

// Reading a global that the sandbox leaves out says why, instead of nil.
int sandbox_global(lua_State* L) {
  lua_pushvalue(L, 2);
  lua_rawget(L, lua_upvalueindex(1));
  if (!lua_isnil(L, -1) || lua_type(L, 2) != LUA_TSTRING) return 1;
  const std::string_view name = lua_tostring(L, 2);
  for (const char* left_out : {"os", "io", "debug", "package", "dofile", "loadfile", "coroutine"}) {
    if (name == left_out) {
      return luaL_error(L, "'%s' is not available in a recipe (the sandbox has base, string, table, math, utf8, "
                        "lpeg, re and heapql; --trusted opens the full standard library)", left_out);
    }
  }
  return 1;
}

// print writes to stderr: stdout belongs to the report. What a run prints
// is bounded (run_limits.h): nothing past the bound is written.
int stderr_print(lua_State* L) {
  const int n = lua_gettop(L);
  for (int i = 1; i <= n; ++i) {
    std::size_t length = 0;
    const char* text = luaL_tolstring(L, i, &length);
    count_stderr_output(length + 1);  // with its tab or newline
    if (i > 1) std::fputc('\t', stderr);
    std::fwrite(text, 1, length, stderr);
    lua_pop(L, 1);
  }
  if (n == 0) count_stderr_output(1);
  std::fputc('\n', stderr);
  return 0;
}

bool valid_module_name(std::string_view name) {
  if (name.empty() || name.front() == '.' || name.back() == '.') return false;
  char previous = 0;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '.';
    if (!ok || (c == '.' && previous == '.')) return false;
    previous = c;
  }
  return true;
}

std::vector<fs::path> folders_of(lua_State* L) {
  const std::vector<std::string> texts = registry_string_array(L, kFoldersKey);
  return std::vector<fs::path>(texts.begin(), texts.end());
}

// Pushes the loaded chunk of module `name` from the allowed folders.
// Returns 1 (found, chunk pushed), 0 (not found), -1 (error message pushed).
int load_from_folders(lua_State* L, const char* name, std::string& searched) {
  std::string relative = name;
  for (char& c : relative) {
    if (c == '.') c = '/';
  }
  relative += ".lua";
  for (const fs::path& folder : folders_of(L)) {
    const fs::path path = folder / relative;
    searched += "\n\tno file '" + path.string() + "'";
    // A link beside the recipe may point anywhere: it is refused, whether or
    // not its target exists, unless it stays inside the folder.
    const std::optional<std::string> readable = readable_path(L, path.string());
    if (!readable) {
      lua_pushstring(L, fmt::format("module '{}': '{}' leads outside the folders a recipe may read", name,
                                    path.string()).c_str());
      return -1;
    }
    struct stat st {};
    if (::stat(readable->c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    std::string text;
    try {
      text = read_text_file(*readable, fmt::format("module '{}'", name));
    } catch (const Error& e) {
      lua_pushstring(L, e.what());
      return -1;
    }
    if (!load_recipe_chunk(L, text, "@" + path.string())) return -1;
    lua_pushstring(L, path.string().c_str());
    return 1;
  }
  return 0;
}

int sandbox_require(lua_State* L) {
  const char* name = luaL_checkstring(L, 1);
  lua_settop(L, 1);
  if (name == kPrivateModule) {
    return luaL_error(L, "module '%s' is heapql's own: a recipe uses its functions through require 'heapql'",
                      name);
  }
  lua_getfield(L, LUA_REGISTRYINDEX, kLoadedKey);  // 2
  lua_getfield(L, 2, name);
  if (!lua_isnil(L, -1)) return 1;
  lua_pop(L, 1);
  lua_getfield(L, LUA_REGISTRYINDEX, kPreloadKey);
  lua_getfield(L, -1, name);
  int found = 0;
  const bool library = !lua_isnil(L, -1);
  if (library) {
    lua_pushvalue(L, 1);
    lua_pushstring(L, ":preload:");
    found = 1;
  } else {
    lua_pop(L, 2);
    if (!valid_module_name(name)) {
      return luaL_error(L, "module '%s': not a module name (letters, digits, '_', '-' and '.' only)", name);
    }
    char searched[2048] = "";
    {
      std::string tried;
      found = load_from_folders(L, name, tried);
      std::snprintf(searched, sizeof searched, "%s", tried.c_str());
    }
    if (found < 0) return lua_error(L);
    if (found == 0) {
      return luaL_error(L,
                        "module '%s' is not available in a recipe: recipes may require heapql, heapql.*, lpeg, re "
                        "and .lua files beside the recipe or in the shipped queries/ folder; the full standard "
                        "library needs --trusted%s",
                        name, searched);
    }
    lua_pushvalue(L, 1);
    lua_insert(L, -2);  // chunk, name, path
  }
  lua_call(L, 2, 1);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    lua_pushboolean(L, 1);
  }
  if (lua_istable(L, -1) && !is_frozen(L, -1)) {
    // heapql's own modules are frozen through and through; a recipe's own
    // modules only at their top, as its globals are.
    if (library) {
      freeze_module_top(L, "modules are read-only in a recipe");
    } else {
      freeze_top(L, "modules are read-only in a recipe");
    }
  }
  lua_pushvalue(L, -1);
  lua_setfield(L, 2, name);
  return 1;
}

// Marks `path` readable as named (`true`) or as a file beside the trace ("beside").
void allow_path(lua_State* L, const std::string& path, bool beside) {
  lua_getfield(L, LUA_REGISTRYINDEX, kFilesKey);
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return;
  }
  const std::string key = absolute_as_given(path);
  lua_getfield(L, -1, key.c_str());
  const bool named = lua_toboolean(L, -1) && !lua_isstring(L, -1);
  lua_pop(L, 1);
  if (beside && !named) {
    lua_pushliteral(L, "beside");
  } else {
    lua_pushboolean(L, 1);
  }
  lua_setfield(L, -2, key.c_str());
  lua_pop(L, 1);
}

void set_registry_paths(lua_State* L, const SandboxOptions& options) {
  // Each folder as named (the links in its own path are the user's choice)
  // and as it resolves, so that a path given either way is found beneath it.
  std::vector<std::string> folders;
  for (const fs::path& folder : options.folders) {
    for (std::string form : {absolute_as_given(folder.string()), std::string()}) {
      if (form.empty()) {
        std::error_code error;
        const fs::path canonical = fs::canonical(folder, error);
        if (error) continue;
        form = canonical.string();
      }
      if (std::find(folders.begin(), folders.end(), form) == folders.end()) folders.push_back(form);
    }
  }
  push_string_array(L, folders);
  lua_setfield(L, LUA_REGISTRYINDEX, kFoldersKey);
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kFilesKey);
  for (const fs::path& file : options.files) allow_file(L, file);
  if (options.trace) {
    const std::string trace = options.trace->string();
    lua_pushstring(L, absolute_as_given(trace).c_str());
    lua_setfield(L, LUA_REGISTRYINDEX, kTraceKey);
    allow_path(L, trace, false);
    for (const std::string& beside : files_beside_trace(trace)) allow_path(L, beside, true);
  }
  lua_pushboolean(L, !options.trusted);
  lua_setfield(L, LUA_REGISTRYINDEX, kSandboxedKey);
}

void open_trusted(lua_State* L, const SandboxOptions& options) {
  luaL_openlibs(L);
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "preload");
  register_embedded_modules(L);
  lua_pop(L, 1);
  std::string path;
  for (const fs::path& folder : options.folders) path += (folder / "?.lua").string() + ";";
  lua_getfield(L, -1, "path");
  path += lua_tostring(L, -1);
  lua_pop(L, 1);
  lua_pushstring(L, path.c_str());
  lua_setfield(L, -2, "path");
  lua_pop(L, 1);
  lua_pushglobaltable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kEnvKey);
}

}  // namespace

void register_embedded_modules(lua_State* L) {
  const int preload = lua_gettop(L);
  const auto add = [&](const char* name, lua_CFunction loader, const void* upvalue) {
    lua_getfield(L, preload, name);
    const bool present = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (present) return;
    if (upvalue != nullptr) {
      lua_pushlightuserdata(L, const_cast<void*>(upvalue));
      lua_pushcclosure(L, loader, 1);
    } else {
      lua_pushcfunction(L, loader);
    }
    lua_setfield(L, preload, name);
  };
  add("lpeg", luaopen_lpeg, nullptr);
  add("heapql.core", luaopen_heapql_core, nullptr);
  for (const EmbeddedModule& module : embedded_modules()) {
    add(std::string(module.name).c_str(), load_embedded, &module);
  }
}

void open_sandbox(lua_State* L, const SandboxOptions& options) {
  lua_newtable(L);
  for (const EmbeddedModule& module : embedded_modules()) {
    lua_pushliteral(L, "@");
    lua_pushlstring(L, module.source_path.data(), module.source_path.size());
    lua_concat(L, 2);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
  }
  lua_setfield(L, LUA_REGISTRYINDEX, kLibrarySourcesKey);
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kLoadedKey);
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kFrozenKey);
  set_registry_paths(L, options);
  if (options.trusted) {
    open_trusted(L, options);
    return;
  }

  luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
  luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
  luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
  luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
  luaL_requiref(L, LUA_UTF8LIBNAME, luaopen_utf8, 1);
  lua_pop(L, 5);

  lua_pushglobaltable(L);  // the real globals, hidden behind the environment
  const int globals = lua_gettop(L);
  for (const char* removed : {"dofile", "loadfile"}) {
    lua_pushnil(L);
    lua_setfield(L, globals, removed);
  }
  lua_getfield(L, globals, "load");
  lua_pushcclosure(L, safe_load, 1);
  lua_setfield(L, globals, "load");
  lua_getfield(L, globals, "rawset");
  lua_pushcclosure(L, safe_rawset, 1);
  lua_setfield(L, globals, "rawset");
  lua_pushcfunction(L, stderr_print);
  lua_setfield(L, globals, "print");
  lua_getfield(L, globals, "collectgarbage");
  lua_pushcclosure(L, safe_collectgarbage, 1);
  lua_setfield(L, globals, "collectgarbage");
  lua_pushcfunction(L, sandbox_require);
  lua_setfield(L, globals, "require");

  lua_newtable(L);
  register_embedded_modules(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kPreloadKey);

  // string.dump makes bytecode, which load refuses anyway.
  lua_getfield(L, globals, LUA_STRLIBNAME);
  lua_pushnil(L);
  lua_setfield(L, -2, "dump");
  lua_pop(L, 1);
  for (const char* library : {LUA_STRLIBNAME, LUA_TABLIBNAME, LUA_MATHLIBNAME, LUA_UTF8LIBNAME}) {
    lua_getfield(L, globals, library);
    freeze_top(L, "library tables are read-only in a recipe");
    lua_setfield(L, globals, library);
  }
  // Strings share one metatable; keep recipes from reaching it.
  lua_pushliteral(L, "");
  lua_getmetatable(L, -1);
  lua_pushliteral(L, "string");
  lua_setfield(L, -2, "__metatable");
  lua_pop(L, 2);

  // The environment recipes see: reads fall through to the globals, writes fail.
  lua_newtable(L);
  const int env = lua_gettop(L);
  lua_createtable(L, 0, 3);
  lua_pushvalue(L, globals);
  lua_pushcclosure(L, sandbox_global, 1);
  lua_setfield(L, -2, "__index");
  lua_pushstring(L, "globals are read-only in a recipe (use a local)");
  lua_pushcclosure(L, readonly_newindex, 1);
  lua_setfield(L, -2, "__newindex");
  lua_pushstring(L, "read-only");
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, env);
  lua_getfield(L, LUA_REGISTRYINDEX, kFrozenKey);
  lua_pushvalue(L, env);
  lua_pushboolean(L, 1);
  lua_rawset(L, -3);
  lua_pop(L, 1);
  lua_pushvalue(L, env);
  lua_setfield(L, globals, "_G");
  lua_pushvalue(L, env);
  lua_setfield(L, LUA_REGISTRYINDEX, kEnvKey);
  lua_pop(L, 2);
  lock_lpeg_metatable(L);
}

bool load_recipe_chunk(lua_State* L, std::string_view source, const std::string& chunk_name) {
  if (luaL_loadbufferx(L, source.data(), source.size(), chunk_name.c_str(), "t") != LUA_OK) return false;
  lua_getfield(L, LUA_REGISTRYINDEX, kEnvKey);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
  } else {
    lua_setupvalue(L, -2, 1);
  }
  return true;
}

bool is_library_source(lua_State* L, const char* source) {
  if (source == nullptr) return false;
  lua_getfield(L, LUA_REGISTRYINDEX, kLibrarySourcesKey);
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return false;
  }
  lua_getfield(L, -1, source);
  const bool library = lua_toboolean(L, -1);
  lua_pop(L, 2);
  return library;
}

bool is_sandboxed(lua_State* L) {
  lua_getfield(L, LUA_REGISTRYINDEX, kSandboxedKey);
  const bool sandboxed = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return sandboxed;
}

std::optional<std::string> readable_path(lua_State* L, const std::string& path) {
  if (!is_sandboxed(L)) return path;
  if (path.empty() || path.find('\0') != std::string::npos) return std::nullopt;
  const std::string absolute = absolute_as_given(path);
  lua_getfield(L, LUA_REGISTRYINDEX, kFilesKey);
  lua_getfield(L, -1, absolute.c_str());
  const bool allowed = lua_toboolean(L, -1);
  const bool beside = lua_isstring(L, -1);
  lua_pop(L, 2);
  if (allowed) {
    // A file beside the trace counts only as itself: never through a link,
    // never a FIFO or a device.
    struct stat st {};
    if (!beside || ::lstat(absolute.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return path;
    return std::nullopt;
  }
  for (const fs::path& folder : folders_of(L)) {
    if (std::optional<std::string> resolved = resolve_beneath(folder.string(), absolute)) return resolved;
  }
  return std::nullopt;
}

bool is_named_file(lua_State* L, const std::string& path) {
  lua_getfield(L, LUA_REGISTRYINDEX, kFilesKey);
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return false;
  }
  lua_getfield(L, -1, absolute_as_given(path).c_str());
  const bool named = lua_isboolean(L, -1) && lua_toboolean(L, -1);
  lua_pop(L, 2);
  return named;
}

bool is_command_line_trace(lua_State* L, const std::string& path) {
  lua_getfield(L, LUA_REGISTRYINDEX, kTraceKey);
  const bool trace = lua_type(L, -1) == LUA_TSTRING && absolute_as_given(path) == lua_tostring(L, -1);
  lua_pop(L, 1);
  return trace;
}

void allow_file(lua_State* L, const fs::path& path) { allow_path(L, path.string(), false); }

}  // namespace heapql::lua
