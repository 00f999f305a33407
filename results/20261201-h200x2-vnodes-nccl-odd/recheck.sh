#!/usr/bin/env bash
# 2 x H200, after run.sh: (1) twoshot_ce's refusal on 2 x 2 now says "spans 2 nodes" again (it
# said "ranks share a GPU" because ranks of different virtual nodes share the 2 GPUs, and
# gpu_vnodes_2x2_allreduce failed on that wording); (2) whether the wrong NCCL rows of this
# session's first 2-GPU run (the 2 x 2 all-to-all test in the next-a2a-direct tree: all four NCCL
# forms, fp8, 1048577-byte blocks) come back: that tree's test and main's alternately, 3 times each,
# under MPS as the harness runs them.
#   bash results/20261201-h200x2-vnodes-nccl-odd/recheck.sh    (about 3 minutes; needs 2 GPUs)
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
PATCH=${PATCH:-results/20261201-h200x1-socket-messages/direct.patch}
need_patch "$PATCH"
[ "$NGPU" -ge 2 ] || { echo "$0: needs 2 GPUs, this machine has $NGPU" >&2; exit 2; }
begin
build_patched /tmp/ad "$PATCH" build-ad
mps_start
step main-2x2 120 ctest --test-dir build -L gpu -R "gpu_vnodes_2x2_(allreduce|alltoall)$" --output-on-failure --timeout 60
mkdir -p "$OUT/logs/main"; cp build/tests/gpu/gpu-vnodes_2x2_all*.log "$OUT/logs/main/" 2>/dev/null
for rep in 1 2 3; do
  [ $(( $(date +%s) - T0 )) -gt 240 ] && { echo "rep $rep skipped: past 240 s" >> "$OUT/logs/steps.txt"; break; }
  for t in ad main; do
    root=$PWD; [ "$t" = ad ] && root=/tmp/ad
    step "a2a-$t-$rep" 60 ctest --test-dir "$root/build" -L gpu -R "gpu_vnodes_2x2_alltoall$" --output-on-failure --timeout 50
    cp "$root/build/tests/gpu/gpu-vnodes_2x2_alltoall.log" "$OUT/logs/a2a-$t-$rep-test.log" 2>/dev/null
  done
done
mps_stop
pack
