# Sourced by demo.sh and test.sh: installs what is missing and configures the
# CMake build in $build_dir (default build/), using ccache when present.
# Both scripts configure build/ alike (warnings as errors, tests on), so the
# test suite after the demo builds only what the demo did not.
build_dir=${HEAPQL_BUILD_DIR:-build}

heapql_launcher=()
if command -v ccache >/dev/null; then
  heapql_launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
# ccache keys on paths relative to the checkout, so clones share its cache.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
# The test builds (this one and test.sh's ASan build) keep line tables only
# (-g1): a backtrace, an ASan report and perf still name functions and lines,
# and a compile takes about a quarter less CPU than with -g (docs/testing.md),
# which CI's 90 minutes need. The example program sets its own -g.
heapql_test_build_flags=(-DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"
                         -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG")

heapql_configure() {
  ./scripts/install-deps.sh
  # ccache may have just been installed.
  if command -v ccache >/dev/null; then
    heapql_launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${heapql_test_build_flags[@]}" \
    "${heapql_launcher[@]}" -DHEAPQL_WERROR=ON -DHEAPQL_TESTS=ON "$@" >/dev/null
}
