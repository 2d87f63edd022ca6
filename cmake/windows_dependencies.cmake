# The dependencies of heapql.exe (the mingw-w64 toolchain,
# cmake/toolchains/mingw-w64-x86_64.cmake), under the names the Linux build
# gets from Debian's packages: PkgConfig::ZSTD, PkgConfig::LUA,
# PkgConfig::SQLITE3, PkgConfig::XXHASH, ZLIB::ZLIB, fmt::fmt, LPEG_LIBRARY,
# LPEG_RE_LUA, HEAPQL_LLVM_LIBS + LLVM_INCLUDE_DIRS, and protobuf.
#
# Lua, LPeg, zstd, SQLite, protobuf-lite, LLVM's PDB reader and GoogleTest are
# built static from the Debian source packages the Linux build uses, pinned in
# scripts/windows/sources.lock, into HEAPQL_DEPS_PREFIX (build-windows/deps/prefix)
# by scripts/windows/build-deps.sh: here, at configure time, when the prefix
# is missing or was built from another lock or another build-deps.sh. zlib is mingw's
# (libz-mingw-w64-dev); fmt and xxhash are header-only, from Debian's headers
# through a folder of symlinks (never /usr/include itself on mingw's path).

set(HEAPQL_SOURCES_LOCK "${PROJECT_SOURCE_DIR}/scripts/windows/sources.lock")
set(HEAPQL_BUILD_DEPS "${PROJECT_SOURCE_DIR}/scripts/windows/build-deps.sh")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${HEAPQL_SOURCES_LOCK}" "${HEAPQL_BUILD_DEPS}")
# The stamp names what the prefix was built from: the pinned sources and the
# script that built them, so that a change to either rebuilds it.
file(SHA256 "${HEAPQL_SOURCES_LOCK}" lock_hash)
file(SHA256 "${HEAPQL_BUILD_DEPS}" script_hash)
string(SHA256 deps_hash "${lock_hash}${script_hash}")
set(HEAPQL_DEPS_STAMP "${HEAPQL_DEPS_PREFIX}/built-from-${deps_hash}")
if(NOT EXISTS "${HEAPQL_DEPS_STAMP}")
  message(STATUS "Windows dependencies: building them into ${HEAPQL_DEPS_PREFIX} (scripts/windows/build-deps.sh)")
  execute_process(
    COMMAND "${HEAPQL_BUILD_DEPS}" --toolchain "${CMAKE_TOOLCHAIN_FILE}" --prefix "${HEAPQL_DEPS_PREFIX}"
            --work "${CMAKE_BINARY_DIR}/deps" --stamp "${HEAPQL_DEPS_STAMP}"
    RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "scripts/windows/build-deps.sh failed (${status}): see its messages above")
  endif()
endif()

# fmt and xxhash: Debian's headers, header-only.
find_package(PkgConfig REQUIRED)
add_library(fmt::fmt INTERFACE IMPORTED)
target_include_directories(fmt::fmt SYSTEM INTERFACE "${HEAPQL_DEPS_PREFIX}/include/host")
target_compile_definitions(fmt::fmt INTERFACE FMT_HEADER_ONLY=1)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
find_package(ZLIB REQUIRED)
pkg_check_modules(SQLITE3 REQUIRED IMPORTED_TARGET sqlite3)
find_package(Threads REQUIRED)
pkg_check_modules(LUA REQUIRED IMPORTED_TARGET lua5.4)
find_library(LPEG_LIBRARY NAMES lua5.4-lpeg REQUIRED)
find_file(LPEG_RE_LUA re.lua PATHS "${HEAPQL_DEPS_PREFIX}/share/lua/5.4" REQUIRED NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
# protobuf: only libprotobuf-lite is built; the host's protoc (same version)
# generates the code.
find_library(Protobuf_LITE_LIBRARY NAMES protobuf-lite REQUIRED)
set(Protobuf_LIBRARY "${Protobuf_LITE_LIBRARY}" CACHE FILEPATH "")
# LLVM: the static libraries engine/symbols links, in link order (a library
# before those it uses), and the headers configured for mingw.
set(LLVM_INCLUDE_DIRS "${HEAPQL_DEPS_PREFIX}/include/llvm-14")
set(HEAPQL_LLVM_LIBS "")
file(STRINGS "${HEAPQL_DEPS_PREFIX}/lib/llvm-14/link-order.txt" llvm_libs)
foreach(lib IN LISTS llvm_libs)
  list(APPEND HEAPQL_LLVM_LIBS "${HEAPQL_DEPS_PREFIX}/lib/llvm-14/lib${lib}.a")
endforeach()
# LLVM's Support calls into these Windows libraries.
list(APPEND HEAPQL_LLVM_LIBS psapi shell32 ole32 uuid advapi32)
