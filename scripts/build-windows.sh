#!/usr/bin/env bash
# heapql.exe, cross-built with mingw-w64 (docs/windows.md, Building):
# installs what is missing (scripts/install-deps.sh), configures build-windows/
# with cmake/toolchains/mingw-w64-x86_64.cmake (whose first configure builds
# the dependencies from Debian's sources: scripts/windows/build-deps.sh), and
# builds heapql.exe and the test programs, -j2. The product is
# build-windows/heapql.exe; ctest in build-windows runs the tests under Wine.
#   scripts/build-windows.sh [--no-tests] [--build-type TYPE] [--linux-heapql PATH]
#     --build-type    CMake's build type, Release unless given (RelWithDebInfo
#                     keeps the DWARF that addr2line reads a backtrace with;
#                     it makes every test program start 2-3x slower under Wine)
#     --linux-heapql  a Linux build's heapql, for windows.same_json_as_linux
set -euo pipefail
cd "$(dirname "$0")/.."

usage="usage: scripts/build-windows.sh [--no-tests] [--build-type TYPE] [--linux-heapql PATH]"
tests=ON
build_type=Release
linux_heapql=()
while [ $# -gt 0 ]; do
  case $1 in
    --no-tests) tests=OFF; shift ;;
    --build-type) [ $# -ge 2 ] || { echo "build-windows.sh: --build-type needs a value ($usage)" >&2; exit 2; }
                  build_type=$2; shift 2 ;;
    --linux-heapql) [ $# -ge 2 ] || { echo "build-windows.sh: --linux-heapql needs a path ($usage)" >&2; exit 2; }
                    linux_heapql=(-DHEAPQL_LINUX_HEAPQL="$(realpath "$2")"); shift 2 ;;
    -h | --help) echo "$usage"; exit 0 ;;
    *) echo "build-windows.sh: unknown option '$1' ($usage)" >&2; exit 2 ;;
  esac
done

./scripts/install-deps.sh

dir=build-windows
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
start=$(date +%s)
cmake -S . -B "$dir" --toolchain "$PWD/cmake/toolchains/mingw-w64-x86_64.cmake" \
  -DCMAKE_BUILD_TYPE="$build_type" "${launcher[@]}" -DHEAPQL_WERROR=ON -DHEAPQL_TESTS=$tests "${linux_heapql[@]}"
configured=$(date +%s)
cmake --build "$dir" -j2
done_at=$(date +%s)
echo "build-windows: configure (with the dependencies when they were missing) $((configured - start)) s, build $((done_at - configured)) s"
echo "build-windows: $dir/heapql.exe"
