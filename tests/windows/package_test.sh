#!/bin/sh
# windows.package: makes the zip (scripts/package-windows.sh --no-build), checks what is
# in it, unpacks it into a fresh folder and runs tests/windows/package_test.cpp's program
# under Wine against the unpacked heapql.exe (docs/testing.md, "Windows").
#   package_test.sh SOURCE_DIR BUILD_DIR EMULATOR PACKAGE_TESTS_EXE WORK_DIR
set -eu
source_dir=$1 build_dir=$2 emulator=$3 tests_exe=$4 work=$5

rm -rf "$work"
mkdir -p "$work/unpacked" "$work/samples"
"$source_dir/scripts/package-windows.sh" --no-build --build-dir "$build_dir" --out "$work/heapql.zip"
listing=$(unzip -Z1 "$work/heapql.zip")
for expected in heapql.exe README.md queries/growth.lua queries/cull/crt-windows.txt \
                queries/suppressions/heaptrack-builtin.txt queries/windows/heapql-heap.wprp \
                licenses/lua5.4.copyright licenses/gcc-mingw-w64-base.copyright licenses/llvm-toolchain-14.copyright; do
  echo "$listing" | grep -q "^heapql-[0-9.]*/$expected\$" || { echo "the zip has no $expected:"; echo "$listing"; exit 1; }
done
echo "the zip holds $(echo "$listing" | grep -vc '/$') files"
unzip -q "$work/heapql.zip" -d "$work/unpacked"
exe=$(echo "$work"/unpacked/heapql-*/heapql.exe)

# The zipped ETL samples, unpacked for the test (the shared data stays read-only, in place).
shared=$source_dir/../shared/data/etw
if [ -d "$shared" ]; then
  for z in "$shared"/*.etl.zip; do
    [ -f "$z" ] && unzip -q -o "$z" -d "$work/samples/$(basename "$z" .zip)"
  done
else
  echo "note: $shared is absent: the ETL sample test skips"
fi

HEAPQL_PACKAGED_HEAPQL=$exe HEAPQL_PACKAGE_SAMPLES=$work/samples exec "$emulator" "$tests_exe"
