#!/bin/sh
# Runs one Lua-side test with stock lua5.4, the project's Lua library on the
# path and build/heapql.so on the C path: run_test.sh SOURCE_DIR BUILD_DIR HEAPQL_BINARY SCRIPT
set -eu
source_dir=$1 build_dir=$2 binary=$3 script=$4
cd "$source_dir"
LUA_PATH="$source_dir/lua/?.lua;$source_dir/tests/lua/?.lua;;" \
LUA_CPATH="$build_dir/?.so;;" \
HEAPQL_BUILD_DIR="$build_dir" HEAPQL_BINARY="$binary" \
  exec lua5.4 "$script"
