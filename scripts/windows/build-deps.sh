#!/usr/bin/env bash
# Builds heapql.exe's dependencies static, with the mingw-w64 toolchain, from
# the Debian source packages the Linux build uses (scripts/windows/sources.lock,
# fetched and checked by fetch-sources.sh), into a prefix:
#   PREFIX/include, PREFIX/lib/*.a, PREFIX/lib/pkgconfig/*.pc,
#   PREFIX/lib/llvm-14/*.a + link-order.txt, PREFIX/include/llvm-14,
#   PREFIX/share/lua/5.4/re.lua, PREFIX/lib/cmake/GTest,
#   PREFIX/share/licenses/PACKAGE.copyright (each source package's, for the zip)
# CMakeLists.txt runs it at configure time (cmake/windows_dependencies.cmake)
# when the prefix is missing or was built from another lock or another version
# of this script; each library's
# build time goes to WORK/timings.txt (docs/windows.md, Building).
#
#   build-deps.sh --toolchain FILE --prefix DIR --work DIR [--stamp FILE] [--only NAME...]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
toolchain="" prefix="" work="" stamp="" only=()
while [ $# -gt 0 ]; do
  case "$1" in
    --toolchain) toolchain="$2"; shift 2;;
    --prefix) prefix="$2"; shift 2;;
    --work) work="$2"; shift 2;;
    --stamp) stamp="$2"; shift 2;;
    --only) shift; only=("$@"); break;;
    *) echo "build-deps: unknown argument $1" >&2; exit 2;;
  esac
done
[ -n "$toolchain" ] && [ -n "$prefix" ] && [ -n "$work" ] || { echo "usage: build-deps.sh --toolchain FILE --prefix DIR --work DIR [--stamp FILE] [--only NAME...]" >&2; exit 2; }
mkdir -p "$prefix" "$work"
prefix="$(cd "$prefix" && pwd)" work="$(cd "$work" && pwd)"
jobs="${HEAPQL_DEPS_JOBS:-2}"
src="$work/src" build="$work/build"
timings="$work/timings.txt"

# ccache for every compile (CMake's and ours), with paths relative to WORK
# so that another build folder's identical compiles hit.
launcher=()
if command -v ccache >/dev/null; then
  launcher=(ccache)
  export CCACHE_BASEDIR="$work" CCACHE_NOHASHDIR=1
