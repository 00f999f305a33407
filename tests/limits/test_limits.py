#!/usr/bin/env python3
"""The verdict against the hardware (plots/limits.py through plots/verdict.py) on fixture runs:
the committed 2 x H200 NVLink all-reduce run (twoshot_ce 8 GiB = 79 % of 478 GB/s; oneshot_ll
offered up to 4 MiB, so not "far below" there), the same rows as a PCIe-only run, as a 2-node run
with a 50 GB/s NIC, as a 2-node run whose NIC rate could not be read ("limit unknown"), as virtual
nodes on one host (no NIC bounds them), cut at 1 MiB (everything latency-bound at the run's
largest size: far below), and a committed one-GPU run; one record per run (results.json's
meta.limits, else the older files beside the CSV, never both merged); a figure that is not a
number is exit 2. The copy-engine cross-check: test_ce_check.py.

usage: test_limits.py REPO"""
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixtures import Check  # noqa: E402

repo = sys.argv[1]
c = Check(repo)
nv_run = c.nv_run
one_run = os.path.join(repo, "results/reference/h200x1/allreduce")
verdict, fixture, expect, problems = c.verdict, c.fixture, c.expect, c.problems
ROW = "| twoshot_ce | float | eager | 8 GiB | 379 |"

out = verdict(nv_run)
expect(out, "### Against the hardware", "NVLink")
expect(out, f"{ROW} 79 % |  |", "NVLink")
# an algorithm is judged only at the sizes it is offered: the run's own "not supported" rows say where
expect(out, "| oneshot_ll | float | eager | 4 MiB | 103 | 21 % | offered up to 4 MiB: not judged against the link |",
       "capped algorithm")
expect(out, "| oneshot | float | eager | 32 MiB | 253 | 53 % | offered up to 32 MiB: not judged against the link |",
       "capped algorithm")
c.refuse(out, "far below", "capped algorithms flagged far below")
out = verdict(fixture("pcie", {"nvlink_gbs": None, "pcie": {"gen": 5, "width": 16}, "nics": []}))
expect(out, f"{ROW} 601 % | **above the limit**: the recorded figure is not what bounds this run |", "PCIe")
out = verdict(fixture("nic", {"nvlink_gbs": 478, "pcie": None, "nics": [{"name": "mlx5_0:1", "gbs": 50.0},
                                                                       {"name": "mlx5_1:1", "gbs": 25.0}]}, nodes=2))
expect(out, "Limit: the NIC's 25 GB/s (mlx5_1:1 line rate).", "NIC")
expect(out, "| share of NIC |", "NIC")
expect(out, f"{ROW} 1516 % |", "NIC")
c.refuse(out, "NVLink", "NIC: a multi-node run judged against NVLink")
out = verdict(fixture("nic-unread", {"nvlink_gbs": 478, "nics": [{"name": "eth0", "gbs": None}]}, nodes=2))
expect(out, "No share of a limit: limit unknown: the rate of NIC eth0 could not be read.", "unread NIC")
c.refuse(out, "% of", "unread NIC: a share given anyway")
vmeta = {"ranks": 2, "nodes": 2, "virtual_cluster": True, "hosts": ["vm"],
         "limits": {"nvlink_gbs": 478, "nvlink_links": 18, "pcie": None, "nics": [{"name": "eth0", "gbs": 12.5}]}}
out = verdict(fixture("virtual", None, nodes=2, meta=vmeta))
expect(out, "No share of a limit: limit unknown: virtual nodes on one host, joined by NCCL's socket transport, which "
            "no NIC line rate bounds.", "virtual nodes")
c.refuse(out, "% of", "virtual nodes: a share")
out = verdict(fixture("none", {"nvlink_gbs": None, "pcie": None, "nics": []}))
expect(out, "limit unknown: neither NVLink nor PCIe figures were recorded", "no figures")
out = verdict(one_run)
expect(out, "one rank: busbw is 0 by definition", "one GPU")
# cut at 1 MiB: every algorithm at the run's largest size, latency-bound there: flagged, with the advice
out = verdict(fixture("small", {"nvlink_gbs": 478, "pcie": None, "nics": []},
                      keep=lambda r: int(r["bytes"]) <= 1 << 20))
expect(out, "| oneshot_ll | float | eager | 1 MiB |", "run cut at 1 MiB")
expect(out, "**far below** |", "run cut at 1 MiB")
expect(out, "(run larger -e)", "run cut at 1 MiB")
# one record per run: collbench's own (results.json meta.limits, NVML), even with NVLink unknown there;
# an older limits.json beside it is not merged in
d = fixture("meta-null", {"nvlink_gbs": 478, "pcie": None, "nics": []},
            meta={"limits": {"nvlink_gbs": None, "pcie": {"gen": 5, "width": 16}, "nics": []},
                  "limits_note": "rank 0: NVML not available"})
out = verdict(d)
expect(out, f"{ROW} 601 % |", "meta.limits is the record")
c.refuse(out, "share of NVLink", "meta.limits and limits.json merged")
# a figure that is not a number (text, a list) or a NIC name that is not text is bad input: exit 2, one line
for name, lim, want in (("text", {"nvlink_gbs": "478", "nics": []}, "a limits figure is not a number >= 0 or null"),
                        ("list", {"nvlink_gbs": 478, "pcie": {"gen": [5]}}, "a limits figure is not a number"),
                        ("nic", {"nvlink_gbs": 478, "nics": [{"name": 5, "gbs": 1}]}, "a NIC name is not a string")):
    p = subprocess.run([sys.executable, os.path.join(repo, "plots/verdict.py"), nv_run, fixture("bad-" + name, lim)],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 2 or want not in p.stderr or "Traceback" in p.stderr or len(p.stderr.splitlines()) != 1:
        problems.append(f"bad figure ({name}): exit {p.returncode}, stderr {p.stderr!r}")
c.finish("PASS limits (NVLink, capped algorithms, PCIe, NIC, unreadable NIC, virtual nodes, no figures, one GPU, "
         "a run cut short, one record per run, bad figures)")
