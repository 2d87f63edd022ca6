#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs what is missing, builds with
# warnings as errors (plus an ASan+UBSan copy of the engine, CLI and tests),
# and runs every test through ctest, which prints the summary.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/configure.sh
heapql_configure -DHEAPQL_WERROR=ON -DHEAPQL_TESTS=ON -DHEAPQL_SANITIZED_TESTS=ON
cmake --build "$build_dir" -j2

cd "$build_dir"
ctest --output-on-failure -j2 --timeout 600
