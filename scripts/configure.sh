# Sourced by demo.sh and test.sh: installs what is missing and configures the
# CMake build in $build_dir (default build/), using ccache when present.
# Extra CMake arguments may be passed to heapql_configure.
build_dir=${HEAPQL_BUILD_DIR:-build}

heapql_launcher=()

heapql_configure() {
  ./scripts/install-deps.sh
  if command -v ccache >/dev/null; then
    heapql_launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${heapql_launcher[@]}" "$@" >/dev/null
}
