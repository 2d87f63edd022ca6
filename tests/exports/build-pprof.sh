#!/bin/sh
# Builds Google's pprof from Debian's Go source package (golang-github-google-pprof-dev
# and the packages it depends on, all under /usr/share/gocode), offline, into OUT.
# Kept once built: a second run does nothing.
#   build-pprof.sh OUT        exit 0: OUT is pprof; 77: Go or the sources are absent
set -eu
out=$1
[ -x "$out" ] && exit 0
gocode=/usr/share/gocode
if ! command -v go >/dev/null || [ ! -d "$gocode/src/github.com/google/pprof" ]; then
  echo "build-pprof: needs golang-go and golang-github-google-pprof-dev (scripts/install-deps.sh)" >&2
  exit 77
fi
mkdir -p "$(dirname "$out")"
tools=$(cd "$(dirname "$out")" && pwd)
# GOPATH mode over Debian's tree: no module download, no proxy, no VCS stamp.
# Go's build cache sits beside OUT, not in $HOME.
GO111MODULE=off GOPATH=$gocode GOPROXY=off GOFLAGS=-buildvcs=false GOCACHE="$tools/go-cache" \
  go build -o "$out.tmp.$$" github.com/google/pprof
mv "$out.tmp.$$" "$out"
