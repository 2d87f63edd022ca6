#include "lua/host/sandbox.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <span>
#include <system_error>

#include "engine/error.h"
#include "engine/path_beneath.h"
#include "engine/platform/utf8_wide.h"
#include "engine/session/files_beside_trace.h"
#include "engine/text_file.h"
#include "engine/windows_path_rules.h"
#include "lua/host/embedded_chunk.h"
#include "lua/host/embedded_modules.h"
#include "lua/host/heapql_core.h"
#include "lua/host/lua_strings.h"
#include "lua/host/run_context.h"
#include "lua/host/run_limits.h"

extern "C" int luaopen_lpeg(lua_State* L);

namespace heapql::lua {

namespace {

namespace fs = std::filesystem;

int safe_load(lua_State* L);
int safe_rawset(lua_State* L);
int stderr_print(lua_State* L);
int safe_collectgarbage(lua_State* L);
int sandbox_require(lua_State* L);

// What a recipe gets and what it is refused, one entry a name. open_sandbox
// builds the environment from it, and every message that names what is
// allowed or left out is written from it, as is docs/recipes.md's list
// (through core.sandbox). A C++ table, not a Lua one: its entries are the C
// functions that build the environment (the libraries' openers, the
// sandbox's versions of base functions), and it is read before any Lua
// module can load.
enum class Access {
  kLibrary,   // a standard library a recipe gets: its table read-only (base's is the globals)
  kModule,    // what `require` finds: a C loader, else heapql's embedded modules of that name ("NAME.*": under NAME)
  kPrivate,   // a module the library loads but a recipe may not require
  kReplaced,  // a global a recipe gets in the sandbox's version, which holds the original as upvalue 1
  kRemoved,   // a function taken out of a library ("LIBRARY.NAME")
  kLeftOut,   // a library or global a recipe does not get: reading it says so
  kGcOption,  // an option collectgarbage takes: those that collect or measure
};

struct SandboxEntry {
  const char* name;
  Access access;
  lua_CFunction function = nullptr;  // kLibrary: its opener; kModule, kPrivate: its loader; kReplaced: the version
};

constexpr SandboxEntry kSandbox[] = {
    {"base", Access::kLibrary, luaopen_base},
    {"string", Access::kLibrary, luaopen_string},
    {"table", Access::kLibrary, luaopen_table},
    {"math", Access::kLibrary, luaopen_math},
    {"utf8", Access::kLibrary, luaopen_utf8},
    {"lpeg", Access::kModule, luaopen_lpeg},
    {"re", Access::kModule},
    {"heapql", Access::kModule},
    {"heapql.*", Access::kModule},
    // The heapql module gets it as its loader's second argument
    // (load_embedded), so no finalizer a recipe left can reach it while the
    // library loads.
    {"heapql.core", Access::kPrivate, luaopen_heapql_core},
    {"os", Access::kLeftOut},
    {"io", Access::kLeftOut},
    {"debug", Access::kLeftOut},
    {"package", Access::kLeftOut},
    {"coroutine", Access::kLeftOut},
    {"dofile", Access::kLeftOut},
    {"loadfile", Access::kLeftOut},
    {"load", Access::kReplaced, safe_load},
    {"string.dump", Access::kRemoved},  // it makes bytecode, which load refuses anyway
    {"rawset", Access::kReplaced, safe_rawset},
    {"print", Access::kReplaced, stderr_print},
    {"collectgarbage", Access::kReplaced, safe_collectgarbage},
    {"require", Access::kReplaced, sandbox_require},
    // Those that stop or retune the collector are left out: they only let a
    // recipe hold garbage until the memory cap ends it, or slow the whole run.
    {"collect", Access::kGcOption},
    {"count", Access::kGcOption},
    {"step", Access::kGcOption},
    {"isrunning", Access::kGcOption},
};

// The largest step collectgarbage("step", n) takes, in KiB (1 GiB of work).
constexpr lua_Integer kMostStepKib = lua_Integer{1} << 20;

std::vector<std::string> names_of(Access access) {
  std::vector<std::string> names;
  for (const SandboxEntry& entry : kSandbox) {
    if (entry.access == access) names.emplace_back(entry.name);
  }
  return names;
}

bool has_entry(Access access, std::string_view name) {
  return std::any_of(std::begin(kSandbox), std::end(kSandbox),
                     [&](const SandboxEntry& entry) { return entry.access == access && entry.name == name; });
}

// "a, b and c".
std::string spoken_list(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " and " : ", ";
    text += names[i];
  }
  return text;
}

// The libraries and modules a recipe has, as messages name them: "base,
// string, ..., re and heapql".
const std::string& granted_text() {
  static const std::string text = [] {
    std::vector<std::string> names = names_of(Access::kLibrary);
    for (const std::string& module : names_of(Access::kModule)) {
      if (!module.ends_with(".*")) names.push_back(module);
    }
    return spoken_list(names);
  }();
  return text;
}

// What `require` finds, as its refusal names it.
const std::string& requirable_text() {
  static const std::string text = [] {
    std::vector<std::string> names = names_of(Access::kModule);
    names.emplace_back(".lua files beside the recipe or in the shipped queries/ folder");
    return spoken_list(names);
  }();
  return text;
}

const std::string& gc_options_text() {
  static const std::string text = spoken_list(names_of(Access::kGcOption));
  return text;
}

// Whether embedded module `name` is one a kModule entry names.
bool is_library_module(std::string_view name) {
  for (const SandboxEntry& entry : kSandbox) {
    if (entry.access != Access::kModule || entry.function != nullptr) continue;
    const std::string_view pattern = entry.name;
    if (pattern.ends_with(".*") ? name.starts_with(pattern.substr(0, pattern.size() - 1)) : name == pattern) {
      return true;
    }
  }
  return false;
}

// Records the table at `index` as read-only: rawset refuses it.
void mark_frozen(lua_State* L, int index) {
  index = lua_absindex(L, index);
  push_run_value(L, RunValue::kFrozen);
  if (lua_istable(L, -1)) {
    lua_pushvalue(L, index);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
  }
  lua_pop(L, 1);
}

int load_embedded(lua_State* L) {
  const EmbeddedModule* module = &embedded_modules()[static_cast<std::size_t>(lua_tointeger(L, lua_upvalueindex(1)))];
  if (load_embedded_chunk(L, *module) != LUA_OK) return lua_error(L);
  push_run_value(L, RunValue::kEnvironment);
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
  mark_frozen(L, -1);
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
  push_run_value(L, RunValue::kFrozen);
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return false;
  }
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
    push_run_value(L, RunValue::kEnvironment);
    lua_replace(L, 4);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, 4, LUA_MULTRET);
  return lua_gettop(L);
}

