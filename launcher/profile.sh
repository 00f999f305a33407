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
# Exit 2 (before anything runs): a tool other than ncu, ncu not on PATH, a SIZE that is not a
# size, an ALGO no family of the run has; after a run whose rows do not match: exit 2.

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
    echo "collbench-run: --profile: '$spec' is not ncu[:ALGO[:SIZE]]" >&2; return 1
  fi
  if [ -n "$prof_size" ]; then
    local n=${prof_size%[KMGTkmgt]} m=1
    case "${prof_size: -1}" in K|k) m=1024 ;; M|m) m=$((1 << 20)) ;; G|g) m=$((1 << 30)) ;; T|t) m=$((1 << 40)) ;; esac
    [[ "$n" =~ ^[1-9][0-9]{0,12}$ ]] ||
      { echo "collbench-run: --profile: SIZE '$prof_size' is not a size (digits with K, M, G or T)" >&2; return 1; }
    prof_size=$((n * m))
  fi
  command -v ncu > /dev/null ||
    { echo "collbench-run: --profile ncu: Nsight Compute's ncu is not on PATH (it ships with the CUDA toolkit: /usr/local/cuda/bin, or install nsight-compute)" >&2; return 1; }
}

# cb_profile_check_algo COLLBENCH [FAMILY ...]: ALGO must be an algorithm of the run's family
# (or of one of the default suite's families).
cb_profile_check_algo() {
  [ -n "$prof_algo" ] || return 0
  local cb=$1 f
  shift
  local families=("$@")
  [ $# -gt 0 ] && families=("$1") || families=(allreduce alltoall moe ringattn)
  for f in "${families[@]}"; do
    "$cb" "$f" --algo help 2> /dev/null | grep -qE "^ *$prof_algo( |$)" && return 0
  done
  echo "collbench-run: --profile: no algorithm '$prof_algo' in ${families[*]} (collbench FAMILY --algo help lists them)" >&2
  return 1
}

# cb_profile_rows DIR COLLBENCH LAUNCH... -- FAMILY ARGS...: profiles the chosen rows of
# DIR/results.csv (LAUNCH: the run's mpirun or srun prefix and any wrapper before collbench).
cb_profile_rows() {
  local dir=$1 cb=$2 launch=() picks rc=0
  shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do launch+=("$1"); shift; done
  shift
  local family=$1 rank_var=OMPI_COMM_WORLD_RANK
  [ "${launch[0]}" != srun ] || rank_var=SLURM_PROCID
  # "ALGO SIZE" per line: timed rows of the algorithm at the chosen (default: largest) size
  picks=$(python3 - "$dir/results.csv" "$prof_algo" "$prof_size" <<'PY'
import csv, sys
path, algo, size = sys.argv[1], sys.argv[2], sys.argv[3]
key = {"moe": "tokens", "ringattn": "seq"}
rows = [r for r in csv.DictReader(open(path)) if r.get("time_us_mean") and (not algo or r["algo"] == algo)]
def point(r):
    v = r.get(key.get(r["family"], "bytes")) or r.get("bytes") or "0"
    return int(float(v))
largest = {}
for r in rows:
    largest[r["algo"]] = max(largest.get(r["algo"], 0), point(r))
for a in sorted(largest):
    want = int(size) if size else largest[a]
    if any(r["algo"] == a and point(r) == want for r in rows):
        print(a, want)
PY
)
  if [ -z "$picks" ]; then
    echo "collbench-run: --profile: no timed row of ${prof_algo:-any algorithm}${prof_size:+ at $prof_size} in $dir/results.csv; nothing profiled (exit 2)" >&2
    return 2
  fi
  local algo size out sizeopt
  while read -r algo size; do
    case "$family" in
      moe) sizeopt=(--tokens "$size") ;;
      ringattn) sizeopt=(--seq "$size") ;;
      *) sizeopt=(-b "$size" -e "$size") ;;
    esac
    out="$dir/profile-$algo-$size"
    echo "collbench-run: profiling $family $algo at $size under ncu -> $out.rank*.ncu-rep"
    if ! "${launch[@]}" ncu --clock-control none --nvtx --section SpeedOfLight --section LaunchStats \
        --section Occupancy --section MemoryWorkloadAnalysis -f -o "$out.rank%q{$rank_var}" \
        "$cb" "$@" --algo "$algo" "${sizeopt[@]}" -n 2 -w 1 --csv "$out.csv" --json "$out.json" \
        > "$out.log" 2>&1 < /dev/null; then
      echo "collbench-run: the profiled run of $algo failed (see $out.log)" >&2
      rc=3
    fi
    local rep
    for rep in "$out".rank*.ncu-rep; do
      [ -e "$rep" ] || continue
      ncu --import "$rep" --print-summary per-kernel > "${rep%.ncu-rep}.txt" 2>&1 ||
        echo "collbench-run: ncu could not summarize $rep" >&2
    done
  done <<< "$picks"
  return "$rc"
}
