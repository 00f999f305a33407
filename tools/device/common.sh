# shellcheck shell=bash
# What the GPU-machine scripts of tools/device/ share (sourced): their `--out DIR` option, each
# step's log under DIR/logs with one status line, the build, the GPU test suite with its logs
# kept, the CUDA MPS daemon for ranks that share a GPU, and the check of named steps or runs.
# DIR: --out DIR, else $OUT, else ./out; results go to DIR/results, logs to DIR/logs.
# Every log is made by logfile, through launcher/newfile.sh (the writer rule of
# tests/layers/check_writers.py): DIR is the user's, so a name in it may hold a planted symlink,
# and no file there is opened by its name.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../../launcher/newfile.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$(date +%s)

# device_args KNOWN "$@": --out DIR and -h/--help (the calling script's header is its help),
# then words that must be among KNOWN (exit 2, one line, before anything is built: a misspelt
# name costs no GPU time and never silently runs nothing). Sets OUT and WORDS (the words given).
device_args() {
  local known=$1 w
  shift
  OUT=${OUT:-$PWD/out} WORDS=()
  while [ $# -gt 0 ]; do
    case $1 in
      -h | --help)
        sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
        exit 0 ;;
      --out)
        [ $# -ge 2 ] && [ -n "$2" ] || { printf '%s: --out needs a folder\n' "$0" >&2; exit 2; }
        case $2 in *$'\n'* | *$'\r'*) printf '%s: --out: a folder name with a line break\n' "$0" >&2; exit 2 ;; esac
        OUT=$2
        shift ;;
      -*) printf "%s: unknown option '%.40s' (see --help)\n" "$0" "$1" >&2; exit 2 ;;
      *)
        for w in $known; do [ "$1" = "$w" ] && break; done
        [ "$1" = "${w:-}" ] || { printf "%s: unknown word '%.40s' (known: %s)\n" "$0" "$1" "$known" >&2; exit 2; }
        WORDS+=("$1") ;;
    esac
    shift
  done
  mkdir -p -- "$OUT/logs" "$OUT/results" || { printf '%s: cannot create %s\n' "$0" "$OUT" >&2; exit 2; }
  OUT=$(cd -- "$OUT" && pwd)
  logfile STEPS "$OUT/logs/steps.txt" || exit 2
}

# logfile VAR PATH: PATH made as a new, empty file (an earlier run's regular file there is
# replaced), open for writing on a descriptor whose number goes into VAR: launcher/newfile.sh's
# cb_newfile_open, the one shell writer. A symlink, device, FIFO, socket or folder at the name is
# refused, never written through or replaced: 1 and one line on stderr.
logfile() { CB_NEWFILE_WHO=$0 cb_newfile_open --replace "$1" "$2"; }

# capture NAME CMD...: CMD's output (stdout and stderr) into the new file $OUT/logs/NAME; CMD's status.
capture() {
  local name=$1 fd rc
  shift
  logfile fd "$OUT/logs/$name" || return 1
  "$@" 1>&"$fd" 2>&1
  rc=$?
  exec {fd}>&-
  return $rc
}

# say LINE: LINE on stdout and in $OUT/logs/steps.txt (a new file each invocation: its status lines).
say() {
  printf '%s\n' "$1"
  printf '%s\n' "$1" 1>&"$STEPS"
}

# wanted WORD: true when WORD was given, or when no word was (then everything runs).
wanted() {
  [ ${#WORDS[@]} = 0 ] && return 0
  local w
  for w in "${WORDS[@]}"; do [ "$w" = "$1" ] && return 0; done
  return 1
}

# step NAME CMD...: runs CMD, its output in $OUT/logs/NAME.log, one status line (also in
# $OUT/logs/steps.txt).
step() {
  local name=$1 t rc
  shift
  t=$(date +%s)
  capture "$name.log" "$@"
  rc=$?
  say "[$(($(date +%s) - T0))s] $name rc=$rc ($(($(date +%s) - t))s; log: $OUT/logs/$name.log)"
  return $rc
}

# build [CMAKE_ARGS...]: configure (Release) and build in build/; exits 1 when either fails.
# cuDNN: PyTorch's nvidia-cudnn package when present (CUDNN_ROOT; on the GPU machine 9.19, while
# the system's is 9.14, whose SDPA backward refuses lengths that are not multiples of 128), so
# every suite builds the *_cudnn rows against the same cuDNN.
build() {
  local root
  root=$(python3 -c 'import nvidia.cudnn as c; print(list(c.__path__)[0])' 2> /dev/null || true)
  if [ -z "${CUDNN_ROOT:-}" ] && [ -n "$root" ] && [ -d "$root/include" ]; then
    export CUDNN_ROOT=$root LD_LIBRARY_PATH=$root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  fi
  [ -n "${CUDNN_ROOT:-}" ] && say "cuDNN: $CUDNN_ROOT"
  capture nvidia-smi.txt nvidia-smi
  step cmake cmake -S . -B build -DCMAKE_BUILD_TYPE=Release ${CUDNN_ROOT:+-DCUDNN_ROOT=$CUDNN_ROOT} "$@" &&
    step build cmake --build build -j "$(nproc)" || exit 1
}

# gpu_suite NAME [REGEX [CTEST_ARGS...]]: ctest -L gpu (the tests matching REGEX if given, more
# ctest arguments after it; each test at most 240 s) as step NAME, then every test's collbench
# log into $OUT/logs/gpu/ and CTest's full output as $OUT/logs/NAME-all.log.
gpu_suite() {
  local name=$1 only=() rc
  [ -n "${2:-}" ] && only=(-R "$2")
  shift
  [ $# -gt 0 ] && shift
  step "$name" ctest --test-dir build -L gpu ${only[@]+"${only[@]}"} "$@" --output-on-failure --timeout 240
  rc=$?
  mkdir -p "$OUT/logs/gpu"
  for log in build/tests/gpu/*.log; do
    [ -f "$log" ] && capture "gpu/${log##*/}" cat -- "$log"
  done
  [ -f build/Testing/Temporary/LastTest.log ] && capture "$name-all.log" cat -- build/Testing/Temporary/LastTest.log
  return $rc
}

# mps_start / mps_stop: the CUDA MPS daemon around runs that put several ranks on one GPU
# (without it they take turns in millisecond time slices: launcher/collbench-vnode). MPS=0 runs
# without it.
mps_start() {
  [ "${MPS:-1}" = 1 ] && command -v nvidia-cuda-mps-control > /dev/null || return 0
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/cb-mps CUDA_MPS_LOG_DIRECTORY=/tmp/cb-mps-log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  nvidia-cuda-mps-control -d && say "MPS daemon started"
}
mps_stop() {
  [ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ] || return 0
  echo quit | nvidia-cuda-mps-control
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
}
