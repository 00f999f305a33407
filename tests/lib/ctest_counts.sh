# shellcheck shell=bash
# tests/run's counts (sourced): tally adds a ctest --output-junit report's counts to passed,
# failures and skipped; counts prints the closing line CI reads,
#   tests/run: N passed, N failed[, N skipped[: why]]
# "N passed, N failed" alone on the line after one word with a colon; ", N skipped" may follow
# and names why (gpu_skipped: the GPU tests a machine without a GPU does not run, which CTest
# never sees). tests/cpu/test_ctest_counts.sh checks both on a real CTest project.
passed=0 failures=0 skipped=0 gpu_skipped=0

# tally JUNIT: the testsuite's tests, failures, disabled and skipped attributes (its first four
# lines of that form); a report that is missing or lacks them counts as one failure.
tally() {
  local k v n=0 t=0 f=0 s=0
  while IFS='=' read -r k v; do
    case $k in tests) t=$v ;; failures) f=$v ;; disabled | skipped) s=$((s + v)) ;; esac
    n=$((n + 1))
  done < <(sed -n 's/^[[:space:]]*\(tests\|failures\|disabled\|skipped\)="\([0-9]*\)".*/\1=\2/p' "$1" 2> /dev/null | head -4)
  if [ "$n" != 4 ]; then
    failures=$((failures + 1))
    return
  fi
  passed=$((passed + t - f - s)) failures=$((failures + f)) skipped=$((skipped + s))
}

counts() {
  local tail=""
  if [ "$gpu_skipped" -gt 0 ] && [ "$skipped" -gt 0 ]; then
    tail=", $((gpu_skipped + skipped)) skipped: $gpu_skipped no GPU, $skipped by the tests themselves"
  elif [ "$gpu_skipped" -gt 0 ]; then
    tail=", $gpu_skipped skipped: no GPU"
  elif [ "$skipped" -gt 0 ]; then
    tail=", $skipped skipped"
  fi
  printf 'tests/run: %d passed, %d failed%s\n' "$passed" "$failures" "$tail"
}
