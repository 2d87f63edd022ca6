# The benchmarks' traced programs (sourced by run-bench.sh and record-bench.sh).
# define_workload sets: name (the trace's base name), workload (the argv
# traced), min_calls and min_stacks (what a full-size recording must reach).
# Reads: here (bench/), quick (0/1), workload_kind (compile|walk|cxx), passes
# ("" for the default). Calls die on a missing tool.

define_workload() {
  # The traced program: the system interpreter itself (not a wrapper such as a
  # pyenv shim, whose exec would be traced instead), its object allocator off
  # so every object is a malloc/free.
  python=/usr/bin/python3
  [[ -x "$python" ]] || python="$(command -v python3)"
  stdlib="$("$python" -c 'import os; print(os.path.dirname(os.__file__))')"
  [[ -d "$stdlib" ]] || die "cannot find the Python standard library of $python"

  min_stacks=0
  if [[ $workload_kind == cxx ]]; then
    # A fixed C++ source from Debian's googletest package (installed with the
    # project's dependencies), compiled with the clang++ of clang-14.
    cxx=/usr/bin/clang++-14
    gtest_src=/usr/src/googletest/googletest
    [[ -x "$cxx" ]] || die "the cxx workload needs $cxx (Debian package clang-14)"
    [[ -d "$gtest_src/test" ]] || die "the cxx workload needs $gtest_src (Debian package googletest)"
    if [[ $quick -eq 1 ]]; then
      name=bench-cxx-quick
      source_file="$gtest_src/src/gtest-all.cc"
      optimize=-O0
      min_calls=500000
    else
      name=bench-cxx
      source_file="$gtest_src/test/gtest_unittest.cc"
      optimize=-O2
      min_calls=20000000
    fi
    workload=("$cxx" -std=c++17 "$optimize" -g "-I$gtest_src/include" "-I$gtest_src" -c "$source_file" -o /dev/null)
  elif [[ $workload_kind == walk ]]; then
    # --passes counts hundreds of files here: each file walked once.
    if [[ $quick -eq 1 ]]; then
      name=bench-walk-quick
      max_files=$((${passes:-1} * 40))
      min_calls=500000
    else
      name=bench-walk
      max_files=$((${passes:-6} * 100))
      min_calls=15000000
      min_stacks=1500000
    fi
    workload=("$python" "$here/walk_sources.py" "$stdlib" "$max_files")
  else
    if [[ $quick -eq 1 ]]; then
      name=bench-quick
      passes="${passes:-1}"
      max_files=80
      min_calls=500000
    else
      name=bench-trace
      passes="${passes:-7}"
      max_files=0
      min_calls=40000000
    fi
    workload=("$python" "$here/compile_stdlib.py" "$passes" "$stdlib" "$max_files")
  fi

}
