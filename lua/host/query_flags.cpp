#include "lua/host/query_flags.h"

#include "engine/error.h"
#include "lua/host/lua_error.h"
#include "lua/host/lua_fields.h"
#include "lua/host/query_from_lua.h"
#include "lua/host/sandbox.h"

namespace heapql::lua {

namespace {

// Calls the function under the top `nargs` values; a Lua error becomes a
// heapql::Error with its message.
void call(lua_State* L, int nargs, int nresults) {
  if (lua_pcall(L, nargs, nresults, 0) != LUA_OK) {
    std::string message = error_message(L, -1);
    lua_pop(L, 1);
    throw Error(message);
  }
}

// Pushes heapql.schema's function `name` (the module is loaded once: its
// later requires find it in the sandbox's loaded table).
void push_schema_function(lua_State* L, const char* name) {
  lua_getglobal(L, "require");
  lua_pushliteral(L, "heapql.schema");
  call(L, 1, 1);
  lua_getfield(L, -1, name);
  lua_remove(L, -2);
}

}  // namespace

QueryFlags::QueryFlags() : L_(state_.get()) {
  open_sandbox(L_, SandboxOptions{});
  push_schema_function(L_, "flags");
  call(L_, 0, 1);
  const int flags = lua_gettop(L_);
  for (lua_Integer i = 1; lua_rawgeti(L_, flags, i) == LUA_TTABLE; ++i) {
    const Fields flag(L_, -1, "query option field");
    options_.push_back(QueryFlag{flag.string("option").value_or(""), flag.string("field").value_or(""),
                                 flag.has("value")});
    lua_pop(L_, 1);
  }
  lua_settop(L_, 0);
}

const QueryFlag* QueryFlags::find(std::string_view option) const {
  for (const QueryFlag& known : options_) {
    if (known.option == option) return &known;
  }
  return nullptr;
}

void QueryFlags::add(const QueryFlag& option, std::optional<std::string> value) {
  given_.emplace_back(option.option, std::move(value));
}

std::vector<std::string> QueryFlags::values_of(std::string_view option) const {
  std::vector<std::string> values;
  for (const auto& [name, value] : given_) {
    if (name == option && value) values.push_back(*value);
  }
  return values;
}

void QueryFlags::push_given() {
  lua_createtable(L_, static_cast<int>(given_.size()), 0);
  lua_Integer n = 0;
  for (const auto& [name, value] : given_) {
    lua_createtable(L_, 2, 0);
    lua_pushlstring(L_, name.data(), name.size());
    lua_rawseti(L_, -2, 1);
    if (value) {
      lua_pushlstring(L_, value->data(), value->size());
      lua_rawseti(L_, -2, 2);
    }
    lua_rawseti(L_, -2, ++n);
  }
}

Query QueryFlags::query(std::string_view where) {
  push_schema_function(L_, "from_flags");
  push_given();
  lua_pushlstring(L_, where.data(), where.size());
  call(L_, 2, 1);
  Query query = query_from_table(L_, -1, QueryDoor::kCommandLine);
  lua_settop(L_, 0);
  return query;
}

std::string QueryFlags::recipe_text(const std::map<std::pair<std::string, std::string>, std::string>& shipped,
                                    const std::vector<std::string>& words) {
  lua_getglobal(L_, "require");
  lua_pushliteral(L_, "heapql.recipe_text");
  call(L_, 1, 1);
  lua_getfield(L_, -1, "from_flags");
  lua_remove(L_, -2);
  push_given();
  lua_newtable(L_);  // {cull = {[value] = name}, suppressions = {...}}
  for (const auto& [kind_value, name] : shipped) {
    const auto& [kind, value] = kind_value;
    if (lua_getfield(L_, -1, kind.c_str()) != LUA_TTABLE) {
      lua_pop(L_, 1);
      lua_newtable(L_);
      lua_pushvalue(L_, -1);
      lua_setfield(L_, -3, kind.c_str());
    }
    lua_pushlstring(L_, name.data(), name.size());
    lua_setfield(L_, -2, value.c_str());
    lua_pop(L_, 1);
  }
  lua_createtable(L_, static_cast<int>(words.size()), 0);
  for (std::size_t i = 0; i < words.size(); ++i) {
    lua_pushlstring(L_, words[i].data(), words[i].size());
    lua_rawseti(L_, -2, static_cast<lua_Integer>(i + 1));
  }
  call(L_, 3, 1);
  std::size_t length = 0;
  const char* text = lua_tolstring(L_, -1, &length);
  std::string recipe(text == nullptr ? "" : text, text == nullptr ? 0 : length);
  lua_settop(L_, 0);
  return recipe;
}

std::string QueryFlags::usage() {
  push_schema_function(L_, "usage");
  call(L_, 0, 1);
  std::string text = lua_tostring(L_, -1);
  lua_settop(L_, 0);
  return text;
}

}  // namespace heapql::lua
