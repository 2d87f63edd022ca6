#include "lua/host/heapql_core.h"

#include <fmt/format.h>


#include "engine/error.h"
#include "engine/text_file.h"
#include "engine/query/cull_list.h"
#include "engine/query/suppressions.h"
#include "engine/query/short_name.h"
#include "engine/warnings.h"
#include "engine/windows_path_rules.h"
#include "engine/units.h"
#include "engine/version.h"
#include "lua/host/lua_error.h"
#include "lua/host/lua_fields.h"
#include "lua/host/lua_strings.h"
#include "lua/host/recipe_runner.h"
#include "lua/host/run_context.h"
#include "lua/host/sandbox.h"

namespace heapql::lua {

int core_open(lua_State* L);  // trace_binding.cpp

namespace {

// Files the helpers read are pattern lists and small Lua files.
constexpr std::uint64_t kMaxReadBytes = 64u << 20;

int core_read_text(lua_State* L) {
  return protected_call(L, [&] {
    const std::string path(Arguments(L, "core.read_text").string(1, "path"));
    const std::optional<std::string> readable = readable_path(L, path);
    if (!readable) {
      throw Error(fmt::format("'{}': a recipe may read files beside it, in the shipped queries/ folder, or named "
                              "on the command line (run with --trusted to read others)",
                              path));
    }
    const std::string text = read_text_file(*readable, "file", kMaxReadBytes);
    lua_pushlstring(L, text.data(), text.size());
    return 1;
  });
}

// The patterns of a suppressions file's text (engine/query/suppressions.h);
// its ignored lines are warned about.
int core_suppression_patterns(lua_State* L) {
  return protected_call(L, [&] {
    const Arguments args(L, "core.suppression_patterns");
    const SuppressionList list = parse_suppressions(args.string(1, "text"), std::string(args.string(2, "name")));
    for (const std::string& note : list.notes) emit_warning(nullptr, note + "\n");
    std::vector<std::string> texts;
    for (const SuppressionPattern& p : list.patterns) texts.push_back(p.text());
    push_string_array(L, texts);
    return 1;
  });
}

int core_short_name(lua_State* L) {
  return protected_call(L, [&] {
    const std::string name = short_frame_name(Arguments(L, "hq.short_name").string(1, "frame"));
    lua_pushlstring(L, name.data(), name.size());
    return 1;
  });
}

int core_default_cull(lua_State* L) {
  return protected_call(L, [&] {
    push_string_array(L, default_cull_pattern_texts());
    return 1;
  });
}

int core_write(lua_State* L) {
  return protected_call(L, [&] {
    const std::string_view text = Arguments(L, "core.write").string(1, "text");
    run_context(L).write_report(text);
    return 0;
  });
}

int core_fail_gate(lua_State* L) {
  return protected_call(L, [&] {
    const std::string_view message = Arguments(L, "core.fail_gate").string(1, "message");
    run_context(L).failed_gates.emplace_back(message);
    return 0;
  });
}

int core_gate_count(lua_State* L) {
  return protected_call(L, [&] {
    lua_pushinteger(L, static_cast<lua_Integer>(run_context(L).failed_gates.size()));
    return 1;
  });
}

// Signed, so that impacting sizes (which may be negative) print too.
int core_format_bytes(lua_State* L) {
  return protected_call(L, [&] {
    const std::int64_t n = Arguments(L, "hq.format_bytes").integer(1, "bytes");
    const std::uint64_t magnitude = n < 0 ? 0 - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
    lua_pushstring(L, ((n < 0 ? "-" : "") + format_bytes_human(magnitude)).c_str());
    return 1;
  });
}

int core_format_duration(lua_State* L) {
  return protected_call(L, [&] {
    lua_pushstring(L, format_duration(Arguments(L, "hq.format_duration").integer(1, "ns")).c_str());
    return 1;
  });
}

int core_queries_dir(lua_State* L) {
  return protected_call(L, [&] {
    lua_pushstring(L, queries_folder().string().c_str());
    return 1;
  });
}

int core_recipe_dir(lua_State* L) {
  return protected_call(L, [&] {
    const std::optional<std::string>& dir = run_context(L).recipe_dir;
    if (dir) {
      lua_pushlstring(L, dir->data(), dir->size());
    } else {
      lua_pushnil(L);
    }
    return 1;
  });
}

// Whether a recipe's path names its own place rather than one beside the
// recipe: "/x" on Linux; on Windows also "C:\\x", "\\x", "\\\\server\\x" and the
// forms the sandbox refuses ("C:x", "\\\\?\\x"), which are never joined to
// the recipe's folder.
int core_is_absolute(lua_State* L) {
  return protected_call(L, [&] {
    const std::string_view path = Arguments(L, "core.is_absolute").string(1, "path");
#ifdef _WIN32
    const bool absolute = (!path.empty() && is_windows_separator(path.front())) ||
                          windows_path_form(path) != WindowsPathForm::kPlain ||
                          (path.size() >= 3 && path[1] == ':' && is_windows_separator(path[2]));
#else
    const bool absolute = path.starts_with('/');
#endif
    lua_pushboolean(L, absolute);
    return 1;
  });
}

int core_trace_methods(lua_State* L) {
  push_trace_methods(L);
  return 1;
}

}  // namespace

int luaopen_heapql_core(lua_State* L) {
  const luaL_Reg functions[] = {{"open", core_open},
                                {"read_text", core_read_text},
                                {"default_cull", core_default_cull},
                                {"suppression_patterns", core_suppression_patterns},
                                {"write", core_write},
                                {"fail_gate", core_fail_gate},
                                {"gate_count", core_gate_count},
                                {"format_bytes", core_format_bytes},
                                {"format_duration", core_format_duration},
                                {"recipe_dir", core_recipe_dir},
                                {"is_absolute", core_is_absolute},
                                {"queries_dir", core_queries_dir},
                                {"trace_methods", core_trace_methods},
                                {"diff", core_diff},
                                {"short_name", core_short_name},
                                {nullptr, nullptr}};
  luaL_newlib(L, functions);
  push_grammar_functions(L);
  lua_setfield(L, -2, "grammar");
  push_sandbox_table(L);
  lua_setfield(L, -2, "sandbox");
  const std::string_view heapql_version = version();
  lua_pushlstring(L, heapql_version.data(), heapql_version.size());
  lua_setfield(L, -2, "version");
  return 1;
}

}  // namespace heapql::lua
