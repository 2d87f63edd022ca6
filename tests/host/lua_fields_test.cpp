// The argument and field helpers every binding reads Lua values with
// (lua/host/lua_fields.h): values are read raw and type-checked, and a
// refusal names the argument or field one way.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <lua.hpp>

#include "engine/error.h"
#include "lua/host/lua_fields.h"
#include "lua/host/lua_state.h"

namespace heapql::test {
namespace {

using lua::Arguments;
using lua::Fields;

class LuaFields : public ::testing::Test {
 protected:
  void SetUp() override { luaL_openlibs(L); }

  // Pushes the value of a Lua expression.
  void push(const std::string& expression) {
    ASSERT_EQ(luaL_dostring(L, ("return " + expression).c_str()), LUA_OK) << lua_tostring(L, -1);
  }

  // The message of the Error `read` throws ("" when it throws none).
  template <class Read>
  static std::string refusal(Read read) {
    try {
      read();
    } catch (const Error& e) {
      return e.message();
    }
    return "";
  }

  lua::LuaState state;
  lua_State* L = state.get();
};

TEST_F(LuaFields, ReadsTypedFields) {
  push("{flag = true, name = 'x', n = 3, whole = 4.0, list = {'a', 'b'}, ids = {1, 2}, span = {first = 2, last = 5}}");
  const Fields f(L, -1, "test field");
  EXPECT_TRUE(f.boolean("flag", false));
  EXPECT_TRUE(f.boolean("absent", true));
  EXPECT_EQ(f.string("name"), "x");
  EXPECT_EQ(f.string("absent"), std::nullopt);
  EXPECT_EQ(f.integer("n"), 3);
  EXPECT_EQ(f.integer("whole"), 4);
  EXPECT_EQ(f.strings("list"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(f.integers("ids"), (std::vector<std::int64_t>{1, 2}));
  const auto span = f.range("span");
  EXPECT_EQ(span.first, 2);
  EXPECT_EQ(span.second, 5);
  EXPECT_TRUE(f.has("n"));
  EXPECT_FALSE(f.has("absent"));
  EXPECT_EQ(lua_gettop(L), 1) << "every read leaves the stack as it was";
}

TEST_F(LuaFields, ReadsRawSoNoMetamethodRuns) {
  push("setmetatable({}, {__index = function() error('metamethod ran') end})");
  const Fields f(L, -1, "test field");
  EXPECT_EQ(f.string("name"), std::nullopt);
  EXPECT_FALSE(f.boolean("flag", false));
}

TEST_F(LuaFields, RefusalsNameTheFieldOneWay) {
  push("{flag = 1, name = {}, n = 1.5, list = {'a', 2}, ids = 'x', span = {first = 5, last = 2}, both = 7}");
  const Fields f(L, -1, "tree option");
  EXPECT_EQ(refusal([&] { f.boolean("flag", false); }), "tree option 'flag': expected a boolean, got a number");
  EXPECT_EQ(refusal([&] { f.string("name"); }), "tree option 'name': expected a string, got a table");
  EXPECT_EQ(refusal([&] { f.integer("n"); }), "tree option 'n': expected an integer, got a number");
  EXPECT_EQ(refusal([&] { f.strings("list"); }), "tree option 'list': item 2: expected a string, got a number");
  EXPECT_EQ(refusal([&] { f.integers("ids"); }), "tree option 'ids': expected a list of integers, got a string");
  EXPECT_EQ(refusal([&] { f.range("span"); }), "tree option 'span': the range ends before it starts");
  EXPECT_EQ(refusal([&] { f.string_or_strings("both"); }),
            "tree option 'both': expected a string or a list of strings, got a number");
  EXPECT_EQ(f.refused("n", "too big").message(), "tree option 'n': too big");
  EXPECT_EQ(lua_gettop(L), 1) << "a refusal leaves the stack as it was";
}

TEST_F(LuaFields, BoundedValuesAreRefusedWithTheirOwnWords) {
  push("{depth = -1, top = 2.5, threshold = 1.5, nan = 0/0, fine = 0.25, measure = 'big', dir = 3}");
  const Fields f(L, -1, "tree option");
  EXPECT_EQ(refusal([&] { f.integer("depth", 0, 10, "expected 0 to 10"); }), "tree option 'depth': expected 0 to 10");
  EXPECT_EQ(refusal([&] { f.integer("top", 1, 10, "expected a whole number"); }),
            "tree option 'top': expected a whole number");
  EXPECT_EQ(refusal([&] { f.number("threshold", 0, 1, "expected a fraction"); }),
            "tree option 'threshold': expected a fraction");
  EXPECT_EQ(refusal([&] { f.number("nan", 0, 1, "expected a fraction"); }), "tree option 'nan': expected a fraction");
  EXPECT_EQ(f.number("fine", 0, 1, "expected a fraction"), 0.25);
  EXPECT_EQ(f.integer("absent", 0, 10, "expected 0 to 10"), std::nullopt);
  const auto parse = [](std::string_view text) { return text == "so" ? std::optional<int>(1) : std::nullopt; };
  EXPECT_EQ(refusal([&] { f.parsed("measure", parse, "expected so"); }), "tree option 'measure': expected so");
  EXPECT_EQ(refusal([&] { f.parsed("dir", parse, "expected so"); }), "tree option 'dir': expected so");
  EXPECT_EQ(f.parsed("absent", parse, "expected so"), std::nullopt);
}

TEST_F(LuaFields, AStringOrAListOfThem) {
  push("{one = 'a', many = {'a', 'b'}}");
  const Fields f(L, -1, "hq.open option");
  EXPECT_EQ(f.string_or_strings("one"), (std::vector<std::string>{"a"}));
  EXPECT_EQ(f.string_or_strings("many"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(f.string_or_strings("absent").empty());
}

TEST_F(LuaFields, ATableIsRequiredUnlessOptional) {
  lua_pushinteger(L, 5);
  EXPECT_EQ(refusal([&] { Fields(L, -1, "query field"); }), "query fields: expected a table, got a number");
  lua_pushnil(L);
  EXPECT_FALSE(Fields::optional(L, -1, "tree option").has_value());
  EXPECT_FALSE(Fields::optional(L, 10, "tree option").has_value()) << "an absent argument";
  EXPECT_EQ(refusal([&] { Fields::optional(L, 1, "tree option"); }), "tree options: expected a table, got a number");
}

TEST_F(LuaFields, ArgumentsAreNamedByTheirFunction) {
  lua_settop(L, 0);
  push("'text'");
  push("42");
  push("1.5");
  push("{top = 0}");
  const Arguments args(L, "hq.example");
  EXPECT_EQ(args.string(1, "path"), "text");
  EXPECT_EQ(args.integer(2, "n"), 42);
  EXPECT_EQ(refusal([&] { args.string(2, "path"); }), "hq.example argument 'path': expected a string, got a number");
  EXPECT_EQ(refusal([&] { args.integer(3, "n"); }), "hq.example argument 'n': expected an integer, got a number");
  EXPECT_EQ(refusal([&] { args.string(9, "path"); }), "hq.example argument 'path': expected a string, got nothing");
  EXPECT_EQ(refusal([&] { args.table(1, "values"); }), "hq.example argument 'values': expected a table, got a string");
  EXPECT_EQ(args.table(-1, "values"), 4) << "its absolute index";
  const std::optional<Fields> options = args.options(4);
  ASSERT_TRUE(options.has_value());
  EXPECT_EQ(refusal([&] { options->integer("top", 1, std::numeric_limits<std::int64_t>::max(), "expected at least 1"); }),
            "hq.example option 'top': expected at least 1");
  EXPECT_FALSE(args.options(5).has_value());
  EXPECT_EQ(refusal([&] { args.options(1); }), "hq.example options: expected a table, got a string");
}

}  // namespace
}  // namespace heapql::test
