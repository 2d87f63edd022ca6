#include "lua/host/lua_fields.h"

#include <fmt/format.h>

namespace heapql::lua {

namespace {

// The integer at `index` (as lua_tointegerx converts), or none.
std::optional<std::int64_t> integer_at(lua_State* L, int index) {
  int is_integer = 0;
  const lua_Integer value = lua_tointegerx(L, index, &is_integer);
  if (!is_integer) return std::nullopt;
  return value;
}

Error wrong_type(lua_State* L, int index, const std::string& label, std::string_view expected) {
  return Error(fmt::format("{}: expected {}, got {}", label, expected, type_for_message(L, index)));
}

// Refuses the value on top of the stack, first popping the `pushed` values a
// field reader left there.
[[noreturn]] void refuse_top(lua_State* L, int pushed, const std::string& label, std::string_view expected) {
  const Error error = wrong_type(L, -1, label, expected);
  lua_pop(L, pushed);
  throw error;
}

}  // namespace

std::string type_for_message(lua_State* L, int index) {
  switch (lua_type(L, index)) {
    case LUA_TNONE:
      return "nothing";
    case LUA_TNIL:
      return "nil";
    default:
      return std::string("a ") + luaL_typename(L, index);
  }
}

Fields::Fields(lua_State* L, int index, std::string what) : L_(L), table_(lua_absindex(L, index)), what_(std::move(what)) {
  if (!lua_istable(L, table_)) throw wrong_type(L, table_, what_ + "s", "a table");
}

std::optional<Fields> Fields::optional(lua_State* L, int index, std::string what) {
  if (lua_isnoneornil(L, index)) return std::nullopt;
  return Fields(L, index, std::move(what));
}

std::string Fields::label(const char* name) const { return fmt::format("{} '{}'", what_, name); }

Error Fields::refused(const char* name, std::string_view why) const {
  return Error(fmt::format("{}: {}", label(name), why));
}

int Fields::push(const char* name) const {
  lua_pushstring(L_, name);
  return lua_rawget(L_, table_);
}

bool Fields::has(const char* name) const {
  const bool present = push(name) != LUA_TNIL;
  lua_pop(L_, 1);
  return present;
}

bool Fields::boolean(const char* name, bool fallback) const {
  const int type = push(name);
  bool value = fallback;
  if (type == LUA_TBOOLEAN) {
    value = lua_toboolean(L_, -1);
  } else if (type != LUA_TNIL) {
    refuse_top(L_, 1, label(name), "a boolean");
  }
  lua_pop(L_, 1);
  return value;
}

std::optional<std::string> Fields::string(const char* name) const {
  const int type = push(name);
  std::optional<std::string> value;
  if (type == LUA_TSTRING) {
    std::size_t length = 0;
    const char* text = lua_tolstring(L_, -1, &length);
    value.emplace(text, length);
  } else if (type != LUA_TNIL) {
    refuse_top(L_, 1, label(name), "a string");
  }
  lua_pop(L_, 1);
  return value;
}

std::optional<std::int64_t> Fields::integer(const char* name) const {
  std::optional<std::int64_t> value;
  if (push(name) != LUA_TNIL) {
    value = integer_at(L_, -1);
    if (!value) {
      refuse_top(L_, 1, label(name), "an integer");
    }
  }
  lua_pop(L_, 1);
  return value;
}

std::optional<std::int64_t> Fields::integer(const char* name, std::int64_t least, std::int64_t most,
                                            std::string_view expected) const {
  std::optional<std::int64_t> value;
  if (push(name) != LUA_TNIL) {
    value = integer_at(L_, -1);
    if (!value || *value < least || *value > most) {
      lua_pop(L_, 1);
      throw refused(name, expected);
    }
  }
  lua_pop(L_, 1);
  return value;
}

std::optional<double> Fields::number(const char* name, double least, double most, std::string_view expected) const {
  std::optional<double> value;
  if (push(name) != LUA_TNIL) {
    int is_number = 0;
    const lua_Number number = lua_tonumberx(L_, -1, &is_number);
    if (!is_number || !(number >= least && number <= most)) {
      lua_pop(L_, 1);
      throw refused(name, expected);
    }
    value = number;
  }
  lua_pop(L_, 1);
  return value;
}

std::vector<std::string> Fields::strings(const char* name) const {
  std::vector<std::string> values;
  const int type = push(name);
  if (type == LUA_TTABLE) {
    const auto n = static_cast<lua_Integer>(lua_rawlen(L_, -1));
    for (lua_Integer i = 1; i <= n; ++i) {
      if (lua_rawgeti(L_, -1, i) != LUA_TSTRING) {
        refuse_top(L_, 2, fmt::format("{}: item {}", label(name), i), "a string");
      }
      std::size_t length = 0;
      const char* text = lua_tolstring(L_, -1, &length);
      values.emplace_back(text, length);
      lua_pop(L_, 1);
    }
  } else if (type != LUA_TNIL) {
    refuse_top(L_, 1, label(name), "a list of strings");
  }
  lua_pop(L_, 1);
  return values;
}

std::vector<std::string> Fields::string_or_strings(const char* name) const {
  const int type = push(name);
  lua_pop(L_, 1);
  if (type == LUA_TSTRING) return {*string(name)};
  if (type == LUA_TTABLE || type == LUA_TNIL) return strings(name);
  push(name);
  refuse_top(L_, 1, label(name), "a string or a list of strings");
}

std::vector<std::int64_t> Fields::integers(const char* name) const {
  std::vector<std::int64_t> values;
  const int type = push(name);
  if (type == LUA_TTABLE) {
    const auto n = static_cast<lua_Integer>(lua_rawlen(L_, -1));
    for (lua_Integer i = 1; i <= n; ++i) {
      lua_rawgeti(L_, -1, i);
      const std::optional<std::int64_t> value = integer_at(L_, -1);
      if (!value) {
        refuse_top(L_, 2, fmt::format("{}: item {}", label(name), i), "an integer");
      }
      lua_pop(L_, 1);
      values.push_back(*value);
    }
  } else if (type != LUA_TNIL) {
    refuse_top(L_, 1, label(name), "a list of integers");
  }
  lua_pop(L_, 1);
  return values;
}

std::pair<std::int64_t, std::optional<std::int64_t>> Fields::range(const char* name) const {
  std::pair<std::int64_t, std::optional<std::int64_t>> r{0, std::nullopt};
  const int type = push(name);
  if (type == LUA_TTABLE) {
    const Fields bounds(L_, -1, label(name));
    r.first = bounds.integer("first").value_or(0);
    r.second = bounds.integer("last");
  } else if (type != LUA_TNIL) {
    refuse_top(L_, 1, label(name), "a range table");
  }
  lua_pop(L_, 1);
  if (r.first < 0 || (r.second && *r.second < r.first)) throw refused(name, "the range ends before it starts");
  return r;
}

std::string Arguments::label(const char* name) const { return fmt::format("{} argument '{}'", function_, name); }

std::string_view Arguments::string(int index, const char* name) const {
  if (lua_type(L_, index) != LUA_TSTRING) throw wrong_type(L_, index, label(name), "a string");
  std::size_t length = 0;
  const char* text = lua_tolstring(L_, index, &length);
  return std::string_view(text, length);
}

std::int64_t Arguments::integer(int index, const char* name) const {
  const std::optional<std::int64_t> value = integer_at(L_, index);
  if (!value) throw wrong_type(L_, index, label(name), "an integer");
  return *value;
}

int Arguments::table(int index, const char* name) const {
  if (!lua_istable(L_, index)) throw wrong_type(L_, index, label(name), "a table");
  return lua_absindex(L_, index);
}

std::optional<Fields> Arguments::options(int index) const { return Fields::optional(L_, index, function_ + " option"); }

}  // namespace heapql::lua
