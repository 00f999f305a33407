#!/bin/bash
# GPU test (label gpu): the live topology's GPUs, in collbench-topo's order, are exactly the
# GPUs nvidia-smi reports, with the same PCI bus ids (nvidia-smi writes a 32-bit domain:
# 00000000:00:06.0 is our 0000:00:06.0); and cb_placement_bind_self, given each bus id in
# nvidia-smi's spelling, binds a process to that GPU's planned cores. Exit 77 (skipped)
# without a working nvidia-smi.
# usage: topo_gpu_busids.sh COLLBENCH_TOPO TOPO_BINDSELF
set -u
tool=$1 bindself=$2
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU (nvidia-smi -L failed): skipped"; exit 77; }

norm() { # 00000000:1A:00.0 -> 0000:1a:00.0
  tr 'A-F' 'a-f' | sed -E 's/^ *0*([0-9a-f]{4}):/\1:/; s/ *$//'
}
smi=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | norm | sort)
json=$("$tool" --json) || { echo "collbench-topo --json failed"; exit 1; }
ours=$(printf '%s\n' "$json" | grep -o '"gpu_pci_busid": "[^"]*"' | sed -E 's/.*: "(.*)"/\1/')
echo "nvidia-smi:     " $smi
echo "collbench-topo: " $ours
"$tool" || exit 1
if [ "$smi" != "$(printf '%s\n' "$ours" | sort)" ]; then
  echo "FAIL: bus ids differ"; exit 1
fi
if [ "$ours" != "$(printf '%s\n' "$ours" | sort)" ]; then
  echo "FAIL: collbench-topo's GPUs are not in bus-id order"; exit 1
fi
for id in $(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader); do
  "$bindself" "$id" || { echo "FAIL: binding for GPU $id"; exit 1; }
done
echo "ok: $(printf '%s\n' "$ours" | wc -l) GPU(s) match"
