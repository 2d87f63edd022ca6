#!/usr/bin/env bash
# The zip Windows users unpack and run (docs/windows.md, "Installing"):
#   build-windows/heapql-<version>-windows-x86_64.zip
#     heapql-<version>/heapql.exe          stripped of its debug information (the
#                                          build's own keeps it, for backtraces)
#     heapql-<version>/queries/            the shipped recipes, cull and suppression lists,
#                                          queries/windows/heapql-heap.wprp (recording with WPR)
#     heapql-<version>/README.md, docs/windows.md
#     heapql-<version>/licenses/           heapql's own (when the tree has one), and the copyright
#                                          file of every library linked into heapql.exe, from
#                                          Debian's source packages it was built from
# Builds heapql.exe first unless --no-build: in build-windows as configured
# (tests on or off) when it is, else by scripts/build-windows.sh --no-tests.
#   scripts/package-windows.sh [--no-build] [--build-dir DIR] [--out FILE.zip]
set -euo pipefail
cd "$(dirname "$0")/.."
source_dir=$PWD

build=yes
dir=build-windows
out=
while [ $# -gt 0 ]; do
  case $1 in
    --no-build) build=no; shift ;;
    --build-dir) dir=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "package-windows.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
dir=$(cd "$dir" 2>/dev/null && pwd || echo "$dir")

if [ "$build" = yes ]; then
  command -v zip >/dev/null || ./scripts/install-deps.sh
  if [ -f "$dir/CMakeCache.txt" ]; then
    cmake --build "$dir" --target heapql -j2
  else
    ./scripts/build-windows.sh --no-tests
  fi
fi
exe=$dir/heapql.exe
[ -f "$exe" ] || { echo "package-windows.sh: $exe is missing (run scripts/build-windows.sh)" >&2; exit 2; }
command -v zip >/dev/null || { echo "package-windows.sh: zip is missing (scripts/install-deps.sh installs it)" >&2; exit 2; }

version=$(sed -n 's/^project(heapql VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
[ -n "$version" ] || { echo "package-windows.sh: no version in CMakeLists.txt's project()" >&2; exit 2; }
name=heapql-$version
out=$(realpath -m "${out:-$dir/$name-windows-x86_64.zip}")

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/$name
mkdir -p "$root/licenses" "$root/docs"

# Stripped of debug information: a RelWithDebInfo heapql.exe is 190 MB of DWARF, which no
# Windows debugger reads; Release's 21.7 MB becomes 14.7 MB (measured 2026-11-29).
x86_64-w64-mingw32-strip --strip-debug -o "$root/heapql.exe" "$exe"
# queries/: what heapql reads beside itself (recipes, cull/, suppressions/, windows/).
cp -r queries "$root/queries"
[ -f queries/windows/heapql-heap.wprp ] ||
  echo "package-windows.sh: note: queries/windows/heapql-heap.wprp is not in this tree yet" >&2
cp README.md "$root/README.md"
[ -f docs/windows.md ] && cp docs/windows.md "$root/docs/windows.md"

# Licenses. heapql's own, then each statically linked library's Debian copyright file:
# those of the source packages the Windows build compiled, which scripts/windows/build-deps.sh
# keeps in the dependencies' prefix (share/licenses), fmt and xxhash (header-only, Debian's headers), and the
# toolchain's runtime: zlib (libz-mingw-w64), libstdc++/libgcc with the GCC Runtime Library
# Exception (gcc-mingw-w64-base), the mingw-w64 CRT and winpthreads.
missing=()
for f in LICENSE LICENSE.md LICENSE.txt COPYING; do
  [ -f "$f" ] && cp "$f" "$root/licenses/heapql-$f"
done
deps_prefix=$(sed -n 's/^HEAPQL_DEPS_PREFIX:[A-Z]*=//p' "$dir/CMakeCache.txt" 2>/dev/null)
deps_prefix=${deps_prefix:-$dir/deps/prefix}
for package in lua5.4 lua-lpeg libzstd sqlite3 protobuf llvm-toolchain-14; do
  copyright=$deps_prefix/share/licenses/$package.copyright
  if [ -f "$copyright" ]; then cp "$copyright" "$root/licenses/$package.copyright"; else missing+=("$copyright"); fi
done
for package in libfmt-dev libxxhash-dev libz-mingw-w64 gcc-mingw-w64-base mingw-w64-common mingw-w64-x86-64-dev; do
  copyright=/usr/share/doc/$package/copyright
  if [ -f "$copyright" ]; then cp "$copyright" "$root/licenses/$package.copyright"; else missing+=("$copyright"); fi
done
if [ ${#missing[@]} -gt 0 ]; then
  printf 'package-windows.sh: a linked library'\''s licence is missing: %s\n' "${missing[@]}" >&2
  exit 2
fi
grep -q "GCC RUNTIME LIBRARY EXCEPTION" "$root/licenses/gcc-mingw-w64-base.copyright" ||
  { echo "package-windows.sh: gcc-mingw-w64-base's copyright has no GCC Runtime Library Exception" >&2; exit 2; }

rm -f "$out"
# -X: no Unix owners or extra times; the same tree zips to the same listing.
(cd "$stage" && zip -qrX "$out.tmp" "$name")
mv "$out.tmp" "$out"
echo "package-windows.sh: $out ($(du -h "$out" | cut -f1))"
