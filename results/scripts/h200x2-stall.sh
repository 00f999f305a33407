#!/usr/bin/env bash
# Issue 11's stall reproduction on 2 GPUs, for the record: `collbench allreduce -b 1M -e 1G
# -n 400 -T 10` with rank 1 stopped by kill -STOP once the first row is written, for a custom
# algorithm (twoshot) and for NCCL; then the CB_FAULT cases of the GPU suite (a custom kernel's
# flag wait, an NCCL call, the IPC exchange). Each run must end by itself within T + 5 s of the
# fault with exit 4, a message naming the step and rank 1, no crash, finished rows kept
# (tests/gpu/run_fault_case.sh asserts all of it and prints PASS/FAIL). Logs, CSVs and the
# .partial.jsonl streams come back in logs.tgz; commit them under results/<date>-h200x2-stall/.
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
build || { pack; exit 1; }
mkdir -p "$OUT/results"
export OUT_DIR=$OUT/results
F=tests/gpu/run_fault_case.sh
CB=build/launcher/collbench
RANK1="did not arrive: rank 1|silent: rank 1|for peer rank 1"
step stop_twoshot 120 $F stop_twoshot $CB 10 sigstop "timeout:.*($RANK1)" -- allreduce --algo twoshot -b 1M -e 1G -n 400
step stop_nccl 120 $F stop_nccl $CB 10 sigstop "timeout:.*($RANK1)" -- allreduce --algo nccl -b 1M -e 1G -n 400
step stop_nccl_auto 120 $F stop_nccl_auto $CB 10 sigstop "timeout:.*($RANK1)" -- allreduce --algo nccl,auto -b 1M -e 1G -n 400
step fault_kernel 120 $F fault_kernel $CB 10 fault:stall:1:kernel:6 "custom kernel on this rank waited.*for peer rank 1" -- allreduce --algo nccl,oneshot -b 64K -e 4M -f 4 -n 40
step fault_nccl 120 $F fault_nccl $CB 10 fault:stall:1:nccl:6 "timeout:.*nccl.*timed round" -- allreduce --algo nccl -b 64K -e 4M -f 4 -n 40
step fault_ipc 120 $F fault_ipc $CB 10 fault:stall:1:ipc:2 "IPC exchange did not finish.*did not arrive: rank 1" -- allreduce --algo twoshot -b 64K -e 4M -f 4 -n 40
grep -h "PASS\|FAIL" "$OUT"/logs/stop_*.log "$OUT"/logs/fault_*.log | tee "$OUT/logs/verdicts.txt"
pack
