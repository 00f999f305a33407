#!/usr/bin/env bash
# Branch next-combine-tail (issue 14: MoE combine at <= 32 SMs) against main on 2 x H200:
#   ca = main + ct-a.patch: the combine reduce's last W/P tokens in single row parts;
#   cb = main + ct-b.patch: the same and combine chunks of at most 16 rows (was 32).
# Both built beside main (build_patched), then 3 alternating rounds: DeepSeek-V3, 4096 tokens
# per rank at 32 and 132 SMs (peer and copy_ce, bf16 and fp8 dispatch, graph, -n 20); last the
# MoE GPU tests of the last tree (cb, which contains ca's change).
# TREES="TAG:PATCH ..." measures other patches the same way (e.g. TREES="cc:cc.patch"); with more
# than two trees raise STOP (no round starts past it, default 230 s) and TESTS_BY (the last tree's
# MoE tests run only if the rounds ended before it, default 245 s; both at most 560, the device
# ends a command at 600 s): each build takes about 65 s.
cd "$(dirname "$0")/../.." || exit 1
. results/scripts/device-common.sh
TREES=${TREES:-"ca:results/20261130-h200x2-combine-tail/ct-a.patch cb:results/20261130-h200x2-combine-tail/ct-b.patch"}
for tp in $TREES; do # TAG:PATCH, TAG a short word (it names /tmp/TAG and the result files)
  tag=${tp%%:*}
  if [ "$tag" = "$tp" ] || ! [[ "$tag" =~ ^[A-Za-z][A-Za-z0-9_]{0,15}$ ]] || [ "$tag" = main ]; then
    printf '%s: TREES entry %.200s: want TAG:PATCH, TAG a letter and up to 15 letters, digits or _, not main\n' "$0" "$tp" >&2
    exit 2
  fi
  need_patch "${tp#*:}"
done
[ -n "${TREES// /}" ] || { echo "$0: TREES is empty: want TAG:PATCH ..." >&2; exit 2; }
for v in STOP TESTS_BY; do # the device ends a command at 600 s: past ~560 nothing would be packed
  [[ "${!v:-1}" =~ ^[1-9][0-9]{0,2}$ && "${!v:-1}" -le 560 ]] || { printf '%s: %s=%.40s: want whole seconds, 1-560\n' "$0" "$v" "${!v}" >&2; exit 2; }
done
begin
dirs=()
for tp in $TREES; do
  tag=${tp%%:*}
  build_patched "/tmp/$tag" "${tp#*:}" "build-$tag"
  dirs+=("$tag:/tmp/$tag")
done
one_round() { # one_round TREE COLLBENCH REP
  local tree=$1 cb=$2 rep=$3 sms
  for sms in 32 132; do
    moe_step "t4096-$tree-sms$sms-$rep" 40 "$cb" --tokens 4096 --algo peer,copy_ce -d bfloat16,fp8e4m3 --mode graph -n 20 -w 5 --sms $sms -T 30
  done
}
ab_rounds 3 "${STOP:-230}" one_round "${dirs[@]}"
late=$(( $(date +%s) - T0 ))
if [ "$late" -lt "${TESTS_BY:-245}" ]; then
  step "${tag}_moe_tests" 110 ctest --test-dir "/tmp/$tag/build" -L gpu -R "gpu_moe_|gpu_sm8_moe|gpu_vnodes_2x1_moe" --output-on-failure --timeout 60
  mkdir -p "$OUT/logs/$tag-gpu"; cp "/tmp/$tag"/build/tests/gpu/*.log "$OUT/logs/$tag-gpu/" 2>/dev/null
else
  echo "${tag}_moe_tests skipped: past ${TESTS_BY:-245} s" >> "$OUT/logs/steps.txt"
fi
pack
