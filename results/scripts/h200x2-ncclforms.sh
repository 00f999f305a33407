#!/usr/bin/env bash
# NCCL at its best against the custom kernels, on 2 x H200 (issue 14, first part).
#
#   results/scripts/h200x2-ncclforms.sh                       the sweep (default)
#   results/scripts/h200x2-ncclforms.sh tests kernels sweep   any of the three, in that order
#
# tests: the GPU tests of the NCCL forms only (ctest -R 'gpu_nccl_(symm|reg|forms)'; every
# dtype, odd sizes, in place, eager and graph, 0 wrong), about 2-4 minutes.
#
# sweep: all-reduce, all-gather, reduce-scatter and all-to-all with every NCCL form (nccl,
# nccl_symm, nccl_reg; nccl_p2p for all-to-all) and the custom algorithms in the same run,
# bfloat16, 8 B - 8 GiB (factor 2), out of place, eager and graph, through
# launcher/collbench-run. Each family runs twice, with iterations chosen per size range, and
# the two CSVs are joined into one results folder per family (the charts read columns by name):
#   8 B - 128 MiB   -n 100 -w 10  latency-bound: as many iterations as the reference all-reduce
#                                 run, for stable microsecond numbers; < 1 s of kernel time
#   256 MiB - 8 GiB -n 12  -w 3   bandwidth-bound: 4 rounds of 3 calls of 6-40 ms each
# Estimate (from the committed reference CSVs: ~25 ms per 8 GiB all-reduce, 13 ms per 8 GiB
# all-to-all, 15 ms per 8 GiB all-gather; symmetric kernels ~25 % slower there; every size
# range sums to about twice its largest size): ~20 s of collective kernels (warm-up, timed and
# checked calls), ~50 s of per-row setup (1,192 rows: allocation, registration, check data),
# ~60 s for 8 job starts (mpirun, NCCL init) and ~40 s of charts: about 3 minutes, 4 at most.
# DTYPES=float,bfloat16 doubles the kernel and row parts (about 4.5 minutes).
#
# kernels: NCCL does not report the kernel it chose through its API. NCCL_DEBUG=INFO with
# NCCL_DEBUG_SUBSYS=TUNING makes rank 0 print one line per collective it plans, e.g.
#   AllReduce: 1048576 Bytes -> Algo RING proto LL128 channel{Lo..Hi}={0..15}
#   AllReduce [Symmetric]: 65536 Bytes -> Kernel AllReduce_AGxLL_R nchannels 7 nthreads 512 nWorks 1
# This mode runs each form and family alone (one call per size, no check) with those variables
# (and REG, NCCL's registration messages) set for that diagnostic run only, and writes the
# lines to kernels.txt; the full logs are in logs.tgz. About 12 x 8 s (one job start each).
# All-to-all runs as point-to-point inside NCCL and may print no such line; its registration
# messages are then what kernels.txt shows for it.
#
# NVLink multicast must stay off: run with NCCL_NVLS_ENABLE=0 in the environment (the script
# refuses otherwise; it never sets it itself).
cd "$(dirname "$0")/../.." || exit 1
MODES=" ${*:-sweep} "
for m in $MODES; do
  case "$m" in sweep|kernels|tests) ;; *) echo "usage: $0 [tests] [kernels] [sweep]" >&2; exit 2 ;; esac
done
want() { [[ "$MODES" == *" $1 "* ]]; }
if [ "${NCCL_NVLS_ENABLE:-}" != 0 ]; then
  echo "$0: NCCL_NVLS_ENABLE is '${NCCL_NVLS_ENABLE:-unset}'; run with NCCL_NVLS_ENABLE=0 (NVLink multicast stays off)" >&2
  exit 2
fi
. results/scripts/device-common.sh
DTYPES=${DTYPES:-bfloat16}
build || { pack; exit 1; }
mkdir -p "$OUT/results"

# algos_of FAMILY RANGE. Every algorithm of a sweep point is set up at once, so the large
# all-reduce range keeps only twoshot and auto (= twoshot_ce there, its note says so) beside the
# three NCCL forms: 3 x 16 GiB + 2 x 24 GiB = 96 GiB at 8 GiB, of the H200's ~140 (all nine
# would need ~150; oneshot and oneshot_ll are not offered there anyway).
algos_of() {
  case "$1-$2" in
    allreduce-small) echo nccl,nccl_symm,nccl_reg,oneshot,oneshot_ll,twoshot,twoshot_pull,twoshot_ce,auto ;;
    allreduce-large) echo nccl,nccl_symm,nccl_reg,twoshot,auto ;;
    alltoall-*) echo nccl,nccl_p2p,nccl_symm,nccl_reg,peer ;;
    *) echo nccl,nccl_symm,nccl_reg ;;
  esac
}

