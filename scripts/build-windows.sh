#!/usr/bin/env bash
# heapql.exe, cross-built with mingw-w64 (docs/windows.md, Building):
# installs what is missing (scripts/install-deps.sh), configures build-windows/
# with cmake/toolchains/mingw-w64-x86_64.cmake (whose first configure builds
# the dependencies from Debian's sources: scripts/windows/build-deps.sh), and
# builds heapql.exe and the test programs, -j2. The product is
# build-windows/heapql.exe; ctest in build-windows runs the tests under Wine.
#   scripts/build-windows.sh [--no-tests]
set -euo pipefail
cd "$(dirname "$0")/.."

tests=ON
for arg in "$@"; do
  case $arg in
    --no-tests) tests=OFF ;;
    -h | --help) echo "usage: scripts/build-windows.sh [--no-tests]"; exit 0 ;;
    *) echo "build-windows.sh: unknown option '$arg' (usage: scripts/build-windows.sh [--no-tests])" >&2; exit 2 ;;
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
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" -DHEAPQL_WERROR=ON -DHEAPQL_TESTS=$tests
configured=$(date +%s)
cmake --build "$dir" -j2
done_at=$(date +%s)
echo "build-windows: configure (with the dependencies when they were missing) $((configured - start)) s, build $((done_at - configured)) s"
echo "build-windows: $dir/heapql.exe"
