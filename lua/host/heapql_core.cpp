#include "lua/host/heapql_core.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "engine/error.h"
#include "engine/text_file.h"
#include "engine/query/cull_list.h"
#include "engine/query/suppressions.h"
#include "engine/query/short_name.h"
#include "engine/warnings.h"
#include "engine/units.h"
#include "lua/host/lua_error.h"
#include "lua/host/lua_strings.h"
#include "lua/host/recipe_runner.h"
#include "lua/host/sandbox.h"

namespace heapql::lua {

int core_open(lua_State* L);  // trace_binding.cpp

namespace {

constexpr const char* kOutputKey = "heapql.output";
constexpr const char* kGatesKey = "heapql.gates";
constexpr const char* kOpenRawKey = "heapql.open_raw";
constexpr const char* kOpenStrictKey = "heapql.open_strict";
constexpr const char* kOpenStoreKey = "heapql.open_store";
constexpr const char* kOpenSymbolsKey = "heapql.open_symbols";
constexpr const char* kRecipeDirKey = "heapql.recipe_dir";
constexpr const char* kFullNamesKey = "heapql.full_names";
// Files the helpers read are pattern lists and small Lua files.
constexpr std::uint64_t kMaxReadBytes = 64u << 20;

int core_read_text(lua_State* L) {
  return protected_call(L, [&] {
    if (lua_type(L, 1) != LUA_TSTRING) throw Error("read: expected a path");
    const std::string path = lua_tostring(L, 1);
    const std::optional<std::string> readable = readable_path(L, path);
    if (!readable) {
      throw Error(fmt::format("'{}': a recipe may read files beside it, in the shipped queries/ folder, or named "
                              "on the command line (run with --trusted to read others)",
                              path));
    }
    const std::string text = read_text_file(*readable, "file", kMaxReadBytes);
    lua_pushlstring(L, text.data(), text.size());
    return 1;
  });
}

// The patterns of a suppressions file's text (engine/query/suppressions.h);
// its ignored lines are warned about.
int core_suppression_patterns(lua_State* L) {
  return protected_call(L, [&] {
    if (lua_type(L, 1) != LUA_TSTRING || lua_type(L, 2) != LUA_TSTRING) {
      throw Error("suppression_patterns: expected the text and its name");
    }
    const SuppressionList list = parse_suppressions(lua_tostring(L, 1), lua_tostring(L, 2));
    for (const std::string& note : list.notes) emit_warning(nullptr, note + "\n");
    std::vector<std::string> texts;
    for (const SuppressionPattern& p : list.patterns) texts.push_back(p.text());
    push_string_array(L, texts);
    return 1;
  });
}

int core_short_name(lua_State* L) {
  std::size_t length = 0;
  const char* frame = luaL_checklstring(L, 1, &length);
  return protected_call(L, [&] {
    const std::string name = short_frame_name(std::string_view(frame, length));
    lua_pushlstring(L, name.data(), name.size());
    return 1;
  });
}

int core_default_cull(lua_State* L) {
  return protected_call(L, [&] {
    push_string_array(L, default_cull_pattern_texts());
    return 1;
  });
}

int core_write(lua_State* L) {
  std::size_t length = 0;
  const char* text = luaL_checklstring(L, 1, &length);
  return protected_call(L, [&] {
    write_output(L, std::string_view(text, length));
    return 0;
  });
}

int core_fail_gate(lua_State* L) {
  const char* message = luaL_checkstring(L, 1);
  lua_getfield(L, LUA_REGISTRYINDEX, kGatesKey);
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, kGatesKey);
  }
  lua_pushstring(L, message);
  lua_rawseti(L, -2, static_cast<lua_Integer>(lua_rawlen(L, -2) + 1));
  return 0;
}

int core_gate_count(lua_State* L) {
  lua_getfield(L, LUA_REGISTRYINDEX, kGatesKey);
  lua_pushinteger(L, lua_istable(L, -1) ? static_cast<lua_Integer>(lua_rawlen(L, -1)) : 0);
  return 1;
}

// Signed, so that impacting sizes (which may be negative) print too.
int core_format_bytes(lua_State* L) {
  const lua_Integer n = luaL_checkinteger(L, 1);
  return protected_call(L, [&] {
    const std::uint64_t magnitude = n < 0 ? 0 - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
    lua_pushstring(L, ((n < 0 ? "-" : "") + format_bytes_human(magnitude)).c_str());
    return 1;
  });
}

