#!/usr/bin/env python3
"""The verdict against the hardware (plots/limits.py through plots/verdict.py) on fixture runs:
a committed 2 x H200 NVLink all-reduce run (twoshot_ce 8 GiB = 79 % of 478 GB/s), the same rows
as a PCIe-only run (limits.json: Gen5 x16), as a 2-node run with a 50 GB/s NIC, as a 2-node run
whose NIC rate could not be read ("limit unknown"), and a committed one-GPU run; a figure that
is not a number is exit 2. Also launcher/limits.sh's limits.json parses. The cross-check with
the copy-engine rows: test_ce_check.py.

usage: test_limits.py REPO"""
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixtures import Check  # noqa: E402

repo = sys.argv[1]
c = Check(repo)
nv_run, work = c.nv_run, c.work
one_run = os.path.join(repo, "results/reference/h200x1/allreduce")
verdict, fixture, expect, problems = c.verdict, c.fixture, c.expect, c.problems


out = verdict(nv_run)
expect(out, "### Against the hardware", "NVLink")
expect(out, "twoshot_ce float eager 8 GiB: 379 GB/s = 79 % of NVLink's 478 GB/s per direction", "NVLink")
expect(out, "oneshot_ll float eager 4 MiB: 103 GB/s = 21 % of NVLink's 478 GB/s per direction — **far below**", "NVLink")
out = verdict(fixture("pcie", {"nvlink_gbs": None, "pcie": {"gen": 5, "width": 16}, "nics": []}))
expect(out, "twoshot_ce float eager 8 GiB: 379 GB/s = 601 % of PCIe Gen5 x16's 63 GB/s per direction — **above the limit**", "PCIe")
out = verdict(fixture("nic", {"nvlink_gbs": 478, "pcie": None, "nics": [{"name": "mlx5_0:1", "gbs": 50.0},
                                                                       {"name": "mlx5_1:1", "gbs": 25.0}]}, nodes=2))
expect(out, "twoshot_ce float eager 8 GiB: 379 GB/s = 1516 % of the NIC's 25 GB/s (mlx5_1:1 line rate)", "NIC")
out = verdict(fixture("nic-unread", {"nvlink_gbs": 478, "nics": [{"name": "eth0", "gbs": None}]}, nodes=2))
expect(out, "No share of a limit: limit unknown: the rate of NIC eth0 could not be read.", "unread NIC")
c.refuse(out, "% of", "unread NIC: a share given anyway")
out = verdict(fixture("none", {"nvlink_gbs": None, "pcie": None, "nics": []}))
expect(out, "limit unknown: neither NVLink nor PCIe figures were recorded", "no figures")
out = verdict(one_run)
expect(out, "one rank: busbw is 0 by definition", "one GPU")
# collbench's own record (results.json meta.limits, NVML) with NVLink unknown: limits.json's
# figure fills it in, field by field
d = fixture("meta-null", {"nvlink_gbs": 478, "pcie": None, "nics": []},
            meta={"limits": {"nvlink_gbs": None, "pcie": {"gen": 5, "width": 16}, "nics": []},
                  "limits_note": "rank 0: NVML not available"})
out = verdict(d)
expect(out, "twoshot_ce float eager 8 GiB: 379 GB/s = 79 % of NVLink's 478 GB/s per direction", "meta null + limits.json")
# a figure that is not a number (text, a list) is bad input: exit 2 with one line, never a traceback
for name, lim in (("text", {"nvlink_gbs": "478", "nics": []}), ("list", {"nvlink_gbs": 478, "pcie": {"gen": [5]}})):
    p = subprocess.run([sys.executable, os.path.join(repo, "plots/verdict.py"), nv_run, fixture("bad-" + name, lim)],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 2 or "a limits figure is not a number >= 0 or null" not in p.stderr or "Traceback" in p.stderr:
        problems.append(f"bad figure ({name}): exit {p.returncode}, stderr {p.stderr!r}")
# the collection script's output is what the reader takes
d = os.path.join(work, "collect")
os.makedirs(d)
with open(os.path.join(d, "link_gbs"), "w") as f:
    f.write("478\n")
subprocess.run(["bash", "-c", f'. "{repo}/launcher/limits.sh" && cb_limits_write "{d}" 2'], check=True, timeout=60)
lim = json.load(open(os.path.join(d, "limits.json")))
if lim.get("nvlink_gbs") != 478 or not isinstance(lim.get("nics"), list):
    problems.append(f"limits.sh wrote {lim}")
c.finish("PASS limits (NVLink, PCIe, NIC, unreadable NIC, no figures, one GPU, meta + limits.json, bad figures, "
         "limits.sh)")
