# launcher/profile.sh: collbench-run --profile ncu[:ALGO[:SIZE]] (sourced; functions only).
#
# After a run, the rows of ALGO (default: every algorithm that has timed rows) at SIZE (default:
# the largest size of those rows; bytes with K/M/G/T, tokens for moe, sequence length for
# ringattn) run once more, 2 iterations and 1 warmup, with every rank under Nsight Compute:
#   ncu --clock-control none --nvtx --section SpeedOfLight --section LaunchStats
#       --section Occupancy --section MemoryWorkloadAnalysis -f -o RUN/profile-ALGO-SIZE.rankR
# then `ncu --import ... --print-summary per-kernel` writes RUN/profile-ALGO-SIZE.rankR.txt. The
# kernels are the bench engine's (NVTX ranges FAMILY/ALGO/DTYPE/SIZE/MODE:round, :check, :setup
# name them: launcher/nvtx.h). ncu replays each kernel once per pass; a custom kernel that waits
# for its peers sees them only once, so a multi-rank row may end in collbench's timeout (exit 4):
# the report then holds what was profiled before it.
# Everything that can be checked is checked before the first run (exit 2): a tool other than
# ncu, ncu not on PATH, a SIZE that is not a size (or too large for a byte count), an ALGO no
# family of the run has, and the profiled command line itself (collbench parses it: the run's
# options with its sweep replaced by the one SIZE). In the default suite only the families that
# have ALGO are profiled, and collbench-run says so first. A run with no timed row to profile
# says so and keeps its exit code.
. "$(dirname -- "${BASH_SOURCE[0]}")/newfile.sh" # what this file uses, when sourced alone
. "$(dirname -- "${BASH_SOURCE[0]}")/child.sh" # what this file uses, when sourced alone

# Sets prof_tool, prof_algo, prof_size (bytes or count, "" = largest) from SPEC.
cb_profile_parse() {
  local spec=$1 rest
  prof_tool=${spec%%:*} prof_algo="" prof_size=""
  rest=${spec#"$prof_tool"}
  rest=${rest#:}
  prof_algo=${rest%%:*}
  [ "$rest" = "$prof_algo" ] || prof_size=${rest#*:}
  if [ "$prof_tool" != ncu ]; then
    echo "collbench-run: --profile: unknown tool '$prof_tool' (known: ncu)" >&2; return 1
  fi
  if [[ "$prof_size" == *:* ]] || [[ "$prof_algo" == *[![:alnum:]_]* ]]; then
    echo "collbench-run: --profile: $(cb_quote "$spec") is not ncu[:ALGO[:SIZE]]" >&2; return 1
  fi
  if [ -n "$prof_size" ]; then
    local n=${prof_size%[KMGTkmgt]} m=1
    case "${prof_size: -1}" in K|k) m=1024 ;; M|m) m=$((1 << 20)) ;; G|g) m=$((1 << 30)) ;; T|t) m=$((1 << 40)) ;; esac
    [[ "$n" =~ ^[1-9][0-9]{0,12}$ ]] ||
      { echo "collbench-run: --profile: SIZE $(cb_quote "$prof_size") is not a size (digits with K, M, G or T)" >&2; return 1; }
    # checked before the product, which would wrap in the shell's 64-bit arithmetic
    [ "$n" -le $(( (1 << 53) / m )) ] ||
      { echo "collbench-run: --profile: SIZE '$prof_size' is larger than 2^53 (no run has such a size)" >&2; return 1; }
    prof_size=$((n * m))
  fi
  command -v ncu > /dev/null ||
    { echo "collbench-run: --profile ncu: Nsight Compute's ncu is not on PATH (it ships with the CUDA toolkit: /usr/local/cuda/bin, or install nsight-compute)" >&2; return 1; }
}

# cb_profile_args SIZE FAMILY [ARGS...]: the profiled run's collbench options into prof_args:
# the run's own (FAMILY ARGS), without its sweep (--sizes, -b/-e/-f/-i, --tokens, --seq in any
# of their spellings), then the one SIZE, 2 iterations and 1 warmup (later options win in
# collbench's parser; --algo is added by the caller). SIZE empty (the largest of rows not run
# yet, for the check before the run): the run's sweep is kept.
cb_profile_args() {
  local size=$1 family=$2 a skip=0
  shift 2
  prof_args=("$family")
  if [ -z "$size" ]; then
    prof_args+=("$@" -n 2 -w 1)
    return 0
  fi
  for a in "$@"; do
    if [ "$skip" = 1 ]; then skip=0; continue; fi
    case $a in
      -b|-e|-f|-i|--minbytes|--maxbytes|--stepfactor|--stepbytes|--sizes|--tokens|--seq) skip=1 ;;
      -b?*|-e?*|-f?*|-i?*|--minbytes=*|--maxbytes=*|--stepfactor=*|--stepbytes=*|--sizes=*|--tokens=*|--seq=*) ;;
      *) prof_args+=("$a") ;;
    esac
  done
  case "$family" in
    moe) prof_args+=(--tokens "$size") ;;
    ringattn) prof_args+=(--seq "$size") ;;
    *) prof_args+=(-b "$size" -e "$size") ;;
  esac
  prof_args+=(-n 2 -w 1)
}

