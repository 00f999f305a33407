#!/usr/bin/env bash
# run_target.sh TARGET SEED_CORPUS WORK_DIR SECONDS [libFuzzer options...]
# Runs one libFuzzer target: first every committed seed (the regression cases among them must
# pass), then SECONDS of fuzzing. New inputs go to WORK_DIR/corpus, a crashing input to
# WORK_DIR/crash-* (copy it into SEED_CORPUS once fixed). Prints libFuzzer's final statistics
# (exec/s, corpus size); the exit status is libFuzzer's (0: nothing found).
set -u
[ $# -ge 4 ] || { echo "usage: run_target.sh TARGET SEED_CORPUS WORK_DIR SECONDS [options]" >&2; exit 2; }
target=$1 seeds=$2 work=$3 secs=$4
shift 4
[ -x "$target" ] || { echo "run_target.sh: $target: not an executable" >&2; exit 2; }
[ -d "$seeds" ] || { echo "run_target.sh: $seeds: no seed corpus" >&2; exit 2; }
mkdir -p "$work/corpus" || exit 2
here=$(cd "$(dirname "$0")" && pwd)
export LSAN_OPTIONS="suppressions=$here/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
exec "$target" -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 -max_len=65536 \
  -print_final_stats=1 -artifact_prefix="$work/" "$@" "$work/corpus" "$seeds"
