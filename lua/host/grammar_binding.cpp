// The little languages for Lua (heapql.grammar binds these): durations, sizes,
// their ranges, frame patterns and cull list files are parsed by the engine's
// one implementation (engine/units.h, frame_pattern.h, cull_list.h), so a
// recipe and the command line accept the same texts with the same messages.
// Each returns the value, or nil and the message; none raises on bad text.
#include <fmt/format.h>

#include <limits>

#include "engine/error.h"
#include "engine/query/cull_list.h"
#include "engine/query/frame_pattern.h"
#include "engine/units.h"
#include "lua/host/heapql_core.h"
#include "lua/host/lua_error.h"
#include "lua/host/lua_strings.h"

namespace heapql::lua {

namespace {

// Lua integers are signed: the largest size a recipe can hold is 2^63 - 1.
constexpr std::uint64_t kLuaMaxBytes = static_cast<std::uint64_t>(std::numeric_limits<lua_Integer>::max());

// Runs `parse` on argument 1 (a string): its results, or nil and the message.
template <typename Parse>
int parse_text(lua_State* L, const char* what, Parse parse) {
  if (lua_type(L, 1) != LUA_TSTRING) {
    lua_pushnil(L);
    lua_pushstring(L, fmt::format("{}: expected a string, got {}", what, luaL_typename(L, 1)).c_str());
    return 2;
  }
  std::size_t length = 0;
  const char* data = lua_tolstring(L, 1, &length);
  const std::string_view text(data, length);
  return protected_call(L, [&] {
    try {
      return parse(text);
    } catch (const Error& e) {
      lua_pushnil(L);
      lua_pushstring(L, e.what());
      return 2;
    }
  });
}

void push_range(lua_State* L, lua_Integer first, std::optional<lua_Integer> last) {
  lua_createtable(L, 0, 2);
  lua_pushinteger(L, first);
  lua_setfield(L, -2, "first");
  if (last) {
    lua_pushinteger(L, *last);
    lua_setfield(L, -2, "last");
  }
}

int core_parse_duration(lua_State* L) {
  return parse_text(L, "duration", [&](std::string_view text) {
    lua_pushinteger(L, parse_duration_ns(text));
    return 1;
  });
}

int core_parse_size(lua_State* L) {
  return parse_text(L, "size", [&](std::string_view text) {
    lua_pushinteger(L, static_cast<lua_Integer>(parse_size_bytes(text, kLuaMaxBytes)));
    return 1;
  });
}

int core_parse_duration_range(lua_State* L) {
  return parse_text(L, "duration range", [&](std::string_view text) {
    const DurationRange r = parse_duration_range(text);
    push_range(L, r.begin_ns, r.end_ns);
    return 1;
  });
}

int core_parse_size_range(lua_State* L) {
  return parse_text(L, "size range", [&](std::string_view text) {
    const SizeRange r = parse_size_range(text, kLuaMaxBytes);
    push_range(L, static_cast<lua_Integer>(r.begin),
               r.end ? std::optional<lua_Integer>(static_cast<lua_Integer>(*r.end)) : std::nullopt);
    return 1;
  });
}

int core_check_frame_pattern(lua_State* L) {
  return parse_text(L, "frame pattern", [&](std::string_view text) {
    FramePattern::parse(text);
    lua_pushvalue(L, 1);
    return 1;
  });
}

// (text, name): the patterns of a cull list file, errors located at name:line.
int core_parse_cull_list(lua_State* L) {
  if (!lua_isnoneornil(L, 2) && lua_type(L, 2) != LUA_TSTRING) {
    lua_pushnil(L);
    lua_pushstring(L, fmt::format("cull list name: expected a string, got {}", luaL_typename(L, 2)).c_str());
    return 2;
  }
  const std::string name = lua_isstring(L, 2) ? lua_tostring(L, 2) : "";
  return parse_text(L, "cull list", [&](std::string_view text) {
    std::vector<std::string> texts;
    const FramePatternSet set = parse_cull_list(text, name);
    for (const FramePattern& p : set.patterns()) texts.push_back(p.text());
    push_string_array(L, texts);
    return 1;
  });
}

}  // namespace

void push_grammar_functions(lua_State* L) {
  const luaL_Reg functions[] = {{"duration", core_parse_duration},
                                {"size", core_parse_size},
                                {"duration_range", core_parse_duration_range},
                                {"size_range", core_parse_size_range},
                                {"frame_pattern", core_check_frame_pattern},
                                {"cull_list", core_parse_cull_list},
                                {nullptr, nullptr}};
  luaL_newlib(L, functions);
}

}  // namespace heapql::lua
