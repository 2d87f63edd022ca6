// Lua's numbers as text, the same on Linux and Windows: heapql.exe's Lua is
// built with -D__USE_MINGW_ANSI_STDIO=1 (cmake/toolchains), without which
// msvcrt's printf writes three-digit exponents ("1e+020") and recipes'
// output would differ from Linux's.
#include <gtest/gtest.h>

#include <string>

#include <lua.hpp>

namespace heapql::test {
namespace {

std::string lua_text(const char* expression) {
  lua_State* L = luaL_newstate();
  luaL_openlibs(L);
  const std::string chunk = std::string("return ") + expression;
  std::string text;
  if (luaL_loadstring(L, chunk.c_str()) != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK) {
    text = std::string("error: ") + lua_tostring(L, -1);
  } else {
    text = lua_tostring(L, -1);
  }
  lua_close(L);
  return text;
}

TEST(LuaNumberText, ExponentsHaveTwoDigitsAtLeast) {
  EXPECT_EQ(lua_text("tostring(1e20)"), "1e+20");
  EXPECT_EQ(lua_text("tostring(2^63)"), "9.2233720368548e+18");
  EXPECT_EQ(lua_text("tostring(1.5e-7)"), "1.5e-07");
  EXPECT_EQ(lua_text("string.format('%g|%e', 1e20, 12345.678)"), "1e+20|1.234568e+04");
}

TEST(LuaNumberText, FixedFormatsAndSpecialValues) {
  EXPECT_EQ(lua_text("string.format('%.3f|%5.1f|%d', 2.0005, -0.0, 7)"), "2.001| -0.0|7");
  EXPECT_EQ(lua_text("tostring(math.huge) .. ' ' .. tostring(-math.huge)"), "inf -inf");
  EXPECT_EQ(lua_text("tostring(0.1 + 0.2)"), "0.3");
  EXPECT_EQ(lua_text("string.format('%.17g', 0.1 + 0.2)"), "0.30000000000000004");
  EXPECT_EQ(lua_text("tostring(math.mininteger)"), "-9223372036854775808");
}

}  // namespace
}  // namespace heapql::test
