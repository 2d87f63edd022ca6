#!/usr/bin/env bash
# Downloads the Debian source packages heapql.exe's dependencies are built
# from, at the exact versions scripts/windows/sources.lock pins, checks every
# downloaded file's sha256 against the lock, and unpacks each with
# dpkg-source (which applies Debian's patches).
#
#   scripts/windows/fetch-sources.sh WORK_DIR [PACKAGE...]
#
# apt-get runs with a private configuration under WORK_DIR/apt: its own
# sources file (a deb-src line for each mirror and suite the machine's own apt
# uses), its own lists and cache. The system's apt configuration is neither
# read for sources nor changed; root is not needed.
#   --print-lock   prints lock lines for what was downloaded, to pin a new
#                  version: fetch-sources.sh --print-lock DIR PACKAGE=VERSION
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
lock="$here/sources.lock"
print_lock=0
if [ "${1:-}" = --print-lock ]; then print_lock=1; shift; fi
work="${1:?usage: fetch-sources.sh [--print-lock] WORK_DIR [PACKAGE...]}"
shift
mkdir -p "$work"
work="$(cd "$work" && pwd)"
apt_dir="$work/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/sources.list.d" "$work/downloads"

# The machine's mirrors and suites, as deb-src lines: from deb822 .sources
# files (Types/URIs/Suites/Components/Signed-By) and one-line sources.list.
sources_list="$apt_dir/sources.list"
{
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -e "$f" ] || continue
    awk '
      function flush() {
        if (types ~ /(^| )deb( |$)/ && uris != "" && enabled != "no") {
          n = split(uris, u, " "); m = split(suites, s, " ")
          opt = signed != "" ? "[signed-by=" signed "] " : ""
          for (i = 1; i <= n; i++) for (j = 1; j <= m; j++) print "deb-src " opt u[i] " " s[j] " " comps
        }
        types = uris = suites = comps = signed = enabled = ""
      }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      { key = tolower($1); sub(/:$/, "", key); $1 = ""; sub(/^ +/, "")
        if (key == "types") types = $0; else if (key == "uris") uris = $0
        else if (key == "suites") suites = $0; else if (key == "components") comps = $0
        else if (key == "signed-by") signed = $0; else if (key == "enabled") enabled = tolower($0) }
      END { flush() }' "$f"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -e "$f" ] || continue
    sed -n 's/^[ \t]*deb[ \t]\+/deb-src /p' "$f"
  done
} | sort -u > "$sources_list"
if [ ! -s "$sources_list" ]; then
  echo "fetch-sources: found no Debian mirror in /etc/apt/sources.list or /etc/apt/sources.list.d/" >&2
  exit 1
fi

apt_options=(
  -o "Dir::Etc::SourceList=$sources_list"
  -o "Dir::Etc::SourceParts=$apt_dir/sources.list.d"
  -o "Dir::State::Lists=$apt_dir/lists"
  -o "Dir::Cache=$apt_dir/cache"
  -o "Acquire::Languages=none"
  -o "Debug::NoLocking=1"
  # As root apt downloads as _apt, who cannot write here.
  -o "APT::Sandbox::User=$(id -un)"
)
# The indices again when they are older than a day (or missing).
if [ -z "$(find "$apt_dir/lists" -maxdepth 1 -name '*Sources*' -mtime -1 -print -quit)" ]; then
  echo "fetch-sources: apt-get update (private lists in $apt_dir)"
  apt-get "${apt_options[@]}" -qq update
fi

# The lock: "package version file sha256", one file a line.
packages=("$@")
if [ ${#packages[@]} -eq 0 ]; then
  mapfile -t packages < <(awk '!/^#/ && NF == 4 { print $1 }' "$lock" | sort -u)
fi
for package in "${packages[@]}"; do
  version="$(awk -v p="$package" '!/^#/ && $1 == p { print $2; exit }' "$lock")"
  # PACKAGE=VERSION (with --print-lock): a version not pinned yet.
  if [ "$print_lock" = 1 ] && [[ "$package" == *=* ]]; then version="${package#*=}"; package="${package%%=*}"; fi
  if [ -z "$version" ]; then
    echo "fetch-sources: $package has no pinned version in $lock: add its lines (fetch-sources.sh --print-lock DIR $package=VERSION prints them)" >&2
    exit 1
  fi
  dest="$work/downloads/$package"
  mkdir -p "$dest"
  if [ ! -e "$dest/.verified-$version" ]; then
    rm -rf "$dest" && mkdir -p "$dest"
    echo "fetch-sources: apt-get source --download-only $package=$version"
    if ! (cd "$dest" && apt-get "${apt_options[@]}" -qq source --download-only "$package=$version"); then
      echo "fetch-sources: the mirror has no source package $package $version (the version the Linux build uses)." >&2
      echo "  If Debian replaced it, install the new binary packages, pin the new version and its sha256 sums in $lock" >&2
      echo "  (scripts/windows/fetch-sources.sh --print-lock DIR $package=VERSION prints them) and check the Windows build again." >&2
      exit 1
    fi
    for file in "$dest"/*; do
      name="$(basename "$file")"
      [ "$print_lock" = 1 ] && { echo "$package $version $name $(sha256sum "$file" | cut -d' ' -f1)"; continue; }
      want="$(awk -v p="$package" -v f="$name" '!/^#/ && $1 == p && $3 == f { print $4 }' "$lock")"
      got="$(sha256sum "$file" | cut -d' ' -f1)"
      if [ -z "$want" ]; then
        echo "fetch-sources: $package $version: $name is not in $lock; check where it came from, then add its sha256 ($got)" >&2
        exit 1
      fi
      if [ "$want" != "$got" ]; then
        echo "fetch-sources: $package $version: $name has sha256 $got, $lock says $want." >&2
        echo "  The download differs from the pinned source: do not build from it; find out why (mirror, new upload) before changing the lock." >&2
        exit 1
      fi
    done
    while read -r name; do
      [ -e "$dest/$name" ] || { echo "fetch-sources: $package $version: $name (in $lock) was not downloaded" >&2; exit 1; }
    done < <(awk -v p="$package" '!/^#/ && $1 == p { print $3 }' "$lock")
    [ "$print_lock" = 1 ] && continue
    touch "$dest/.verified-$version"
  fi
  [ "$print_lock" = 1 ] && continue
  # Unpacked with Debian's patches applied, once.
  src="$work/src/$package"
  if [ ! -e "$src/.unpacked-$version" ]; then
    rm -rf "$src"
    mkdir -p "$work/src"
    echo "fetch-sources: dpkg-source -x $package $version"
    dpkg-source --no-check -x "$dest"/*.dsc "$src" >/dev/null
    touch "$src/.unpacked-$version"
  fi
done
