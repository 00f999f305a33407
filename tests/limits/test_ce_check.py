#!/usr/bin/env python3
"""The machine's copy-engine rate (plots/ce_rate.py through plots/limits.py and
plots/verdict.py) on the committed 2 x H200 runs and fixtures made from them. The rate the
verdict must print is derived here again from the CSVs with the documented formula: moe copy_ce
bytes / time_us_mean, the fastest row at the largest tokens, over every committed run of the
machine. Cases: one figure per machine (every committed 2 x H200 run's verdict quotes the same
line, whichever family measured it; a run's own faster copy_ce takes over), NVML's figure (links
x rate) agreeing, low (wrong), PCIe below it, no figure at all (information only), and runs that
must not claim a link: one GPU, ranks sharing a GPU (all-reduce and MoE), two nodes. MoE: remote
GB/s as a share of the same run's copy_ce, never busbw.

usage: test_ce_check.py REPO"""
import csv
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixtures import Check  # noqa: E402

CE = "copy engines"
repo = sys.argv[1]
c = Check(repo)
ref_root = os.path.join(repo, "results/reference/h200x2")
moe_run = os.path.join(ref_root, "moe-deepseek-v3")


def rows(run):
    with open(os.path.join(run, "results.csv"), newline="") as f:
        return [r for r in csv.DictReader(f) if r["time_us_mean"] and r["wrong"] in ("", "0")]


def copy_ce(run):
    """(GB/s, tokens) of run's fastest copy_ce row at its largest tokens, or None."""
    got = [(int(r["tokens"]), int(r["bytes"]) / float(r["time_us_mean"]) / 1e3) for r in rows(run)
           if r["algo"] == "copy_ce" and r["phase"] in ("dispatch", "combine", "roundtrip")]
    if not got:
        return None
    top = max(t for t, _ in got)
    return max(g for t, g in got if t == top)


machine = sorted(os.path.join(ref_root, d) for d in os.listdir(ref_root))
rates = {d: copy_ce(d) for d in machine}
best = max((g, d) for d, g in rates.items() if g)
if not 300 < best[0] < 478:
    c.problems.append(f"the committed runs changed: copy_ce {rates}")
where = os.path.relpath(best[1], repo)
line = f"{CE} {best[0]:.0f} GB/s per direction = {100 * best[0] / 478:.0f} % of it (copy_ce"

# one figure per machine: every committed 2 x H200 run (each family) quotes the same line
leads = {}
for d in machine:
    out = c.verdict(d)
    lead = [ln for ln in out.splitlines() if ln.startswith("Limit:")]
    leads[os.path.basename(d)] = lead[0] if lead else ""
    c.expect(out, line, f"{os.path.basename(d)}: the machine's figure")
    c.expect(out, f" in `{where}`).", f"{os.path.basename(d)}: where it was measured")
if len(set(leads.values())) != 1:
    c.problems.append("one machine, several copy-engine lines:\n" + "\n".join(f"{k}: {v}" for k, v in leads.items()))
# a run's own copy_ce faster than the references': the run's figure, unnamed (measured here)
fast = c.fixture("fast-ce", {"nvlink_gbs": 478, "pcie": None, "nics": []}, src=moe_run,
                 edit=lambda r: r["algo"] == "copy_ce" and r["time_us_mean"] and
                 r.update(time_us_mean=str(float(r["time_us_mean"]) / 1.25)))
out = c.verdict(fast)
own = copy_ce(moe_run) * 1.25
c.expect(out, f"{CE} {own:.0f} GB/s per direction = {100 * own / 478:.0f} % of it (copy_ce", "the run's own figure")
c.refuse(out, f"in `{where}`", "the run's own figure")


# NVML's figure (collbench's meta.limits): agreeing, and below the measured rate
def nvml(gbs, links):
    return {"ranks": 2, "nodes": 1, "limits": {"nvlink_gbs": gbs, "nvlink_links": links, "pcie": None, "nics": []}}


out = c.verdict(c.fixture("nvml", None, meta=nvml(478.116, 18)))
c.expect(out, f"Limit: NVLink 478 GB/s per direction (NVML: 18 links × 26.6 GB/s); {CE} {best[0]:.0f} GB/s per "
              f"direction = {100 * best[0] / 478.116:.0f} % of it", "NVML")