// collectgarbage with the options kSandbox lists.
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
  if (has_entry(Access::kGcOption, option)) {
    lua_settop(L, option == "step" ? 2 : 1);  // what Lua would read past them is not passed on
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
  }
  // luaL_optstring's text is NUL-terminated and the list a static; no C++
  // object may outlive the jump.
  return luaL_error(L, "collectgarbage('%s') is not available in a recipe (%s are)", option.data(),
                    gc_options_text().c_str());
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
  const char* name = lua_tostring(L, 2);
  if (!has_entry(Access::kLeftOut, name)) return 1;
  return luaL_error(L, "'%s' is not available in a recipe (the sandbox has %s; --trusted opens the full standard "
                    "library)", name, granted_text().c_str());
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

// Pushes the loaded chunk of module `name` from the allowed folders.
// Returns 1 (found, chunk pushed), 0 (not found), -1 (error message pushed).
int load_from_folders(lua_State* L, const char* name, std::string& searched) {
  std::string relative = name;
  for (char& c : relative) {
    if (c == '.') c = '/';
  }
  relative += ".lua";
  const std::vector<std::string> folders = run_context(L).folders;  // a copy: loading runs Lua code
  for (const std::string& folder : folders) {
    const std::string path = utf8_from_path(path_from_utf8(folder) / relative);
    searched += "\n\tno file '" + path + "'";
    // A link beside the recipe may point anywhere: it is refused, whether or
    // not its target exists, unless it stays inside the folder.
    const std::optional<std::string> readable = readable_path(L, path);
    if (!readable) {
      lua_pushstring(L, fmt::format("module '{}': '{}' leads outside the folders a recipe may read", name,
                                    path).c_str());
      return -1;
    }
    std::error_code error;
    if (!fs::is_regular_file(path_from_utf8(*readable), error)) continue;
    std::string text;
    try {
      text = read_text_file(*readable, fmt::format("module '{}'", name));
    } catch (const Error& e) {
      lua_pushstring(L, e.what());
      return -1;
    }
    if (!load_recipe_chunk(L, text, "@" + path)) return -1;
    lua_pushstring(L, path.c_str());
    return 1;
  }
  return 0;
}

