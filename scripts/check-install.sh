#!/usr/bin/env bash
# A packager's build: a plain Release configure (no -Werror, no tests), a
# build, and `cmake --install` into a temporary prefix; the installed heapql
# must list and run its shipped recipes with the source tree out of reach.
# Usage: scripts/check-install.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build-release}
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" -DHEAPQL_TESTS=OFF -DHEAPQL_BENCH=OFF >/dev/null
cmake --build "$build_dir" -j2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build_dir" --prefix "$prefix" >/dev/null

# Run from elsewhere, with no way to the source tree's queries/ but the
# installed one: HEAPQL_QUERIES unset, the compiled-in source path hidden.
env -u HEAPQL_QUERIES "$prefix/bin/heapql" list > "$prefix/list.txt"
grep -q "recipes in $prefix/share/heapql/queries" "$prefix/list.txt" || {
  echo "check-install: the installed heapql did not find its recipes:" >&2; cat "$prefix/list.txt" >&2; exit 1; }
grep -q "leaks" "$prefix/list.txt"
trace="$PWD/examples/traces/memory_test_app.zst"
(cd "$prefix" && env -u HEAPQL_QUERIES ./bin/heapql run leaks "$trace" --param top=3 --no-progress > run.txt)
grep -q "InnerLoopOperation" "$prefix/run.txt" || { echo "check-install: leaks found nothing" >&2; cat "$prefix/run.txt" >&2; exit 1; }
test -f "$prefix/lib/lua/5.4/heapql.so" || test -f "$prefix/lib/x86_64-linux-gnu/lua/5.4/heapql.so"
# `heapql serve` loads its server (heapql-serve.so) from the installed lib
# folder: it must print its URL, and it stops on SIGTERM.
if [ -f "$build_dir/heapql-serve.so" ]; then
  (cd "$prefix" && exec ./bin/heapql serve "$trace" --port 0 > serve.txt 2> serve-errors.txt) &
  served=$!
  for _ in $(seq 100); do grep -q "^heapql serve: http://" "$prefix/serve.txt" && break; sleep 0.1; done
  kill -TERM "$served" 2>/dev/null || true
  wait "$served" || true
  grep -q "^heapql serve: http://127.0.0.1:" "$prefix/serve.txt" || {
    echo "check-install: the installed heapql did not serve:" >&2; cat "$prefix/serve.txt" "$prefix/serve-errors.txt" >&2; exit 1; }
fi
test -f "$prefix/share/heapql/queries/cull/libc-linux.txt"
echo "check-install: Release build, install and the installed heapql all work ($prefix)"
