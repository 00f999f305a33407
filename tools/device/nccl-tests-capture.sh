#!/usr/bin/env bash
# Real NVIDIA nccl-tests output for the reader's fixtures (plots/nccl_tests.py, CPU test
# plot_nccl_tests_captured): each *_perf binary of build-nccl-tests/ runs once with
# `-b 8 -e 256M -f 4 -g $NG -J NAME.json`, its stdout kept as NAME.txt: text and JSON of one run,
# in results/nccl-tests/ of logs.tgz (the device tool returns at most 8 files: one archive).
# Copy results/nccl-tests/* to tests/plots/data/nccl-tests/captured/<gpu>x<NG>/ (README there).
#   tools/device/nccl-tests-capture.sh         one GPU: one rank, every busbw 0 by definition
#   NG=2 tools/device/nccl-tests-capture.sh    N GPUs driven by one process (-g N: N ranks, one
#                                              thread), on a machine with N or more GPUs; the
#                                              binaries are MPI=0, so no mpirun form
# CAPTURE_BIN names another binary folder; BUDGET (default 85 s) bounds the whole script, PER_S
# (default 25 s) each binary. Bad values, a missing binary or too few GPUs: exit 2, nothing run.
# The binaries are built on the development machine, not here, from nccl-tests' sources (github
# NVIDIA/nccl-tests 2.19.6), MPI off, the CUDA runtime linked in:
#   make -C src -j2 MPI=0 CUDA_HOME=/usr/local/cuda NCCL_HOME=/usr/local/cuda CUDARTLIB=cudart_static \
#     NVCC_GENCODE=-gencode=arch=compute_90,code=sm_90 BUILDDIR=/tmp/nt os.build /tmp/nt/all_reduce_perf ...
# then stripped into build-nccl-tests/ (ignored by git; name it in the run's carry). They need
# libnccl.so.2 (the system NCCL), libstdc++ and glibc 2.34; logs/ldd.txt shows what resolved.
# They run under `env -i`: -J writes the whole environment into the JSON, and the files get
# committed, so it holds only PATH, LD_LIBRARY_PATH, CUDA_VISIBLE_DEVICES, the caller's NCCL_*
# and NCCL_NVLS_ENABLE=0 always (NVLink multicast stays off on the shared GPUs). Each runs by its
# bare name from the output folder, so args[0] and -J read as a user's own run would.
BIN=${CAPTURE_BIN:-build-nccl-tests}
NG=${NG:-1}
BUDGET=${BUDGET:-85}
PER_S=${PER_S:-25}
NAMES=(all_reduce_perf all_gather_perf reduce_scatter_perf alltoall_perf sendrecv_perf)
for v in NG BUDGET PER_S; do
  [[ "${!v}" =~ ^[1-9][0-9]{0,3}$ ]] ||
    { printf '%s: %s: want a whole number 1-9999, got %.200q\n' "$0" "$v" "${!v}" >&2; exit 2; }
done
cd "$(dirname "$0")/../.." || exit 1
BIN=$(cd "$BIN" 2>/dev/null && pwd) ||
  { printf '%s: %.200s: no such folder (build the binaries first: see the header of this script)\n' "$0" \
      "${CAPTURE_BIN:-build-nccl-tests}" >&2; exit 2; }
for n in "${NAMES[@]}"; do
  if [ ! -f "$BIN/$n" ] || [ ! -x "$BIN/$n" ]; then
    printf '%s: %s/%s: not an executable file\n' "$0" "$BIN" "$n" >&2; exit 2
  fi
done
visible=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU') # every GPU of the machine; CUDA_VISIBLE_DEVICES may hide some
if [ -n "${CUDA_VISIBLE_DEVICES+x}" ]; then
  listed=$(printf '%s' "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
  [ "$listed" -lt "$visible" ] && visible=$listed
fi
[ "$visible" -ge "$NG" ] ||
  { printf '%s: NG=%s GPUs wanted, %s visible (nvidia-smi -L)\n' "$0" "$NG" "$visible" >&2; exit 2; }
. tools/device/common.sh
R=$OUT/results
D=$R/nccl-tests
mkdir -p "$D"
nvidia-smi -L | tee -a "$OUT/logs/steps.txt"
ldd "$BIN/all_reduce_perf" > "$OUT/logs/ldd.txt" 2>&1
if grep -q 'not found' "$OUT/logs/ldd.txt"; then
  echo "ldd: a library is missing" | tee -a "$OUT/logs/steps.txt"; cat "$OUT/logs/ldd.txt"
fi
ENV=(PATH="$BIN:/usr/bin:/bin" NCCL_NVLS_ENABLE=0)
for v in $(compgen -e); do
  case $v in NCCL_NVLS_ENABLE) ;; NCCL_*|CUDA_VISIBLE_DEVICES|LD_LIBRARY_PATH) ENV+=("$v=${!v}") ;; esac
done
failed=0
for n in "${NAMES[@]}"; do
  left=$(( BUDGET - ($(date +%s) - T0) ))
  limit=$(( left < PER_S ? left : PER_S ))
  if [ "$limit" -lt 5 ]; then
    echo "$n skipped: past the ${BUDGET}s budget" | tee -a "$OUT/logs/steps.txt"; failed=1; continue
  fi
  rm -f "$D/$n.json" "$D/$n.json".*  # -J never overwrites: it would write NAME.json.0
  t=$(date +%s)
  ( cd "$D" && timeout -k 5 "$limit" env -i "${ENV[@]}" "$n" -b 8 -e 256M -f 4 -g "$NG" -J "$n.json" \
      > "$n.txt" 2> "$OUT/logs/$n.stderr" )
  rc=$?
  echo "[$(( $(date +%s) - T0 ))s] $n -g $NG rc=$rc ($(( $(date +%s) - t ))s, limit ${limit}s)" |
    tee -a "$OUT/logs/steps.txt"
  [ "$rc" = 0 ] || failed=1
  # the reader on both files at once (the CPU test checks them in full once committed)
  for f in "$n.txt" "$n.json"; do
    if ! python3 plots/nccl_tests.py --out "$OUT/logs/import/${f/./-}" "$D/$f" >> "$OUT/logs/import.log" 2>&1; then
      echo "plots/nccl_tests.py $f failed (logs/import.log)" | tee -a "$OUT/logs/steps.txt"; failed=1
    fi
  done
done
pack
exit "$failed"
