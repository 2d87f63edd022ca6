#!/usr/bin/env bash
# Installs the Debian packages heapql needs to build, test and record traces,
# but only those that are missing. Runs apt-get as root (directly, or via sudo).
set -euo pipefail

packages=(
  build-essential cmake pkg-config ccache
  libfmt-dev libzstd-dev zlib1g-dev zstd gzip libsqlite3-dev
  # The store's checksums (XXH3).
  libxxhash-dev
  # --format pprof: libprotobuf and protoc (the tests decode with protoc too).
  libprotobuf-dev protobuf-compiler
  googletest libgtest-dev libbenchmark-dev
  heaptrack sqlite3 python3 time
  # heapql record --pid attaches heaptrack with gdb (as heaptrack -p does).
  gdb
  liblua5.4-dev lua5.4 lua-lpeg lua-lpeg-dev
  # PDB symbols: LLVM 14's PDB reader (llvm-14-dev, linked statically), and
  # for the tests clang-cl-14 / lld-link-14 (fixtures) and llvm-symbolizer-14 (oracle).
  clang-14 lld-14 llvm-14 llvm-14-dev
  # Fuzzing (scripts/fuzz.sh): libFuzzer for clang-14.
  libclang-rt-14-dev
  # The HTML report (docs/reports.md): npm for its pinned libraries
  # (report-ui/package-lock.json), Chromium for its tests.
  nodejs npm chromium
  # The export tests (tests/exports, docs/testing.md): pprof, built there
  # from Debian's Go source of it, offline.
  golang-go golang-github-google-pprof-dev
  # heapql serve (docs/serve.md): cpp-httplib, the HTTP server.
  libcpp-httplib-dev
  # heapql.exe (docs/windows.md, Building): mingw-w64 with posix threads and
  # its zlib, Wine to run it; the dependencies are built from Debian's
  # sources (scripts/windows/fetch-sources.sh: dpkg-source; SQLite's
  # amalgamation is generated with tclsh), the zip by zip.
  g++-mingw-w64-x86-64-posix gcc-mingw-w64-x86-64-posix libz-mingw-w64-dev wine64 zip
  dpkg-dev xz-utils tcl
)

missing=()
for package in "${packages[@]}"; do
  # A Node.js installed some other way (with its own npm, which Debian's npm
  # package would conflict with) will do.
  if [ "$package" = nodejs ] && command -v node >/dev/null; then continue; fi
  if [ "$package" = npm ] && command -v npm >/dev/null; then continue; fi
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done

# The HTML report's libraries, as report-ui/package-lock.json pins them; the
# build inlines them into the page (CMakeLists.txt, HEAPQL_HTML_REPORT: AUTO builds without them, warning).
# And the export tests' consumers, as tests/exports/package-lock.json pins them (speedscope, DuckDB).
# And the served app's browser tests' driver, as tests/serve/package-lock.json pins it (playwright-core).
install_report_ui() {
  local ui root
  root="$(cd "$(dirname "$0")/.." && pwd)"
  for ui in "$root/report-ui" "$root/tests/exports" "$root/tests/serve"; do
    # Again when the lock file changed since (npm keeps a copy in node_modules).
    if [ ! -d "$ui/node_modules" ] || [ "$ui/package-lock.json" -nt "$ui/node_modules/.package-lock.json" ]; then
      echo "install-deps: npm ci in $ui"
      npm ci --prefix "$ui" --no-audit --no-fund
    fi
  done
}

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  install_report_ui
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  as_root=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
install_report_ui
