// Errors crossing the Lua boundary. C++ exceptions never unwind through Lua
// frames: each binding runs its C++ body inside protected_call, which turns an
// exception into a Lua error raised only after every C++ object of the call
// is gone (lua_error jumps; it would skip their destructors). Errors carry a
// kind so that the host can tell a bad trace (exit 2) from a recipe's own
// mistake (exit 3) even after they crossed recipe code.
#pragma once

#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include <lua.hpp>

#include "engine/error.h"

namespace heapql::lua {

enum class ErrorKind { kRecipe, kTrace };

// A trace could not be read (thrown by bindings that read traces).
struct TraceReadError : Error {
  using Error::Error;
  explicit TraceReadError(const Error& e) : Error(e.where(), e.message()) {}
};

// Pushes an error object: a table {kind = "trace"|"recipe", message = ...}
// whose tostring is the message.
void push_error_object(lua_State* L, ErrorKind kind, const char* message);
// Reads an error value back, without running any code of the recipe
// (no metamethods): the kind and message of heapql's own error objects, the
// text of a string or number, and only the type of anything else.
ErrorKind error_kind(lua_State* L, int index);
std::string error_message(lua_State* L, int index);

template <class Body>
int protected_call(lua_State* L, Body&& body) {
  static thread_local char message[8192];
  ErrorKind kind = ErrorKind::kRecipe;
  try {
    return body();
  } catch (const TraceReadError& e) {
    kind = ErrorKind::kTrace;
    std::snprintf(message, sizeof message, "%s", e.what());
  } catch (const std::bad_alloc&) {
    std::snprintf(message, sizeof message, "out of memory");
  } catch (const std::exception& e) {
    std::snprintf(message, sizeof message, "%s", e.what());
  }
  push_error_object(L, kind, message);
  return lua_error(L);
}

}  // namespace heapql::lua