# cb_profile_check COLLBENCH FAMILY ARGS...: 0 when the run's family has ALGO and collbench
# accepts the profiled command line; 1 when the family has no ALGO; 2 (one line on stderr) when
# collbench refuses the profiled command line.
cb_profile_check() {
  local cb=$1 family=$2 out
  shift
  if [ -n "$prof_algo" ] && ! "$cb" "$family" --algo help 2> /dev/null | grep -qE "^ *$prof_algo( |$)"; then
    return 1
  fi
  cb_profile_args "$prof_size" "$@"
  [ -z "$prof_algo" ] || prof_args+=(--algo "$prof_algo")
  if ! out=$(CB_FAULT=collbench-run-parse-only "$cb" "${prof_args[@]}" 2>&1 < /dev/null) &&
     [[ "$out" != *collbench-run-parse-only* ]]; then
    echo "collbench-run: --profile: collbench refuses the profiled run of $family: ${out#collbench: }" >&2
    return 2
  fi
}

# cb_profile_plan COLLBENCH RUN...: prof_families, the families of the runs (each "FAMILY ARGS"
# as one argument, its words split by spaces, as the default suite has them; or FAMILY ARGS...
# of one run with --one) that are profiled. Says which are left out (no ALGO); returns 1 with
# one line on stderr when none is left or collbench refuses a profiled command line.
cb_profile_plan() {
  local cb=$1 entry rc
  local -a words left=()
  shift
  prof_families=()
  if [ "$1" = --one ]; then
    shift
    cb_profile_check "$cb" "$@"
    rc=$?
    [ "$rc" = 2 ] && return 1
    [ "$rc" = 0 ] && prof_families=("$1") || left=("$1")
  else
    for entry in "$@"; do
      read -r -a words <<< "$entry"
      cb_profile_check "$cb" "${words[@]}"
      rc=$?
      [ "$rc" = 2 ] && return 1
      [ "$rc" = 0 ] && prof_families+=("${words[0]}") || left+=("${words[0]}")
    done
  fi
  if [ ${#prof_families[@]} = 0 ]; then
    echo "collbench-run: --profile: no algorithm '$prof_algo' in ${left[*]} (collbench FAMILY --algo help lists them)" >&2
    return 1
  fi
  [ ${#left[@]} = 0 ] ||
    echo "collbench-run: --profile ncu:$prof_algo profiles ${prof_families[*]} only (${left[*]} have no $prof_algo)"
}

# cb_profile_rows DIR COLLBENCH LAUNCH... -- FAMILY ARGS...: profiles the chosen rows of
# DIR/results.csv (LAUNCH: the run's mpirun or srun prefix and any wrapper before collbench),
# each profiled run as a step of its own (launcher/child.sh: a signal stops it like the run).
# Returns 0, 3 when a profiled run failed, or 128 + N when signal N stopped it.
cb_profile_rows() {
  local dir=$1 cb=$2 launch=() picks rc=0
  shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do launch+=("$1"); shift; done
  shift
  local family=$1 rank_var=OMPI_COMM_WORLD_RANK
  local f found=0
  for f in "${prof_families[@]}"; do [ "$f" != "$family" ] || found=1; done
  [ "$found" = 1 ] || return 0
  [ "${launch[0]}" != srun ] || rank_var=SLURM_PROCID
  # "ALGO SIZE" per line: timed rows of the algorithm, at SIZE (given) or at its largest size
  picks=$(python3 - "$dir/results.csv" "$prof_algo" "$prof_size" <<'PY'
import csv, sys
path, algo, size = sys.argv[1], sys.argv[2], sys.argv[3]
key = {"moe": "tokens", "ringattn": "seq"}
try:
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        rows = [r for r in csv.DictReader(f) if r.get("time_us_mean") and (not algo or r.get("algo") == algo)]
except (OSError, csv.Error):
    rows = []
def point(r):
    try:
        return int(float(r.get(key.get(r.get("family"), "bytes")) or r.get("bytes") or "0"))
    except ValueError:
        return 0
largest = {}
for r in rows:
    largest[r["algo"]] = max(largest.get(r["algo"], 0), point(r))
for a in sorted(largest):
    print(a, int(size) if size else largest[a])
PY
)
  if [ -z "$picks" ]; then
    echo "collbench-run: --profile: no timed row of ${prof_algo:-any algorithm} in $dir/results.csv: nothing profiled" >&2
    return 0
  fi
  local algo size out step
  while read -r algo size; do
    [ "$interrupted" = 0 ] || break
    cb_profile_args "$size" "$@"
    prof_args+=(--algo "$algo")
    out="$dir/profile-$algo-$size"
    echo "collbench-run: profiling $family $algo at $size under ncu -> $out.rank*.ncu-rep"
    cb_child_run --log profile.log "${launch[@]}" ncu --clock-control none --nvtx --section SpeedOfLight --section LaunchStats \
      --section Occupancy --section MemoryWorkloadAnalysis -f -o "$out.rank%q{$rank_var}" \
      "$cb" "${prof_args[@]}" --csv "$out.csv" --json "$out.json"
    step=$?
    cb_newfile --cut "$out.log" < "$tmpdir/profile.log"
    if [ "$interrupted" != 0 ]; then
      rc=$((128 + interrupted))
    elif [ "$step" != 0 ]; then
      echo "collbench-run: the profiled run of $algo failed (see $out.log)" >&2
      rc=3
    fi
    local rep
    for rep in "$out".rank*.ncu-rep; do
      [ -e "$rep" ] && [ "$interrupted" = 0 ] || continue
      if cb_child_run --log profile.txt ncu --import "$rep" --print-summary per-kernel; then
        cb_newfile --cut "${rep%.ncu-rep}.txt" < "$tmpdir/profile.txt"
      else
        echo "collbench-run: ncu could not summarize $rep" >&2
      fi
    done
  done <<< "$picks"
  return "$rc"
}
