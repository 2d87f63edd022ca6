#!/usr/bin/env bash
# Installs the Debian packages heapql needs to build, test and record traces,
# but only those that are missing. Runs apt-get as root (directly, or via sudo).
set -euo pipefail

packages=(
  build-essential cmake pkg-config ccache
  libfmt-dev libzstd-dev zlib1g-dev zstd gzip libsqlite3-dev
  googletest libgtest-dev libbenchmark-dev
  heaptrack sqlite3 python3 time
  liblua5.4-dev lua5.4 lua-lpeg lua-lpeg-dev
  # PDB symbols: LLVM 14's PDB reader (llvm-14-dev, linked statically), and
  # for the tests clang-cl-14 / lld-link-14 (fixtures) and llvm-symbolizer-14 (oracle).
  clang-14 lld-14 llvm-14 llvm-14-dev
  # Fuzzing (scripts/fuzz.sh): libFuzzer for clang-14.
  libclang-rt-14-dev
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
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
