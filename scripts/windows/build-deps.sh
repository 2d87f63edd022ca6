#!/usr/bin/env bash
# STAGE 0 (to be replaced by the build from Debian's sources): a prefix of
# Debian's Linux headers and empty archives, so that objects compile under
# the mingw toolchain while the real dependencies are being built. Nothing
# links against it; it writes no stamp, so configure runs it every time.
set -euo pipefail
prefix="" 
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2"; shift 2;;
    --toolchain|--work|--stamp) shift 2;;
    *) echo "build-deps: unknown argument $1" >&2; exit 2;;
  esac
done
mkdir -p "$prefix/include/host" "$prefix/lib/pkgconfig" "$prefix/lib/llvm-14" "$prefix/share/lua/5.4"
ln -sfn /usr/include/fmt "$prefix/include/host/fmt"
ln -sf /usr/include/xxhash.h "$prefix/include/host/xxhash.h"
ln -sf /usr/include/xxh3.h "$prefix/include/host/xxh3.h"
ln -sfn /usr/include/lua5.4 "$prefix/include/lua5.4"
for h in zstd.h zstd_errors.h zdict.h sqlite3.h sqlite3ext.h; do ln -sf "/usr/include/$h" "$prefix/include/$h"; done
ln -sfn /usr/include/google "$prefix/include/google"
ln -sfn /usr/include/gtest "$prefix/include/gtest"; ln -sfn /usr/include/gmock "$prefix/include/gmock"
ln -sfn /usr/lib/llvm-14/include "$prefix/include/llvm-14"
ln -sf /usr/share/lua/5.4/re.lua "$prefix/share/lua/5.4/re.lua"
for lib in zstd sqlite3 lua5.4 lua5.4-lpeg protobuf-lite gtest gtest_main gmock gmock_main; do rm -f "$prefix/lib/lib$lib.a"; x86_64-w64-mingw32-ar rc "$prefix/lib/lib$lib.a"; done
: > "$prefix/lib/llvm-14/link-order.txt"
pc() { printf 'prefix=%s\nName: %s\nDescription: %s\nVersion: %s\nCflags: %s\nLibs: %s\n' "$prefix" "$1" "$1" "$2" "$3" "$4" > "$prefix/lib/pkgconfig/$1.pc"; }
pc libxxhash 0.8.1 "-I\${prefix}/include/host -DXXH_INLINE_ALL" ""
pc libzstd 1.5.4 "-I\${prefix}/include" "-L\${prefix}/lib -lzstd"
pc sqlite3 3.40.1 "-I\${prefix}/include" "-L\${prefix}/lib -lsqlite3"
pc lua5.4 5.4.4 "-I\${prefix}/include/lua5.4" "-L\${prefix}/lib -llua5.4"
