#!/usr/bin/env python3
"""collbench-topo --cpu-masks on the committed topologies: one mask per rank, each exactly the
OS CPUs (the "pus" of --json) planned for that rank's GPU, bit i = CPU i; --ranks N gives the
first N; bad combinations exit 2.

usage: check_cpu_masks.py COLLBENCH_TOPO TOPOLOGIES_DIR"""
import json
import subprocess
import sys

tool, topo = sys.argv[1], sys.argv[2]
problems = []


def run(*args):
    p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout.strip(), p.stderr


for xml, ranks in [("h200x2-vm.xml", None), ("mpibind-coral-lassen.xml", None), ("mpibind-coral-lassen.xml", "2"),
                   ("hwloc-test-2socket-pci-k40m.xml", None), ("mpibind-aws-g4dn-metal.xml", "3")]:
    extra = ["--ranks", ranks] if ranks else []
    rc, plan, err = run("--xml", f"{topo}/{xml}", "--json", *extra)
    rc2, masks, err2 = run("--xml", f"{topo}/{xml}", "--cpu-masks", *extra)
    if rc or rc2:
        problems.append(f"{xml}: exit {rc}/{rc2}: {err}{err2}")
        continue
    want = ",".join(hex(sum(1 << p for p in r["pus"])) for r in json.loads(plan))
    if masks != want:
        problems.append(f"{xml} {extra}: masks {masks!r}, expected {want!r}")
    if len(masks.split(",")) != len(json.loads(plan)):
        problems.append(f"{xml}: {len(masks.split(','))} masks for {len(json.loads(plan))} ranks")
# a hand-checked case: 2 GPUs on 32 CPUs, 16 each
rc, masks, _ = run("--xml", f"{topo}/h200x2-vm.xml", "--cpu-masks")
if masks != "0xffff,0xffff0000":
    problems.append(f"h200x2-vm.xml: {masks!r}, expected '0xffff,0xffff0000'")
for args, msg in [(["--cpu-masks", "--json"], "--cpu-masks and --json cannot be combined"),
                  (["--cpu-masks", "--gpus"], "it cannot give CPU masks"),
                  (["--xml", f"{topo}/h200x2-vm.xml", "--cpu-masks", "--ranks", "3"], "--ranks 3 but the topology has 2")]:
    rc, out, err = run(*args)
    if rc != 2 or msg not in err:
        problems.append(f"{args}: exit {rc}, stderr {err!r}; expected exit 2 with {msg!r}")
for p in problems:
    print("FAIL:", p)
if problems:
    sys.exit(1)
print("PASS cpu masks")
