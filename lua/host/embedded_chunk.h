// Loading one module of the embedded Lua library (embedded_modules.h): its
// bytecode where the build made it, else its text.
#pragma once

#include <lua.hpp>

#include "lua/host/embedded_modules.h"

namespace heapql::lua {

// Whether the Lua running now is the release heapql was compiled against
// (whose luac made the bytecode: CMake checks that). Its bytecode header
// names only 5.4, so a system's liblua5.4 updated since to another release
// would take bytecode it may not run alike: then the text is parsed.
bool embedded_bytecode_usable();

// Pushes the module's main chunk, as luaL_loadbufferx does, named
// "@heapql/NAME.lua" (tracebacks name the same file and lines either way);
// or its error message, returning the status. Bytecode this Lua does not
// take (a luac of another release) leaves the text to parse.
int load_embedded_chunk(lua_State* L, const EmbeddedModule& module);

}  // namespace heapql::lua