int sandbox_require(lua_State* L) {
  const char* name = luaL_checkstring(L, 1);
  lua_settop(L, 1);
  if (has_entry(Access::kPrivate, name)) {
    return luaL_error(L, "module '%s' is heapql's own: a recipe uses its functions through require 'heapql'",
                      name);
  }
  push_run_value(L, RunValue::kLoaded);  // 2
  lua_getfield(L, 2, name);
  if (!lua_isnil(L, -1)) return 1;
  lua_pop(L, 1);
  push_run_value(L, RunValue::kPreload);
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
      return luaL_error(L, "module '%s' is not available in a recipe: recipes may require %s; --trusted opens the "
                        "full standard library%s", name, requirable_text().c_str(), searched);
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

// Whether two paths made by absolute_as_given name the same file as written:
// byte for byte on Linux; on Windows component by component, as NTFS
// compares names (C:\\Data\\T.etl is c:/data/t.etl).
bool same_absolute_path(const std::string& a, const std::string& b) {
#ifdef _WIN32
  const std::vector<std::string> pa = windows_path_components(a), pb = windows_path_components(b);
  return pa.size() == pb.size() && std::equal(pa.begin(), pa.end(), pb.begin(), same_windows_name);
#else
  return a == b;
#endif
}

// The grant of the file at `absolute`, or files.end().
auto find_granted_file(const RunContext& context, const std::string& absolute) {
#ifdef _WIN32
  return std::find_if(context.files.begin(), context.files.end(),
                      [&](const auto& file) { return same_absolute_path(file.first, absolute); });
#else
  return context.files.find(absolute);
#endif
}

// Marks `path` readable as named, or as a file beside the trace.
void allow_path(RunContext& context, const std::string& path, FileGrant grant) {
  const std::string absolute = absolute_as_given(path);
  const auto found = find_granted_file(context, absolute);
  if (found == context.files.end()) {
    context.files.emplace(absolute, grant);
  } else if (grant == FileGrant::kNamed) {
    context.files[found->first] = FileGrant::kNamed;  // named wins over beside
  }
}

void set_readable_paths(RunContext& context, const SandboxOptions& options) {
  // Each folder as named (the links in its own path are the user's choice)
  // and as it resolves, so that a path given either way is found beneath it.
  std::vector<std::string>& folders = context.folders;
  for (const fs::path& folder : options.folders) {
    for (std::string form : {absolute_as_given(utf8_from_path(folder)), std::string()}) {
      if (form.empty()) {
        const std::optional<std::string> canonical = canonical_folder(utf8_from_path(folder));
        if (!canonical) continue;
        form = *canonical;
      }
      if (std::find(folders.begin(), folders.end(), form) == folders.end()) folders.push_back(form);
    }
  }
  for (const fs::path& file : options.files) allow_path(context, utf8_from_path(file), FileGrant::kNamed);
  if (options.trace) {
    const std::string trace = utf8_from_path(*options.trace);
    context.trace = absolute_as_given(trace);
    allow_path(context, trace, FileGrant::kNamed);
    for (const std::string& beside : files_beside_trace(trace)) allow_path(context, beside, FileGrant::kBeside);
  }
  context.sandboxed = !options.trusted;
  context.open.confined = !options.trusted;  // the side files of the traces it opens only as themselves
}

void open_trusted(lua_State* L, const SandboxOptions& options) {
  luaL_openlibs(L);
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "preload");
  register_embedded_modules(L);
  lua_pop(L, 1);
  std::string path;
  for (const fs::path& folder : options.folders) path += utf8_from_path(folder / "?.lua") + ";";
  lua_getfield(L, -1, "path");
  path += lua_tostring(L, -1);
  lua_pop(L, 1);
  lua_pushstring(L, path.c_str());
  lua_setfield(L, -2, "path");
  lua_pop(L, 1);
  lua_pushglobaltable(L);
  set_run_value(L, RunValue::kEnvironment);
}

