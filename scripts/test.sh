#!/usr/bin/env bash
# The test suite. Installs what is missing, then
#  1. build/       the normal build with warnings as errors: every test.
# With --full (what CI runs, .ci/run), also
#  2. build-asan/  the same sources under ASan+UBSan (HEAPQL_SANITIZE): the
#                  unit tests and the command-line tests of hostile input;
#  3. a packager's plain Release build, installed into a temporary prefix,
#     whose heapql must find its recipes without the source tree;
#  4. build-windows/  heapql.exe cross-built with mingw-w64 (scripts/build-windows.sh),
#                  its tests run under Wine, its answers compared with build/'s heapql
#                  (windows.same_json_as_linux) and its zip tested (windows.package).
# --windows adds step 4 alone to step 1.
# build/ is configured as scripts/demo.sh configures it, so after the demo
# only the test programs are left to build. Both test builds keep line
# tables only (-g1; scripts/configure.sh says why). Each ctest run prints its
# summary; at the end come how long each step took, the failed tests, and
# a line that adds the summaries up.
set -euo pipefail
cd "$(dirname "$0")/.."

full=false
windows=false
usage="usage: scripts/test.sh [--full] [--windows]   (--full adds the ASan+UBSan build, the install check and the Windows build under Wine, as CI runs; --windows only the last)"
for arg in "$@"; do
  case $arg in
    --full) full=true windows=true ;;
    --windows) windows=true ;;
    -h | --help) echo "$usage"; exit 0 ;;
    *) echo "test.sh: unknown option '$arg' ($usage)" >&2; exit 2 ;;
  esac
done

# How long each step took, printed at the end: CI allows 90 minutes for all of them.
step_times=()
step_started=$SECONDS
end_step() {
  step_times+=("$1: $((SECONDS - step_started)) s")
  step_started=$SECONDS
}

source scripts/configure.sh
heapql_configure
end_step "install what is missing, configure $build_dir"
cmake --build "$build_dir" -j2
end_step "build $build_dir"

dirs=("$build_dir")
if $full; then
  asan_dir="${build_dir}-asan"
  cmake -S . -B "$asan_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${heapql_test_build_flags[@]}" "${heapql_launcher[@]}" \
    -DHEAPQL_WERROR=ON -DHEAPQL_SANITIZE=ON -DHEAPQL_TESTS=ON -DHEAPQL_BENCH=OFF >/dev/null
  cmake --build "$asan_dir" -j2
  end_step "build $asan_dir"
  ./scripts/check-install.sh "${build_dir}-release"
  end_step "check-install (${build_dir}-release)"
  dirs+=("$asan_dir")
fi
if $windows; then
  # windows.same_json_as_linux compares heapql.exe with this build's heapql.
  ./scripts/build-windows.sh --linux-heapql "$build_dir/heapql"
  end_step "build build-windows"
  dirs+=(build-windows)
fi

status=0
summaries=()
failures=()
for dir in "${dirs[@]}"; do
  echo "== ctest in $dir =="
  log=$(mktemp)
  # Under Wine a test program now and then fails for Wine's own reasons ("wine client error:
  # ... sendmsg: Socket operation on non-socket" on a child's stderr, CreateProcessW's error
  # 1359): 0-2 of 1,212 tests a run (docs/testing.md, Windows). A Windows test that fails is
  # run once more; its first failure stays in the log above the summary.
  retry=()
  [ "$dir" = build-windows ] && retry=(--repeat until-pass:2)
  (cd "$dir" && ctest --output-on-failure -j2 --timeout 600 "${retry[@]}") | tee "$log" || status=1
  end_step "ctest in $dir"
  summaries+=("$(grep -E '^[0-9]+% tests passed' "$log" | tail -1)")
  # The failed tests' names again at the very end, where a CI log's tail shows them.
  while IFS= read -r line; do failures+=("$dir: ${line#"${line%%[![:space:]]*}"}"); done \
    < <(sed -n '/^The following tests FAILED:/,/^Errors while running CTest/p' "$log" | grep -E '^[[:space:]]+[0-9]+ - ')
  rm -f "$log"
done
passed=0 failed=0
for line in "${summaries[@]}"; do
  if [[ $line =~ ([0-9]+)\ tests\ failed\ out\ of\ ([0-9]+) ]]; then
    failed=$((failed + BASH_REMATCH[1]))
    passed=$((passed + BASH_REMATCH[2] - BASH_REMATCH[1]))
  else
    status=1
  fi
done
for step in "${step_times[@]}"; do echo "took: $step"; done
for failure in "${failures[@]}"; do echo "failed: $failure"; done
echo "tests: $passed passed, $failed failed"
exit $status
