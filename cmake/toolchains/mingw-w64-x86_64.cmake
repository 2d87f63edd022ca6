# heapql.exe, cross-built on Debian with mingw-w64 (docs/windows.md, Building):
#   cmake -S . -B build-windows --toolchain cmake/toolchains/mingw-w64-x86_64.cmake
# scripts/build-windows.sh does this; the dependencies the Linux build takes
# from Debian's packages are built from Debian's sources into
# build-windows/deps/prefix (cmake/windows_dependencies.cmake).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

# The -posix compilers: posix threads, so std::thread and std::mutex work
# (through winpthreads, linked statically).
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_AR x86_64-w64-mingw32-gcc-ar-posix CACHE FILEPATH "")
set(CMAKE_RANLIB x86_64-w64-mingw32-gcc-ranlib-posix CACHE FILEPATH "")

# C99 printf for everything, ours and the dependencies': msvcrt's writes
# 1e+020 where glibc writes 1e+20, and Lua's and heapql's numbers must read
# the same on both systems.
set(CMAKE_C_FLAGS_INIT "-D__USE_MINGW_ANSI_STDIO=1")
set(CMAKE_CXX_FLAGS_INIT "-D__USE_MINGW_ANSI_STDIO=1")
# libgcc, libstdc++ and winpthread linked in: heapql.exe needs no DLL beyond
# Windows' own.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-static")

# Where the dependencies built from Debian's sources go; a build folder has
# its own. The try_compile projects get the same value.
if(NOT HEAPQL_DEPS_PREFIX)
  set(HEAPQL_DEPS_PREFIX "${CMAKE_BINARY_DIR}/deps/prefix")
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES HEAPQL_DEPS_PREFIX)

# Libraries, headers and CMake packages only from mingw's sysroot and the
# prefix, never from the host; programs (protoc, llvm-tblgen-14) from the host.
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32 "${HEAPQL_DEPS_PREFIX}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config reads only the prefix's .pc files.
set(ENV{PKG_CONFIG_LIBDIR} "${HEAPQL_DEPS_PREFIX}/lib/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
# mingw ships zlib both as a DLL import library and static: take the static one.
set(ZLIB_USE_STATIC_LIBS ON)

# ctest runs the test programs (and gtest_discover_tests lists their tests)
# under Wine, through scripts/windows/wine-run.sh.
get_filename_component(HEAPQL_TOOLCHAIN_ROOT "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
if(EXISTS "${HEAPQL_TOOLCHAIN_ROOT}/scripts/windows/wine-run.sh")
  set(CMAKE_CROSSCOMPILING_EMULATOR "${HEAPQL_TOOLCHAIN_ROOT}/scripts/windows/wine-run.sh")
else()
  set(CMAKE_CROSSCOMPILING_EMULATOR /usr/lib/wine/wine64)
endif()