c.refuse(out, "wrong or low", "NVML agreeing")
out = c.verdict(c.fixture("nvml-low", None, meta=nvml(300.0, 12)))
c.expect(out, f"{CE} {best[0]:.0f} GB/s per direction = {100 * best[0] / 300:.0f} % of it", "NVML low")
c.expect(out, "**NVML's figure is wrong or low**: a copy cannot outrun its link. The shares below still use 300 GB/s: "
              "read them as too high.", "NVML low")
out = c.verdict(c.fixture("pcie", {"nvlink_gbs": None, "pcie": {"gen": 5, "width": 16}, "nics": []}))
c.expect(out, f"Limit: PCIe Gen5 x16 63 GB/s per direction (the link as it ran at start); {CE} {best[0]:.0f} GB/s",
         "PCIe")
c.expect(out, "**the PCIe figure is not what bounds this run (an NVLink the record missed?)**", "PCIe")
out = c.verdict(c.fixture("unknown", None, meta={"ranks": 2, "nodes": 1, "limits": {"nvlink_gbs": None, "pcie": None,
                                                                                   "nics": []},
                                                "limits_note": "rank 0: NVML not available"}))
c.expect(out, "No share of a limit: limit unknown: neither NVLink nor PCIe figures were recorded. "
              f"Copy engines {best[0]:.0f} GB/s per direction (copy_ce", "NVML unknown")
c.expect(out, "information only (a lower bound on the link), not taken as its limit.", "NVML unknown")
c.refuse(out, "% of", "NVML unknown: a share")

# MoE: the round trip's remote GB/s as a share of the same run's copy_ce at its most tokens; never busbw
out = c.verdict(c.fixture("moe-copy", None, src=moe_run))
rt = {(r["algo"], r["dtype"], r["mode"]): r for r in rows(moe_run) if r["phase"] == "roundtrip" and r["tokens"] == "8192"}
peer, yard = rt[("peer_ll", "bfloat16", "eager")], rt[("copy_ce", "bfloat16", "eager")]
share = float(peer["remote_gbs"]) / float(yard["remote_gbs"])
c.expect(out, f"| peer_ll | bfloat16 | eager | 8192 | {float(peer['remote_gbs']):.0f} | {100 * share:.0f} % | "
              "copy_ce (same run) |", "moe share of copy_ce")
c.expect(out, "round trip remote GB/s at the most tokens", "moe judged by remote GB/s")
if "busbw" in out:
    c.problems.append("moe: busbw in the verdict:\n" + out)

# runs that must not claim a link measurement
out = c.verdict(os.path.join(repo, "results/reference/h200x1/allreduce"))
c.refuse(out, CE, "one GPU")
out = c.verdict(c.fixture("moe-one-rank", {"nvlink_gbs": 478, "pcie": None, "nics": []}, src=moe_run,
                          edit=lambda r: r.update(ranks="1")))
c.refuse(out, CE, "one rank with copy_ce rows")
shared = {"ranks": 2, "nodes": 1, "env": {"CB_SHARE_GPUS": "1"}, "limits": nvml(478.116, 18)["limits"]}
out = c.verdict(c.fixture("shared", None, meta=shared))
c.expect(out, "No share of a limit and no link measured: ranks share a GPU (results.json records CB_SHARE_GPUS=1).",
         "shared GPU")
c.refuse(out, CE, "shared GPU")
c.refuse(out, "% of", "shared GPU: a share")
out = c.verdict(c.fixture("moe-shared", None, src=moe_run, meta=shared))
c.refuse(out, CE, "shared GPU, moe")
out = c.verdict(c.fixture("two-nodes", {"nvlink_gbs": 478, "nics": [{"name": "mlx5_0:1", "gbs": 50.0}]}, nodes=2))
c.refuse(out, CE, "two nodes")
c.finish("PASS ce_check (one figure per machine, the run's own; NVML agreeing, low; PCIe; unknown; MoE's share of "
         "copy_ce; one GPU, shared GPU, two nodes)")
