#!/usr/bin/env bash
# tests/run's closing counts (tests/lib/ctest_counts.sh) on a real CTest project's JUnit report:
# a passing, a failing and a self-skipping test (exit 77, SKIP_RETURN_CODE), then the GPU tests
# a machine without a GPU skips; a missing report is one failure.
# usage: test_ctest_counts.sh REPO WORKDIR
set -u
repo=$1 work=$2
rm -rf "$work" && mkdir -p "$work/src" || exit 1
cat > "$work/src/CMakeLists.txt" << 'CMAKE'
cmake_minimum_required(VERSION 3.21)
project(counts NONE)
enable_testing()
add_test(NAME passes COMMAND true)
add_test(NAME fails COMMAND false)
add_test(NAME skips COMMAND sh -c "exit 77")
set_tests_properties(skips PROPERTIES SKIP_RETURN_CODE 77)
CMAKE
cmake -S "$work/src" -B "$work/build" > "$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; exit 1; }
ctest --test-dir "$work/build" --output-junit "$work/report.xml" > "$work/ctest.log" 2>&1
. "$repo/tests/lib/ctest_counts.sh"
bad=0
want() { # want TEXT: the counts line must be TEXT
  local got
  got=$(counts)
  if [ "$got" != "$1" ]; then
    echo "FAIL: counts printed '$got', expected '$1'"
    bad=1
  fi
}
tally "$work/report.xml"
want "tests/run: 1 passed, 1 failed, 1 skipped"
gpu_skipped=123
want "tests/run: 1 passed, 1 failed, 124 skipped: 123 no GPU, 1 by the tests themselves"
passed=612 failures=0 skipped=0
want "tests/run: 612 passed, 0 failed, 123 skipped: no GPU"
tally "$work/missing.xml"
want "tests/run: 612 passed, 1 failed, 123 skipped: no GPU"
gpu_skipped=0
want "tests/run: 612 passed, 1 failed"
# CI's reading: "N passed, N failed" after one word with a colon, ", N skipped..." may follow
echo "tests/run: 612 passed, 0 failed, 123 skipped: no GPU" | grep -Eq '^[^ ]+: [0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped.*)?$' || bad=1
[ "$bad" = 0 ] && echo "PASS ctest counts (pass, fail, self-skip, no GPU, missing report)"
exit "$bad"
