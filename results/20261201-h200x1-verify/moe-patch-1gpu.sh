#!/usr/bin/env bash
# A MoE candidate patch on ONE GPU: its MoE GPU tests (RE) with one rank and then with 2 ranks
# sharing the GPU under MPS (their pushes then cross processes through CUDA IPC). Correctness
# only. PATCH: default the dispatch-list candidate (results/20261201-h200x2-dispatch-ab: with one
# rank its one-kernel dispatch runs, every block signalling and waiting for its own grid; on a
# shared GPU it falls back to two kernels).
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
PATCH=${PATCH:-results/20261201-h200x2-dispatch-ab/dispatch-list.patch}
RE=${RE:-'gpu_moe|gpu_sm8_moe|gpu_sms'}
need_patch "$PATCH"
[ -n "${RE// /}" ] || { echo "$0: RE is empty: want a ctest regex of MoE tests" >&2; exit 2; }
[ "$NGPU" -ge 1 ] || { echo "$0: needs a GPU, this machine has none" >&2; exit 2; }
build_patched /tmp/cb-patched "$PATCH" build-patched
run_tests() { # NAME: the patched tree's MoE tests as step NAME, their logs in logs/NAME/
  step "$1" 200 ctest --test-dir /tmp/cb-patched/build -L gpu -R "$RE" --output-on-failure --timeout 120
  mkdir -p "$OUT/logs/$1"; cp /tmp/cb-patched/build/tests/gpu/*.log "$OUT/logs/$1/" 2>/dev/null
  rm -f /tmp/cb-patched/build/tests/gpu/*.log
}
run_tests one-rank
export CB_SHARE_GPUS=1
mps_start
run_tests shared
mps_stop
pack
