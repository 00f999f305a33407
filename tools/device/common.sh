# shellcheck shell=bash disable=SC2034  # MPIRUN, CB and R are for the scripts that source this
# The one helper every GPU-machine script sources (tools/device/*.sh, and A/B scripts kept on
# branches): build collbench, run steps with a time limit logging under $OUT (the
# device tool's output folder) or ./out, run the GPU test suite keeping its logs, and pack
# everything into one archive.
set -u
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT/logs"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
MPIRUN=(mpirun -np "$NGPU" --allow-run-as-root --bind-to none)
CB=build/launcher/collbench
T0=$(date +%s)

# step NAME LIMIT_S CMD...: runs CMD with a wall limit, log in $OUT/logs/NAME.log, one status line.
step() {
  local name=$1 limit=$2
  shift 2
  local t
  t=$(date +%s)
  timeout -k 10 "$limit" "$@" > "$OUT/logs/$name.log" 2>&1
  local rc=$?
  echo "[$(( $(date +%s) - T0 ))s] $name rc=$rc ($(( $(date +%s) - t ))s)" | tee -a "$OUT/logs/steps.txt"
  return $rc
}

build() {
  nvidia-smi > "$OUT/logs/nvidia-smi.txt" 2>&1
  step cmake 120 cmake -S . -B build -DCMAKE_BUILD_TYPE=Release &&
    step build 300 cmake --build build -j "$(nproc)"
}

# begin: the build every script starts with (on failure: pack the logs and exit 1), then
# $OUT/results for the runs' files, also named $R.
begin() {
  build || { pack; exit 1; }
  mkdir -p "$OUT/results"
  R=$OUT/results
}

# moe_step NAME LIMIT_S COLLBENCH ARGS...: `COLLBENCH moe --model deepseek-v3 ARGS` on every GPU
# as step NAME, its CSV in $R/NAME.csv (the MoE runs of A/B scripts).
moe_step() {
  local name=$1 limit=$2 cb=$3
  shift 3
  step "$name" "$limit" "${MPIRUN[@]}" "$cb" moe --model deepseek-v3 "$@" --csv "$R/$name.csv"
}

# need_word NOUN WORD KNOWN [VAR]: exit 2 with "unknown NOUN 'WORD' [in VAR] (known: KNOWN)"
# unless WORD is one of KNOWN's words (the scripts check their arguments before the first build,
# so a misspelt name costs no device time and never silently runs nothing).
need_word() {
  local k
  for k in $3; do [ "$2" = "$k" ] && return 0; done
  printf "%s: unknown %s '%.40s'%s (known: %s)\n" "$0" "$1" "$2" "${4:+ in $4}" "$3" >&2
  exit 2
}

# need_patch FILE: exit 2 with a message unless FILE is a readable regular file (the A/B
# scripts check their patches before the first build, so a wrong name costs no device time).
need_patch() {
  [ -f "$1" ] && [ -r "$1" ] && return 0
  printf '%s: patch %.200s: not a readable file\n' "$0" "$1" >&2
  exit 2
}

# build_patched DIR PATCH STEP: a copy of the tree (without build directories or ./out) in DIR
# with PATCH applied (inside DIR, so a relative PATCH names a file of the tree), built in
# DIR/build as step STEP: the branch side of an A/B comparison (with ab_rounds, then
# tools/compare_ab.py on the CSVs). A patch that does not apply (or was applied already) or a failed build
# packs the logs and exits 1; the patch's output is in logs/STEP-patch.log.
build_patched() {
  local dir=$1 patch=$2 name=$3
  rm -rf "$dir" && mkdir -p "$dir" && tar --exclude=./build --exclude='./build-*' --exclude=./out -cf - . | tar -C "$dir" -xf -
  ( cd "$dir" && patch -p1 --forward --batch -i "$patch" ) > "$OUT/logs/$name-patch.log" 2>&1 ||
    { echo "$name: patch $patch failed" | tee -a "$OUT/logs/steps.txt"; pack; exit 1; }
  step "$name" 200 bash -c "cd '$dir' && cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build -j $(nproc)" ||
    { pack; exit 1; }
}

# ab_rounds REPS STOP_S FN TAG:DIR...: REPS rounds of FN main $CB REP, then FN TAG DIR's collbench
# REP for each TAG:DIR (build_patched's trees), so main and the branches alternate in one call;
# rounds that would start past STOP_S seconds are skipped (and logged).
ab_rounds() {
  local reps=$1 stop=$2 fn=$3 rep td
  shift 3
  for rep in $(seq 1 "$reps"); do
    if [ $(( $(date +%s) - T0 )) -gt "$stop" ]; then echo "reps from $rep skipped: past $stop s" >> "$OUT/logs/steps.txt"; break; fi
    "$fn" main "$CB" "$rep"
    for td in "$@"; do "$fn" "${td%%:*}" "${td#*:}/build/launcher/collbench" "$rep"; done
  done
}

# gpu_suite NAME LIMIT_S [REGEX [CTEST_ARGS...]]: ctest -L gpu (only the tests matching REGEX if
# given, more ctest arguments after it) as step NAME, each test at most 240 s, then every test's
# collbench log into $OUT/logs/gpu/ and CTest's full output (passed tests' harness lines too,
# e.g. the fault harness's waits) as $OUT/logs/NAME-all.log.
gpu_suite() {
  local name=$1 limit=$2 only=()
  [ -n "${3:-}" ] && only=(-R "$3")
  shift 2; [ $# -gt 0 ] && shift
  step "$name" "$limit" ctest --test-dir build -L gpu ${only[@]+"${only[@]}"} "$@" --output-on-failure --timeout 240
  local rc=$?
  mkdir -p "$OUT/logs/gpu"
  cp build/tests/gpu/*.log "$OUT/logs/gpu/" 2>/dev/null
  cp build/Testing/Temporary/LastTest.log "$OUT/logs/$name-all.log" 2>/dev/null
  return $rc
}

# mps_start / mps_stop: the CUDA MPS daemon around the runs that put two ranks on one GPU
# (2 x 2 virtual nodes): without it they take turns in millisecond time slices
# (launcher/collbench-vnode). MPS=0 runs without it.
mps_start() {
  [ "${MPS:-1}" = 1 ] && command -v nvidia-cuda-mps-control > /dev/null || return 0
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/cb-mps CUDA_MPS_LOG_DIRECTORY=/tmp/cb-mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  nvidia-cuda-mps-control -d && echo "MPS daemon started" | tee -a "$OUT/logs/steps.txt"
}
mps_stop() {
  [ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ] || return 0
  echo quit | nvidia-cuda-mps-control
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
}

# Everything in one archive (the device tool returns at most 8 files).
pack() {
  cp "$OUT/logs/steps.txt" "$OUT/steps.txt" 2>/dev/null
  tar -C "$OUT" -czf "$OUT/logs.tgz" logs results 2>/dev/null
  rm -rf "$OUT/results" "$OUT/logs"
  cat "$OUT/steps.txt"
}
