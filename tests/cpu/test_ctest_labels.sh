#!/usr/bin/env bash
# Every test of the build carries one of the labels tests/run selects (cpu and mpi it runs, gpu it
# runs or counts as skipped): a test added without one would never run in CI and never be
# counted. First the check itself on a real CTest project with one unlabelled test (it must be
# named), then the build's tests.
# usage: test_ctest_labels.sh BUILD_DIR WORKDIR
set -u
build=$1 work=$2
total() { sed -n 's/^Total Tests: \([0-9]*\)$/\1/p'; }
names() { sed -n 's/^ *Test *#[0-9]*: //p' | sort; }
# unlabelled DIR: the tests of DIR without cpu, mpi or gpu, one per line; 1 when ctest gives no count
unlabelled() {
  local all labelled
  all=$(ctest --test-dir "$1" -N | total)
  labelled=$(ctest --test-dir "$1" -N -L '^(cpu|mpi|gpu)$' | total)
  [ -n "$all" ] && [ -n "$labelled" ] || return 1
  [ "$all" = "$labelled" ] || comm -23 <(ctest --test-dir "$1" -N | names) \
    <(ctest --test-dir "$1" -N -L '^(cpu|mpi|gpu)$' | names)
}
rm -rf "$work" && mkdir -p "$work/src" || exit 1
cat > "$work/src/CMakeLists.txt" << 'CMAKE'
cmake_minimum_required(VERSION 3.21)
project(labels NONE)
enable_testing()
add_test(NAME labelled COMMAND true)
add_test(NAME forgotten COMMAND true)
set_tests_properties(labelled PROPERTIES LABELS cpu)
CMAKE
cmake -S "$work/src" -B "$work/build" > "$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; exit 1; }
got=$(unlabelled "$work/build") || { echo "FAIL: ctest -N gave no count in $work/build"; exit 1; }
[ "$got" = forgotten ] || { echo "FAIL: the check named '$got', not the unlabelled test 'forgotten'"; exit 1; }
got=$(unlabelled "$build") || { echo "FAIL: ctest -N gave no count in $build"; exit 1; }
if [ -n "$got" ]; then
  echo "FAIL: tests that carry none of the labels cpu, mpi, gpu (tests/run never runs them):"
  echo "$got"
  exit 1
fi
echo "every test of $build carries cpu, mpi or gpu"