fi
triple=x86_64-w64-mingw32
cc=("${launcher[@]}" "$triple-gcc-posix")
cxx=("${launcher[@]}" "$triple-g++-posix")
ar="$triple-gcc-ar-posix"
# The toolchain's flags for every C and C++ file (cmake/toolchains).
common_flags=(-D__USE_MINGW_ANSI_STDIO=1)
cmake_common=(
  -G "Unix Makefiles" --toolchain "$toolchain" -DHEAPQL_DEPS_PREFIX="$prefix"
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix"
)
if [ ${#launcher[@]} -gt 0 ]; then
  cmake_common+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

wanted() {
  [ ${#only[@]} -eq 0 ] && return 0
  local name; for name in "${only[@]}"; do [ "$name" = "$1" ] && return 0; done
  return 1
}
# step NAME FUNCTION: runs and times one library's build; its output goes to
# WORK/logs/NAME.log, shown when it fails.
step() {
  local name="$1" fn="$2" start log="$work/logs/$1.log"
  wanted "$name" || return 0
  mkdir -p "$work/logs"
  echo "build-deps: $name (log: $log)"
  start=$(date +%s)
  # From WORK, so that ccache sees the same relative paths in every build folder.
  if ! (cd "$work" && "$fn") > "$log" 2>&1; then
    tail -40 "$log" >&2
    echo "build-deps: building $name failed; the whole log is $log" >&2
    exit 1
  fi
  echo "$name $(( $(date +%s) - start )) s (-j$jobs)" | tee -a "$timings"
}
# compile_all OUT_DIR COMPILER... -- FILE...: one object per file, $jobs at a time.
compile_all() {
  local out="$1"; shift
  local compiler=() files=()
  while [ "$1" != -- ]; do compiler+=("$1"); shift; done
  shift; files=("$@")
  mkdir -p "$out"
  printf '%s\n' "${files[@]}" | xargs -P "$jobs" -I{} sh -c 'f="$1"; shift; o="$0/$(basename "${f%.*}").o"; echo "$* -c $f -o $o"; "$@" -c "$f" -o "$o"' "$out" {} "${compiler[@]}"
}
pc_file() { # NAME VERSION CFLAGS LIBS
  mkdir -p "$prefix/lib/pkgconfig"
  printf 'prefix=%s\nincludedir=${prefix}/include\nlibdir=${prefix}/lib\n\nName: %s\nDescription: %s for heapql.exe (scripts/windows/build-deps.sh)\nVersion: %s\nCflags: %s\nLibs: %s\n' \
    "$prefix" "$1" "$1" "$2" "$3" "$4" > "$prefix/lib/pkgconfig/$1.pc"
}
lock_version() { awk -v p="$1" '!/^#/ && $1 == p { print $2; exit }' "$here/sources.lock"; }
upstream_version() { local v; v="$(lock_version "$1")"; v="${v#*:}"; echo "${v%-*}"; }

# --- fmt and xxhash: header-only, Debian's headers through symlinks --------
host_headers() {
  mkdir -p "$prefix/include/host"
  ln -sfn /usr/include/fmt "$prefix/include/host/fmt"
  ln -sf /usr/include/xxhash.h "$prefix/include/host/xxhash.h"
  ln -sf /usr/include/xxh3.h "$prefix/include/host/xxh3.h"
  pc_file libxxhash "$(dpkg-query -W -f='${Version}' libxxhash-dev)" '-I${includedir}/host -DXXH_INLINE_ALL' ''
}

# --- Lua 5.4: as Debian's Linux build (debian/rules: make linux-readline) ---
# compiles it: -std=gnu99 -DLUA_COMPAT_5_3 -O2 -g, the compiler modules
# -Os; LUA_USE_LINUX becomes luaconf.h's own LUA_USE_WINDOWS under _WIN32.
build_lua() {
  local s="$src/lua5.4/src" o="$build/lua5.4" core=() os_=()
  local flags=(-std=gnu99 -Wall -Wextra -DLUA_COMPAT_5_3 -g -O2 "${common_flags[@]}")
  rm -rf "$o"
  for f in lapi lctype ldebug ldo ldump lfunc lgc lmem lobject lopcodes lstate lstring ltable ltm lundump lvm lzio \
           lauxlib lbaselib lcorolib ldblib liolib lmathlib loadlib loslib lstrlib ltablib lutf8lib linit; do core+=("$s/$f.c"); done
  for f in llex lparser lcode; do os_+=("$s/$f.c"); done
  compile_all "$o" "${cc[@]}" "${flags[@]}" -- "${core[@]}"
  compile_all "$o" "${cc[@]}" "${flags[@]}" -Os -- "${os_[@]}"
  rm -f "$prefix/lib/liblua5.4.a"
  "$ar" rcs "$prefix/lib/liblua5.4.a" "$o"/*.o
  mkdir -p "$prefix/include/lua5.4"
  cp "$s/lua.h" "$s/luaconf.h" "$s/lualib.h" "$s/lauxlib.h" "$s/lua.hpp" "$prefix/include/lua5.4/"
  pc_file lua5.4 "$(upstream_version lua5.4)" '-I${includedir}/lua5.4' '-L${libdir} -llua5.4'
}

# --- LPeg: its C files, static; re.lua beside -------------------------------
build_lpeg() {
  local s="$src/lua-lpeg" o="$build/lua-lpeg"
  rm -rf "$o"
  compile_all "$o" "${cc[@]}" -std=c99 -Wall -Wextra -O2 -DNDEBUG "${common_flags[@]}" -I"$prefix/include/lua5.4" -- \
    "$s/lpvm.c" "$s/lpcap.c" "$s/lptree.c" "$s/lpcode.c" "$s/lpprint.c"
  rm -f "$prefix/lib/liblua5.4-lpeg.a"
  "$ar" rcs "$prefix/lib/liblua5.4-lpeg.a" "$o"/*.o
  mkdir -p "$prefix/share/lua/5.4"
  cp "$s/re.lua" "$prefix/share/lua/5.4/re.lua"
}

# --- zstd: the library only, by its own CMake build (Debian builds with it) -
build_zstd() {
  local o="$build/libzstd"
  rm -rf "$o"
  cmake -S "$src/libzstd/build/cmake" -B "$o" "${cmake_common[@]}" \
    -DZSTD_BUILD_PROGRAMS=OFF -DZSTD_BUILD_SHARED=OFF -DZSTD_BUILD_STATIC=ON -DZSTD_BUILD_TESTS=OFF \
    -DZSTD_LEGACY_SUPPORT=ON -DZSTD_MULTITHREAD_SUPPORT=ON
  cmake --build "$o" -j "$jobs" --target libzstd_static
  cmake --install "$o"
  pc_file libzstd "$(upstream_version libzstd | sed 's/+dfsg.*//')" '-I${includedir}' '-L${libdir} -lzstd'
}

# --- SQLite: the amalgamation, generated from Debian's source tree by its
# configure on the host (tclsh), compiled with debian/rules' CFLAGS and the
# options its configure switches on (threadsafe, load-extension, json, fts4,
# fts5, math): the options that change SQL behaviour match Linux's.
build_sqlite3() {
  local o="$build/sqlite3"
  rm -rf "$o" && mkdir -p "$o/host"
  (cd "$o/host" && "$src/sqlite3/configure" --enable-threadsafe --enable-load-extension --enable-json \
     --enable-fts4 --enable-fts5 --disable-tcl >/dev/null && make -j "$jobs" sqlite3.c sqlite3.h)
  local features
  features="$(sed -n 's/^OPT_FEATURE_FLAGS = //p' "$o/host/Makefile")"
  echo "configure's options: $features"
  local debian_flags=(
    -O2 -fno-strict-aliasing
    -DSQLITE_SECURE_DELETE -DSQLITE_ENABLE_COLUMN_METADATA
    -DSQLITE_ENABLE_FTS3 -DSQLITE_ENABLE_FTS3_PARENTHESIS
    -DSQLITE_ENABLE_RTREE=1 -DSQLITE_SOUNDEX=1
    -DSQLITE_ENABLE_UNLOCK_NOTIFY
    -DSQLITE_OMIT_LOOKASIDE=1 -DSQLITE_ENABLE_DBSTAT_VTAB
    -DSQLITE_ALLOW_ROWID_IN_VIEW
    -DSQLITE_ENABLE_UPDATE_DELETE_LIMIT=1
    -DSQLITE_ENABLE_LOAD_EXTENSION
    -DSQLITE_ENABLE_JSON1
    -DSQLITE_LIKE_DOESNT_MATCH_BLOBS
    -DSQLITE_THREADSAFE=1
    -DSQLITE_ENABLE_FTS3_TOKENIZER=1
    -DSQLITE_USE_URI=1
    -DSQLITE_MAX_SCHEMA_RETRY=25
    -DSQLITE_ENABLE_PREUPDATE_HOOK
    -DSQLITE_ENABLE_SESSION
    -DSQLITE_ENABLE_STMTVTAB
    -DSQLITE_MAX_VARIABLE_NUMBER=250000
  )
  # shellcheck disable=SC2086
  compile_all "$o" "${cc[@]}" -g "${debian_flags[@]}" $features "${common_flags[@]}" -- "$o/host/sqlite3.c"
  rm -f "$prefix/lib/libsqlite3.a"
  "$ar" rcs "$prefix/lib/libsqlite3.a" "$o/sqlite3.o"
  cp "$o/host/sqlite3.h" "$src/sqlite3/src/sqlite3ext.h" "$prefix/include/"
  pc_file sqlite3 "$(upstream_version sqlite3)" '-I${includedir}' '-L${libdir} -lsqlite3'
}

# --- protobuf: libprotobuf-lite only (the host's protoc generates the code) -
build_protobuf() {
  local s="$src/protobuf" o="$build/protobuf"
  rm -rf "$o"
  cmake -S "$s/cmake" -B "$o" "${cmake_common[@]}" \
    -Dprotobuf_BUILD_TESTS=OFF -Dprotobuf_BUILD_PROTOC_BINARIES=OFF -Dprotobuf_BUILD_SHARED_LIBS=OFF \
    -Dprotobuf_WITH_ZLIB=OFF -Dprotobuf_BUILD_LIBPROTOC=OFF -Dprotobuf_INSTALL=OFF
  cmake --build "$o" -j "$jobs" --target libprotobuf-lite
  cp "$o/libprotobuf-lite.a" "$prefix/lib/"
  (cd "$s/src" && find google -name '*.h' -o -name '*.inc' | while read -r h; do
     mkdir -p "$prefix/include/$(dirname "$h")" && cp "$h" "$prefix/include/$h"; done)
}

# --- LLVM: only the libraries engine/symbols/pdb_symbol_table.cpp links,
# by LLVM's own CMake (no targets, the host's llvm-tblgen-14), each built
# alone (Makefile generator: TARGET/fast skips the rest of the tree).
llvm_libs=(LLVMDebugInfoPDB LLVMDebugInfoCodeView LLVMDebugInfoMSF LLVMBinaryFormat LLVMSupport LLVMDemangle)
build_llvm() {
  local o="$build/llvm-14"
  rm -rf "$o"
  cmake -S "$src/llvm-toolchain-14/llvm" -B "$o" "${cmake_common[@]}" \
    -DLLVM_TARGETS_TO_BUILD= -DLLVM_TABLEGEN=/usr/bin/llvm-tblgen-14 -DLLVM_HOST_TRIPLE=x86_64-w64-windows-gnu \
    -DLLVM_INCLUDE_TESTS=OFF -DLLVM_INCLUDE_BENCHMARKS=OFF -DLLVM_INCLUDE_EXAMPLES=OFF -DLLVM_INCLUDE_DOCS=OFF \
    -DLLVM_INCLUDE_UTILS=OFF -DLLVM_INCLUDE_TOOLS=OFF -DLLVM_INCLUDE_RUNTIMES=OFF -DLLVM_INCLUDE_GO_TESTS=OFF \
    -DLLVM_BUILD_TOOLS=OFF -DLLVM_BUILD_UTILS=OFF -DLLVM_ENABLE_BINDINGS=OFF -DLLVM_ENABLE_ZLIB=OFF \
    -DLLVM_ENABLE_TERMINFO=OFF -DLLVM_ENABLE_LIBXML2=OFF -DLLVM_ENABLE_LIBEDIT=OFF -DLLVM_ENABLE_LIBPFM=OFF \
    -DLLVM_ENABLE_Z3_SOLVER=OFF -DLLVM_ENABLE_DIA_SDK=OFF -DLLVM_ENABLE_ASSERTIONS=OFF \
    -DLLVM_ENABLE_PROJECTS= -DLLVM_ENABLE_RUNTIMES=
  local lib
  for lib in "${llvm_libs[@]}"; do
    make -C "$o" -j "$jobs" "$lib/fast"
  done
  rm -rf "$prefix/lib/llvm-14" "$prefix/include/llvm-14"
  mkdir -p "$prefix/lib/llvm-14" "$prefix/include/llvm-14"
  for lib in "${llvm_libs[@]}"; do
    cp "$o/lib/lib$lib.a" "$prefix/lib/llvm-14/"
    echo "$lib" >> "$prefix/lib/llvm-14/link-order.txt"
  done
  # The source headers, and those the configure step wrote (llvm/Config),
  # without the build's own files beside them (Makefiles, CMakeFiles).
  cp -r "$src/llvm-toolchain-14/llvm/include/llvm" "$src/llvm-toolchain-14/llvm/include/llvm-c" "$prefix/include/llvm-14/"
  (cd "$o/include" && find llvm -type f \( -name '*.h' -o -name '*.def' -o -name '*.inc' -o -name '*.gen' \) |
     while read -r h; do mkdir -p "$prefix/include/llvm-14/$(dirname "$h")" && cp "$h" "$prefix/include/llvm-14/$h"; done)
}

# --- GoogleTest: Debian's /usr/src/googletest (the googletest package) ------
build_googletest() {
  local o="$build/googletest"
  rm -rf "$o"
  cmake -S /usr/src/googletest -B "$o" "${cmake_common[@]}" -DBUILD_GMOCK=ON -DINSTALL_GTEST=ON
  cmake --build "$o" -j "$jobs"
  cmake --install "$o"
}

# With --only, the sources are taken as fetched already (unless "fetch" is named).
if [ ${#only[@]} -eq 0 ]; then : > "$timings"; fi
if wanted fetch; then
  start=$(date +%s)
  "$here/fetch-sources.sh" "$work"
  echo "fetch+unpack $(( $(date +%s) - start )) s" | tee -a "$timings"
fi
host_headers
step lua5.4 build_lua
step lua-lpeg build_lpeg
step libzstd build_zstd
step sqlite3 build_sqlite3
step protobuf build_protobuf
step googletest build_googletest
step llvm-toolchain-14 build_llvm
# The licence of each library built into heapql.exe, kept with it for
# scripts/package-windows.sh (the sources in WORK may be gone by then).
if [ ${#only[@]} -eq 0 ]; then
  mkdir -p "$prefix/share/licenses"
  for package in $(awk '!/^#/ && NF { print $1 }' "$here/sources.lock" | sort -u); do
    cp "$src/$package/debian/copyright" "$prefix/share/licenses/$package.copyright"
  done
fi
if [ -n "$stamp" ] && [ ${#only[@]} -eq 0 ]; then
  rm -f "$prefix"/built-from-*
  touch "$stamp"
fi
echo "build-deps: done; prefix $prefix"
