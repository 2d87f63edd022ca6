#!/bin/sh
# Runs a Windows program under Debian's wine64: the CMAKE_CROSSCOMPILING_EMULATOR of
# build-windows (ctest and gtest_discover_tests call `wine-run.sh PROGRAM.exe ARGS...`).
#
# - WINEDEBUG=-all: Wine's own fixme/err lines would mix into the stderr the tests read.
# - A private WINEPREFIX, never ~/.wine: $HEAPQL_WINEPREFIX when set, else `wineprefix/`
#   in the build folder that holds PROGRAM (the nearest folder above it with a
#   CMakeCache.txt). It is made on first use (wineboot: 13-23 s measured here).
# - A persistent wineserver for that prefix (`wineserver -p`) when none runs: each
#   process then starts in about 30 ms instead of about a second (docs/testing.md).
# - The program's exit code is this script's (exec).
set -eu

WINE=${HEAPQL_WINE:-/usr/lib/wine/wine64}
WINESERVER=${HEAPQL_WINESERVER:-/usr/lib/wine/wineserver}
[ $# -ge 1 ] || { echo "usage: $0 PROGRAM.exe [ARGUMENTS...]" >&2; exit 2; }
[ -x "$WINE" ] || { echo "$0: $WINE is missing (apt-get install wine64)" >&2; exit 2; }

prefix=${HEAPQL_WINEPREFIX:-}
if [ -z "$prefix" ]; then
  dir=$(cd "$(dirname "$1")" 2>/dev/null && pwd -P) || { echo "$0: no folder for $1" >&2; exit 2; }
  while [ "$dir" != / ] && [ ! -f "$dir/CMakeCache.txt" ]; do dir=$(dirname "$dir"); done
  [ -f "$dir/CMakeCache.txt" ] ||
    { echo "$0: $1 is in no build folder (no CMakeCache.txt above it): set HEAPQL_WINEPREFIX" >&2; exit 2; }
  prefix=$dir/wineprefix
fi
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd -P)
export WINEPREFIX="$prefix" WINEDEBUG=-all
# No Wine menu entries or file associations in the user's desktop; no Mono or Gecko prompts.
export WINEDLLOVERRIDES="${WINEDLLOVERRIDES:-winemenubuilder.exe=d;mscoree=d;mshtml=d}"

# Under one lock, so that `ctest -j2` neither makes the prefix twice nor lets a test start
# the services (below) while another is starting them. What is started here lives on, and
# must not hold the lock's descriptor (9>&-): it would keep the lock for ever.
(
  flock 9
  if [ ! -f "$prefix/system.reg" ]; then
    "$WINE" wineboot --init </dev/null >/dev/null 2>&1 9>&- || true
    # The registry files are written when that session's server exits.
    "$WINESERVER" -w
  fi
  # Exits 2 at once when a server already runs for this prefix. Its standard streams go to
  # /dev/null: ctest reads a test's pipes until every writer has closed them. So do those
  # of the services (services.exe, winedevice.exe) the first program of a server starts,
  # which live on with it: started here by wineboot, not by the test.
  if [ -f "$prefix/system.reg" ] && "$WINESERVER" -p </dev/null >/dev/null 2>&1 9>&-; then
    "$WINE" wineboot </dev/null >/dev/null 2>&1 9>&- || true
  fi
  # No debugger started for a crash (AeDebug): a crashing test program ends with its
  # fault's code, as under Windows Error Reporting, instead of waiting in winedbg.
  if [ -f "$prefix/system.reg" ] && [ ! -f "$prefix/no-crash-debugger" ]; then
    "$WINE" reg delete 'HKLM\Software\Microsoft\Windows NT\CurrentVersion\AeDebug' /v Debugger /f \
      </dev/null >/dev/null 2>&1 9>&- || true
    touch "$prefix/no-crash-debugger"
  fi
) 9>"$prefix.lock"
[ -f "$prefix/system.reg" ] || { echo "$0: wineboot made no prefix in $prefix" >&2; exit 2; }

exec "$WINE" "$@"
