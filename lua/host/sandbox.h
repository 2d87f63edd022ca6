// The environment recipes run in (recipes are shared, so untrusted): the
// libraries and modules that sandbox.cpp's one table (kSandbox) grants, with
// the base functions it replaces or leaves out; read-only globals and
// library tables; `require` limited to the embedded library and the
// recipe's and queries' folders; file reads only through heapql's cull-list
// and include helpers, and only inside the allowed folders and files, which
// the state's run context (run_context.h) holds. `trusted` opens the full
// standard library instead (and the normal `require`, with the same folders
// on its path).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <lua.hpp>

namespace heapql::lua {

struct SandboxOptions {
  bool trusted = false;
  // Folders whose .lua files `require` may load and whose files the helpers may read.
  std::vector<std::filesystem::path> folders;
  // Single files the helpers may read (named on the command line): each
  // allows itself only.
  std::vector<std::filesystem::path> files;
  // The trace named on the command line: it, and the files heapql reads
  // beside it (its twins, block-identity file and store), each only as
  // itself, never through a link.
  std::optional<std::filesystem::path> trace;
};

// Opens the libraries into a fresh state and freezes its globals (unless
// trusted); fills the state's run context with what the options allow.
// Recipe code must be loaded with load_recipe_chunk.
void open_sandbox(lua_State* L, const SandboxOptions& options);

// Registers the modules kSandbox names (LPeg, heapql.core and the embedded
// Lua library) in `preload` (a table on the stack top) without replacing
// entries already there.
void register_embedded_modules(lua_State* L);

// Loads text (never bytecode) as a function whose _ENV is the recipe
// environment; pushes it, or returns false with a message pushed.
bool load_recipe_chunk(lua_State* L, std::string_view source, const std::string& chunk_name);

// Whether `source` (a chunk name, as lua_Debug gives it) is one of heapql's
// own library files (the embedded modules): error messages point past them,
// at the recipe.
bool is_library_source(const char* source);

// Pushes what the sandbox grants and refuses (core.sandbox, for
// docs/recipes.md): the names of each kind of kSandbox entry as lists
// (libraries, modules, private, replaced, removed, left_out, collectgarbage)
// and most_step_kib, the largest collectgarbage("step", n).
void push_sandbox_table(lua_State* L);

// Whether recipe code in this state runs sandboxed (not stock Lua, not --trusted).
bool is_sandboxed(lua_State* L);

// The path to open for `path` when the helpers may read it in this state,
// or nullopt when they may not (`path` itself outside a sandbox: stock Lua or
// --trusted). A path is readable when it is one of the files named on the
// command line, exactly as named; or when, walked component by component
// beneath one of the allowed folders (as openat2's RESOLVE_BENEATH walks
// it), it stays there: links and `..` beneath the folder are resolved in the
// path returned. The answer never depends on what lies outside: a link out
// is refused whether or not its target exists. Never a FIFO or a device.
std::optional<std::string> readable_path(lua_State* L, const std::string& path);
inline bool may_read(lua_State* L, const std::string& path) { return readable_path(L, path).has_value(); }
// Whether `path` is, exactly, a file named on the command line (the trace
// or a path param's value).
bool is_named_file(lua_State* L, const std::string& path);
// Whether `path` is, exactly, the trace named on the command line.
bool is_command_line_trace(lua_State* L, const std::string& path);
// Adds a single file the helpers may read (a path named by a typed --param):
// only itself, never its twins.
void allow_file(lua_State* L, const std::filesystem::path& path);

}  // namespace heapql::lua