int core_format_duration(lua_State* L) {
  const lua_Integer n = luaL_checkinteger(L, 1);
  return protected_call(L, [&] {
    lua_pushstring(L, format_duration(n).c_str());
    return 1;
  });
}

int core_queries_dir(lua_State* L) {
  return protected_call(L, [&] {
    lua_pushstring(L, queries_folder().string().c_str());
    return 1;
  });
}

int core_recipe_dir(lua_State* L) {
  lua_getfield(L, LUA_REGISTRYINDEX, kRecipeDirKey);
  return 1;
}

int core_trace_methods(lua_State* L) {
  push_trace_methods(L);
  return 1;
}

}  // namespace

void set_output_buffer(lua_State* L, std::string* buffer) {
  lua_pushlightuserdata(L, buffer);
  lua_setfield(L, LUA_REGISTRYINDEX, kOutputKey);
}

void write_output(lua_State* L, std::string_view text) {
  lua_getfield(L, LUA_REGISTRYINDEX, kOutputKey);
  auto* buffer = static_cast<std::string*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  if (buffer != nullptr) {
    buffer->append(text);
  } else if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    // Outside `heapql run` (the module loaded by lua5.4): a short write is an error, not a short report.
    throw Error(SourceLocation::of_file("standard output"), std::string("cannot write: ") + std::strerror(errno));
  }
}

std::vector<std::string> failed_gates(lua_State* L) { return registry_string_array(L, kGatesKey); }

void set_open_options(lua_State* L, const OpenOptions& options) {
  lua_pushboolean(L, options.use_raw_twin);
  lua_setfield(L, LUA_REGISTRYINDEX, kOpenRawKey);
  lua_pushboolean(L, options.strict);
  lua_setfield(L, LUA_REGISTRYINDEX, kOpenStrictKey);
  lua_pushboolean(L, options.use_store);
  lua_setfield(L, LUA_REGISTRYINDEX, kOpenStoreKey);
  push_string_array(L, options.symbol_paths);
  lua_setfield(L, LUA_REGISTRYINDEX, kOpenSymbolsKey);
}

void set_display_options(lua_State* L, const DisplayOptions& display) {
  lua_pushboolean(L, display.full_names);
  lua_setfield(L, LUA_REGISTRYINDEX, kFullNamesKey);
}

DisplayOptions display_options(lua_State* L) {
  DisplayOptions display;
  lua_getfield(L, LUA_REGISTRYINDEX, kFullNamesKey);
  display.full_names = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return display;
}

OpenOptions open_options(lua_State* L) {
  OpenOptions options;
  options.show_progress = false;
  lua_getfield(L, LUA_REGISTRYINDEX, kOpenRawKey);
  options.use_raw_twin = lua_isnil(L, -1) || lua_toboolean(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, LUA_REGISTRYINDEX, kOpenStrictKey);
  options.strict = lua_toboolean(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, LUA_REGISTRYINDEX, kOpenStoreKey);
  options.use_store = lua_isnil(L, -1) || lua_toboolean(L, -1);
  lua_pop(L, 1);
  options.symbol_paths = registry_string_array(L, kOpenSymbolsKey);
  options.confined = is_sandboxed(L);
  return options;
}

void set_recipe_dir(lua_State* L, const std::string& dir) {
  lua_pushstring(L, dir.c_str());
  lua_setfield(L, LUA_REGISTRYINDEX, kRecipeDirKey);
}

int luaopen_heapql_core(lua_State* L) {
  const luaL_Reg functions[] = {{"open", core_open},
                                {"read_text", core_read_text},
                                {"default_cull", core_default_cull},
                                {"suppression_patterns", core_suppression_patterns},
                                {"write", core_write},
                                {"fail_gate", core_fail_gate},
                                {"gate_count", core_gate_count},
                                {"format_bytes", core_format_bytes},
                                {"format_duration", core_format_duration},
                                {"recipe_dir", core_recipe_dir},
                                {"queries_dir", core_queries_dir},
                                {"trace_methods", core_trace_methods},
                                {"diff", core_diff},
                                {"short_name", core_short_name},
                                {nullptr, nullptr}};
  luaL_newlib(L, functions);
  push_grammar_functions(L);
  lua_setfield(L, -2, "grammar");
  return 1;
}

}  // namespace heapql::lua
