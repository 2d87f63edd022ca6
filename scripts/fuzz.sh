#!/usr/bin/env bash
# A libFuzzer campaign on one target:
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
# TARGET: heaptrack block_identity etl event_csv patterns xperf recipe_params
# store live_journal (tests/fuzz/*_fuzz.cpp). Builds build-fuzz/ with clang-14, everything
# instrumented (libFuzzer's coverage, ASan, UBSan), then fuzzes from the
# committed seeds (tests/fuzz/corpus/TARGET, read only) into a work corpus,
# build-fuzz/corpus/TARGET. A crash is written to build-fuzz/crashes/TARGET/:
# copy it into the seed corpus (it then replays in ctest) and fix the reader.
# With -jobs=N, each job's log is build-fuzz/logs/TARGET/fuzz-N.log. The
# timeout is wall time: a fuzzer stopped (SIGSTOP) and resumed reports its
# input as a timeout.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]"
target=${1:?$usage}
seconds=${2:?$usage}
shift 2
./scripts/install-deps.sh >/dev/null
dir=${HEAPQL_FUZZ_DIR:-build-fuzz}
if [ ! -f "$dir/CMakeCache.txt" ]; then
  launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" \
    -DHEAPQL_FUZZ=ON -DHEAPQL_TESTS=OFF -DHEAPQL_BENCH=OFF >/dev/null
fi
cmake --build "$dir" -j2 --target "fuzz_$target"
root=$(pwd)
dir=$(cd "$dir" && pwd)
mkdir -p "$dir/corpus/$target" "$dir/crashes/$target" "$dir/logs/$target"
# With -jobs, libFuzzer writes fuzz-N.log in the working folder: one folder
# per target, so that campaigns on two targets at once keep their own logs.
cd "$dir/logs/$target"
exec "$dir/tests/fuzz/fuzz_$target" "$dir/corpus/$target" "$root/tests/fuzz/corpus/$target" \
  -max_total_time="$seconds" -print_final_stats=1 -timeout=20 -rss_limit_mb=4096 -entropic=0 \
  -artifact_prefix="$dir/crashes/$target/" "$@"
