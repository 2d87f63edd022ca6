# The luac that compiles the embedded Lua library to bytecode
# (cmake/embed_lua.cmake), in HEAPQL_EMBED_LUAC: the build machine's luac5.4
# when it is the release of the lua.h heapql compiles against (Debian's
# lua5.4; the Windows build's Lua is built from the same release's source),
# else empty and the library is embedded as text alone. With it a command
# loads the library in 0.2 ms, not 3.2 ms of parsing (docs/architecture.md,
# "Start-up"). Needs LUA_INCLUDE_DIRS.
find_program(HEAPQL_LUAC NAMES luac5.4 NO_CMAKE_FIND_ROOT_PATH)
set(HEAPQL_EMBED_LUAC "")
find_file(HEAPQL_LUA_H lua.h PATHS ${LUA_INCLUDE_DIRS} NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
if(HEAPQL_LUAC AND HEAPQL_LUA_H)
  file(STRINGS "${HEAPQL_LUA_H}" lua_version_lines REGEX "^#define LUA_VERSION_(MAJOR|MINOR|RELEASE)[ \t]+\"")
  string(REGEX REPLACE ".*MAJOR[ \t]+\"([0-9]+)\".*" "\\1" lua_major "${lua_version_lines}")
  string(REGEX REPLACE ".*MINOR[ \t]+\"([0-9]+)\".*" "\\1" lua_minor "${lua_version_lines}")
  string(REGEX REPLACE ".*RELEASE[ \t]+\"([0-9]+)\".*" "\\1" lua_release "${lua_version_lines}")
  execute_process(COMMAND "${HEAPQL_LUAC}" -v OUTPUT_VARIABLE luac_version ERROR_VARIABLE luac_version)
  if(luac_version MATCHES "^Lua ${lua_major}\\.${lua_minor}\\.${lua_release} ")
    set(HEAPQL_EMBED_LUAC "${HEAPQL_LUAC}")
  else()
    message(STATUS "Lua library embedded as text: ${HEAPQL_LUAC} is not Lua ${lua_major}.${lua_minor}.${lua_release}")
  endif()
endif()
