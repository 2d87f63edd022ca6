// Reading what Lua code hands heapql's C side: a function's arguments
// (Arguments) and the fields of a table (Fields: a query, an option table).
// Values are read raw, so no metamethod of a recipe's runs in heapql's code,
// and type-checked; a wrong one throws heapql::Error naming it the one way
// ("hq.open argument 'path': expected a string, got a number", "tree option
// 'depth': expected a whole number (0 = unlimited)"), which protected_call
// (lua_error.h) raises as a Lua error once the call's C++ objects are gone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <lua.hpp>

#include "engine/error.h"

namespace heapql::lua {

class Fields {
 public:
  // The table at `index`. Messages call its fields "WHAT 'NAME'" ("query
  // field", "tree option"); anything but a table is refused as "WHATs".
  Fields(lua_State* L, int index, std::string what);
  // The same for an optional table: none when the value is nil or absent.
  static std::optional<Fields> optional(lua_State* L, int index, std::string what);

  // Pushes field `name` and returns its type; the caller pops.
  int push(const char* name) const;
  bool has(const char* name) const;

  bool boolean(const char* name, bool fallback) const;
  std::optional<std::string> string(const char* name) const;
  // Any integer (a float with an exact integer value, or a numeric string, as
  // Lua converts them).
  std::optional<std::int64_t> integer(const char* name) const;
  // An integer from `least` to `most`; otherwise refused with `expected`.
  std::optional<std::int64_t> integer(const char* name, std::int64_t least, std::int64_t most,
                                      std::string_view expected) const;
  // A number from `least` to `most`; otherwise refused with `expected`.
  std::optional<double> number(const char* name, double least, double most, std::string_view expected) const;
  // A string that `parse` (std::string_view -> std::optional<T>) accepts;
  // otherwise refused with `expected`.
  template <class Parse>
  auto parsed(const char* name, Parse parse, std::string_view expected) const -> decltype(parse(std::string_view()));
  // A list of strings; none when absent.
  std::vector<std::string> strings(const char* name) const;
  // A string, or a list of them.
  std::vector<std::string> string_or_strings(const char* name) const;
  std::vector<std::int64_t> integers(const char* name) const;
  // A {first = n, last = n|nil} range; absent means the whole range.
  std::pair<std::int64_t, std::optional<std::int64_t>> range(const char* name) const;

  // The error refusing field `name`: "WHAT 'NAME': WHY".
  Error refused(const char* name, std::string_view why) const;

 private:
  std::string label(const char* name) const;

  lua_State* L_;
  int table_;
  std::string what_;
};

// The arguments of a function as Lua code calls it ("hq.open"): messages
// call argument i "FUNCTION argument 'NAME'", and the fields of its option
// table "FUNCTION option 'NAME'".
class Arguments {
 public:
  Arguments(lua_State* L, std::string function) : L_(L), function_(std::move(function)) {}

  // A string argument (a number is refused, as Fields refuses one), valid
  // while the argument stays on the stack: for the whole call.
  std::string_view string(int index, const char* name) const;
  // An integer argument, converted as Fields::integer converts.
  std::int64_t integer(int index, const char* name) const;
  // A table argument, whose fields are read by hand; its absolute index.
  int table(int index, const char* name) const;
  // An optional option table; none when nil or absent.
  std::optional<Fields> options(int index) const;

 private:
  std::string label(const char* name) const;

  lua_State* L_;
  std::string function_;
};

// "a string", "a number", "nil", "nothing": the type of the value at `index`
// for a message (Lua's type name; no metamethod runs).
std::string type_for_message(lua_State* L, int index);

template <class Parse>
auto Fields::parsed(const char* name, Parse parse, std::string_view expected) const
    -> decltype(parse(std::string_view())) {
  decltype(parse(std::string_view())) value;
  const int type = push(name);
  if (type != LUA_TNIL) {
    if (type == LUA_TSTRING) {
      std::size_t length = 0;
      const char* text = lua_tolstring(L_, -1, &length);
      value = parse(std::string_view(text, length));
    }
    if (!value) {
      lua_pop(L_, 1);
      throw refused(name, expected);
    }
  }
  lua_pop(L_, 1);
  return value;
}

}  // namespace heapql::lua