# join DEST PART...: one results folder from collbench-run folders of the same family.
join_parts() {
  local dest=$1 first=$2
  shift
  [ -s "$first/results.csv" ] || { echo "join: no results.csv in '$first'" >&2; return 1; }
  mkdir -p "$dest"
  for f in link_gbs placement.txt rankfile; do cp "$first/$f" "$dest/" 2>/dev/null; done
  head -n 1 "$first/results.csv" > "$dest/results.csv"
  local i=0
  for p in "$@"; do
    i=$((i + 1))
    if [ ! -s "$p/results.csv" ]; then
      echo "join: no results.csv in '$p' (did the run start?)" >&2
      return 1
    fi
    if [ "$(head -n 1 "$p/results.csv")" != "$(head -n 1 "$first/results.csv")" ]; then
      echo "join: $p/results.csv has another header" >&2
      return 1
    fi
    tail -n +2 "$p/results.csv" >> "$dest/results.csv"
    cat "$p/command.txt" >> "$dest/command.txt"
    cat "$p/output.txt" >> "$dest/output.txt"
    cp "$p/results.json" "$dest/results-part$i.json"
  done
}

if want tests; then
  step ctest_nccl_forms 420 ctest --test-dir build -R 'gpu_nccl_(symm|reg|forms)' --output-on-failure --timeout 240
  mkdir -p "$OUT/logs/gpu"; cp build/tests/gpu/gpu-nccl_*.log "$OUT/logs/gpu/" 2>/dev/null
fi
if want kernels; then
  probe_sizes=64,4K,64K,1M,16M,256M
  for fam in allreduce allgather reducescatter alltoall; do
    for algo in nccl nccl_symm nccl_reg; do
      step "kernels-$fam-$algo" 60 env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING,REG \
        "${MPIRUN[@]}" -x NCCL_DEBUG -x NCCL_DEBUG_SUBSYS -x NCCL_NVLS_ENABLE build/launcher/collbench "$fam" \
        --algo "$algo" --sizes "$probe_sizes" -d "$DTYPES" --inplace 0 -n 1 -w 0 -c 0 -T 60
      {
        echo "== $fam $algo ($DTYPES; sizes $probe_sizes; the 4-byte AllReduce lines are collbench's sync, left out)"
        grep -E "Bytes -> (Algo|Kernel)" "$OUT/logs/kernels-$fam-$algo.log" | grep -v "AllReduce: 4 Bytes" |
          sed 's/^.*NCCL INFO //'
        # registration messages (NCCL_DEBUG_SUBSYS=REG), the first few: what NCCL did with the buffers
        grep -i "NCCL INFO.*regist" "$OUT/logs/kernels-$fam-$algo.log" | sed 's/^.*NCCL INFO /reg: /' | head -n 8
        grep -E "^ +[0-9]+ " "$OUT/logs/kernels-$fam-$algo.log" | awk '{print "row:", $0}' | head -n 20
      } >> "$OUT/logs/kernels.txt"
    done
  done
  cp "$OUT/logs/kernels.txt" "$OUT/kernels.txt"
fi
if want sweep; then
  for fam in allreduce allgather reducescatter alltoall; do
    parts=()
    for range in small large; do
      if [ $range = small ]; then sizes=(-b 8 -e 128M -f 2 -n 100 -w 10); else sizes=(-b 256M -e 8G -f 2 -n 12 -w 3); fi
      dir="$OUT/parts/$fam-$range"
      step "$fam-$range" 150 launcher/collbench-run --build build --no-plots --out "$dir" -- \
        "$fam" --algo "$(algos_of "$fam" $range)" "${sizes[@]}" -d "$DTYPES" --inplace 0 --mode both -T 60
      parts+=("$(ls -d "$dir"/*/ 2>/dev/null | head -n 1)")
    done
    dest="$OUT/results/h200x2-ncclforms-$fam"
    join_parts "$dest" "${parts[@]}" && step "$fam-plots" 60 plots/plot "$dest"
  done
  rm -rf "$OUT/parts"
fi
pack