// Sets the global `name` of the globals at `globals` to the sandbox's
// version, which gets the original (or nil) as upvalue 1.
void replace_global(lua_State* L, int globals, const char* name, lua_CFunction version) {
  lua_getfield(L, globals, name);
  lua_pushcclosure(L, version, 1);
  lua_setfield(L, globals, name);
}

// Sets field NAME of library LIBRARY ("LIBRARY.NAME") to nil.
void remove_library_function(lua_State* L, int globals, std::string_view qualified) {
  const std::size_t dot = qualified.find('.');
  const std::string library(qualified.substr(0, dot));
  const std::string name(qualified.substr(dot + 1));
  lua_getfield(L, globals, library.c_str());
  lua_pushnil(L);
  lua_setfield(L, -2, name.c_str());
  lua_pop(L, 1);
}

}  // namespace

void register_embedded_modules(lua_State* L) {
  const int preload = lua_gettop(L);
  const auto add = [&](const char* name, lua_CFunction loader, std::optional<std::size_t> embedded) {
    lua_getfield(L, preload, name);
    const bool present = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (present) return;
    if (embedded) {
      lua_pushinteger(L, static_cast<lua_Integer>(*embedded));
      lua_pushcclosure(L, loader, 1);
    } else {
      lua_pushcfunction(L, loader);
    }
    lua_setfield(L, preload, name);
  };
  for (const SandboxEntry& entry : kSandbox) {
    if ((entry.access == Access::kModule || entry.access == Access::kPrivate) && entry.function != nullptr) {
      add(entry.name, entry.function, std::nullopt);
    }
  }
  const std::span<const EmbeddedModule> modules = embedded_modules();
  for (std::size_t i = 0; i < modules.size(); ++i) {
    if (is_library_module(modules[i].name)) add(std::string(modules[i].name).c_str(), load_embedded, i);
  }
}

