// The Lua library that ships inside heapql (lua/heapql/*.lua and LPeg's
// re.lua), compiled into the binary by cmake/embed_lua.cmake so that recipes
// and `require "heapql"` from stock Lua never depend on a search path.
#pragma once

#include <span>
#include <string_view>

namespace heapql::lua {

struct EmbeddedModule {
  std::string_view name;         // as `require` names it: "heapql.grammar"
  std::string_view source_path;  // its path in the library, as tracebacks name it: "heapql/grammar.lua"
  std::string_view source;
  // luac's output for it, when the build had a luac of the linked Lua's
  // release (cmake/embed_lua.cmake); else empty. Loaded instead of parsing
  // `source`: a tenth of the time, at every command's start.
  std::string_view bytecode;
};

std::span<const EmbeddedModule> embedded_modules();

}  // namespace heapql::lua
