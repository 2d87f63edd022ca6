#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs what is missing, builds with
# warnings as errors (plus an ASan+UBSan copy of the engine, CLI and tests),
# and runs every test through ctest, which prints the summary.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh

build_dir=${HEAPQL_BUILD_DIR:-build}
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache); fi

cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHEAPQL_WERROR=ON -DHEAPQL_TESTS=ON \
  -DHEAPQL_SANITIZED_TESTS=ON "${launcher[@]}" >/dev/null
cmake --build "$build_dir" -j2

cd "$build_dir"
ctest --output-on-failure -j2 --timeout 600