void open_sandbox(lua_State* L, const SandboxOptions& options) {
  set_readable_paths(run_context(L), options);
  lua_newtable(L);
  set_run_value(L, RunValue::kLoaded);
  lua_newtable(L);
  set_run_value(L, RunValue::kFrozen);
  if (options.trusted) {
    open_trusted(L, options);
    return;
  }

  lua_pushglobaltable(L);  // the real globals, hidden behind the environment
  const int globals = lua_gettop(L);
  // The libraries first: the entries after them change what they opened.
  for (const SandboxEntry& entry : kSandbox) {
    if (entry.access != Access::kLibrary) continue;
    // base opens into the globals themselves.
    luaL_requiref(L, std::string_view(entry.name) == "base" ? LUA_GNAME : entry.name, entry.function, 1);
    lua_pop(L, 1);
  }
  for (const SandboxEntry& entry : kSandbox) {
    if (entry.access == Access::kLeftOut) {
      lua_pushnil(L);  // base brings dofile and loadfile; the libraries left out are never opened
      lua_setfield(L, globals, entry.name);
    } else if (entry.access == Access::kReplaced) {
      replace_global(L, globals, entry.name, entry.function);
    } else if (entry.access == Access::kRemoved) {
      remove_library_function(L, globals, entry.name);
    }
  }

  lua_newtable(L);
  register_embedded_modules(L);
  set_run_value(L, RunValue::kPreload);

  for (const std::string& library : names_of(Access::kLibrary)) {
    if (library == "base") continue;  // the globals: behind the environment below
    lua_getfield(L, globals, library.c_str());
    freeze_top(L, "library tables are read-only in a recipe");
    lua_setfield(L, globals, library.c_str());
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
  mark_frozen(L, env);
  lua_pushvalue(L, env);
  lua_setfield(L, globals, "_G");
  lua_pushvalue(L, env);
  set_run_value(L, RunValue::kEnvironment);
  lua_pop(L, 2);
  lock_lpeg_metatable(L);
}

void push_sandbox_table(lua_State* L) {
  lua_createtable(L, 0, 8);
  const auto set_names = [&](const char* field, Access access) {
    push_string_array(L, names_of(access));
    lua_setfield(L, -2, field);
  };
  set_names("libraries", Access::kLibrary);
  set_names("modules", Access::kModule);
  set_names("private", Access::kPrivate);
  set_names("replaced", Access::kReplaced);
  set_names("removed", Access::kRemoved);
  set_names("left_out", Access::kLeftOut);
  set_names("collectgarbage", Access::kGcOption);
  lua_pushinteger(L, kMostStepKib);
  lua_setfield(L, -2, "most_step_kib");
}

bool load_recipe_chunk(lua_State* L, std::string_view source, const std::string& chunk_name) {
  if (luaL_loadbufferx(L, source.data(), source.size(), chunk_name.c_str(), "t") != LUA_OK) return false;
  push_run_value(L, RunValue::kEnvironment);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
  } else {
    lua_setupvalue(L, -2, 1);
  }
  return true;
}

bool is_library_source(const char* source) {
  if (source == nullptr || source[0] != '@') return false;
  const std::string_view path = source + 1;
  const std::span<const EmbeddedModule> modules = embedded_modules();
  return std::any_of(modules.begin(), modules.end(),
                     [&](const EmbeddedModule& module) { return module.source_path == path; });
}

bool is_sandboxed(lua_State* L) { return run_context(L).sandboxed; }

std::optional<std::string> readable_path(lua_State* L, const std::string& path) {
  const RunContext& context = run_context(L);
  if (!context.sandboxed) return path;
  if (path.empty() || path.find('\0') != std::string::npos) return std::nullopt;
  const std::string absolute = absolute_as_given(path);
  if (const auto file = find_granted_file(context, absolute); file != context.files.end()) {
    // A file beside the trace counts only as itself: never through a link,
    // never a FIFO or a device.
    if (file->second == FileGrant::kNamed || !is_there_but_not_a_plain_file(absolute)) return path;
    return std::nullopt;
  }
  for (const std::string& folder : context.folders) {
    if (std::optional<std::string> resolved = resolve_beneath(folder, absolute)) return resolved;
  }
  return std::nullopt;
}

bool is_named_file(lua_State* L, const std::string& path) {
  const RunContext& context = run_context(L);
  const auto file = find_granted_file(context, absolute_as_given(path));
  return file != context.files.end() && file->second == FileGrant::kNamed;
}

bool is_command_line_trace(lua_State* L, const std::string& path) {
  const std::optional<std::string>& trace = run_context(L).trace;
  return trace && same_absolute_path(absolute_as_given(path), *trace);
}

void allow_file(lua_State* L, const fs::path& path) { allow_path(run_context(L), utf8_from_path(path), FileGrant::kNamed); }

}  // namespace heapql::lua
