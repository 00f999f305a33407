#!/usr/bin/env python3
"""The verdict's cross-check of the one-node figure with the copy-engine peer copy
(plots/ce_rate.py through plots/limits.py and plots/verdict.py), on the committed 2 x H200 runs
and fixtures made from them. The rates the verdict must print are derived here again from the
CSVs with the documented formulas: moe copy_ce bytes / time_us_mean; ringattn ring (P-1) x
2 B (S/P) KV D x 2 bytes / comm_us; twoshot_ce its busbw; each the fastest row at the largest size.
Cases: each committed source (allreduce twoshot_ce, moe copy_ce, ringattn ring without a
recorded figure), NVML's figure (links x rate) agreeing, within a few % and below the measured
rate, PCIe below it, no figure at all, the reference's rows standing in (also above this run's
figure), a refused reference not used, and runs that must not claim a link: one GPU, ranks
sharing a GPU (all-reduce and MoE), two nodes, ring rows of the backward pass.

usage: test_ce_check.py REPO"""
import csv
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixtures import Check  # noqa: E402

CE = "copy-engine peer copy measured"
repo = sys.argv[1]
c = Check(repo)
ref_root = os.path.join(repo, "results/reference/h200x2")
moe_run, ring_run = os.path.join(ref_root, "moe-deepseek-v3"), os.path.join(ref_root, "ringattn")


def rows(run):
    with open(os.path.join(run, "results.csv"), newline="") as f:
        return [r for r in csv.DictReader(f) if r["time_us_mean"] and r["wrong"] in ("", "0")]


def fastest_at_largest(pairs):
    """pairs: (size, GB/s); the fastest at the largest size."""
    top = max(x for x, _ in pairs)
    return max(g for x, g in pairs if x == top)


moe_gbs = fastest_at_largest([(int(r["tokens"]), int(r["bytes"]) / float(r["time_us_mean"]) / 1e3)
                              for r in rows(moe_run) if r["algo"] == "copy_ce" and r["phase"] != "layout"])
ring_gbs = fastest_at_largest([(int(r["seq"]), (2 - 1) * 2 * int(r["batch"]) * (int(r["seq"]) // 2) * int(r["kv_heads"])
                                * int(r["head_dim"]) * 2 / float(r["comm_us"]) / 1e3)
                               for r in rows(ring_run) if r["algo"] == "ring"])
ar_gbs = fastest_at_largest([(int(r["bytes"]), float(r["busbw_gbs"]))
                             for r in rows(c.nv_run) if r["algo"] == "twoshot_ce"])
if not (250 < moe_gbs < 478 and 250 < ring_gbs < 478 and 350 < ar_gbs < 478):
    c.problems.append(f"the committed runs changed: copy_ce {moe_gbs:.1f}, ring {ring_gbs:.1f}, "
                      f"twoshot_ce {ar_gbs:.1f}")

# the committed runs: link_gbs (nvidia-smi) beside each source's rate
out = c.verdict(c.nv_run)
c.expect(out, f"Limit: NVLink 478 GB/s per direction (nvidia-smi nvlink -s: link_gbs); {CE} {ar_gbs:.0f} GB/s per "
              f"direction = {100 * ar_gbs / 478:.0f} % of it (twoshot_ce float graph 8 GiB: reduce-scatter on the copy "
              "engines, all-gather by SM stores).", "allreduce reference")
out = c.verdict(moe_run)
c.expect(out, f"{CE} {moe_gbs:.0f} GB/s per direction = {100 * moe_gbs / 478:.0f} % of it (copy_ce fp8e4m3 eager "
              "8192 tokens combine).", "moe reference")
c.expect(out, "No shares: MoE and ring attention rows count their own bytes", "moe reference")
out = c.verdict(ring_run)  # neither meta.limits nor link_gbs: the rate is information, never the limit
c.expect(out, "No share of a limit: limit unknown: neither NVLink nor PCIe figures were recorded. "
              f"Copy-engine peer copy measured {ring_gbs:.0f} GB/s per direction (ring bfloat16 eager S = 128K "
              "non-causal, K/V copies alone): information only (a lower bound on the link), not taken as its limit.",
         "ringattn reference")
c.refuse(out, "% of", "ringattn reference: a share of an unknown limit")


# NVML's figure (collbench's meta.limits): agreeing, within a few %, and below the measured rate
def nvml(gbs, links):
    return {"ranks": 2, "nodes": 1, "limits": {"nvlink_gbs": gbs, "nvlink_links": links, "pcie": None, "nics": []}}


out = c.verdict(c.fixture("nvml", None, meta=nvml(478.116, 18)))
c.expect(out, f"Limit: NVLink 478 GB/s per direction (NVML: 18 links × 26.6 GB/s); {CE} {ar_gbs:.0f} GB/s per "
              f"direction = {100 * ar_gbs / 478.116:.0f} % of it", "NVML")
c.refuse(out, "wrong or low", "NVML agreeing")
out = c.verdict(c.fixture("nvml-close", None, meta=nvml(370.0, 14)))
c.expect(out, f"= {100 * ar_gbs / 370:.0f} % of it", "NVML within a few %")
c.refuse(out, "wrong or low", "NVML within a few %")
out = c.verdict(c.fixture("nvml-low", None, meta=nvml(300.0, 12)))
c.expect(out, f"{CE} {ar_gbs:.0f} GB/s per direction = {100 * ar_gbs / 300:.0f} % of it", "NVML low")
c.expect(out, "**NVML's figure is wrong or low**: a copy cannot outrun its link. The shares below still use 300 GB/s: "
              "read them as too high.", "NVML low")
out = c.verdict(c.fixture("pcie", {"nvlink_gbs": None, "pcie": {"gen": 5, "width": 16}, "nics": []}))
c.expect(out, f"Limit: PCIe Gen5 x16 63 GB/s per direction (the link as it ran at start); {CE} {ar_gbs:.0f} GB/s",
         "PCIe")
c.expect(out, "**the PCIe figure is not what bounds this run (an NVLink the record missed?)**", "PCIe")
out = c.verdict(c.fixture("unknown", None, meta={"ranks": 2, "nodes": 1, "limits": {"nvlink_gbs": None, "pcie": None,
                                                                                   "nics": []},
                                                "limits_note": "rank 0: NVML not available"}))
c.expect(out, "No share of a limit: limit unknown: neither NVLink nor PCIe figures were recorded. "
              f"Copy-engine peer copy measured {ar_gbs:.0f} GB/s per direction (twoshot_ce", "NVML unknown")
c.refuse(out, "% of", "NVML unknown: a share")

# no copy-engine rows of its own: the reference's stand in, named, and never called this run's proof
nccl_only = {"keep": lambda r: r["algo"] == "nccl"}
out = c.verdict(c.fixture("nccl-only", {"nvlink_gbs": 478, "pcie": None, "nics": []}, **nccl_only))
c.expect(out, f"{CE} in the reference `{os.path.normpath(c.nv_run)}` {ar_gbs:.0f} GB/s per direction = "
              f"{100 * ar_gbs / 478:.0f} % of it", "reference's rows")
out = c.verdict(c.fixture("nccl-only-low", {"nvlink_gbs": 300, "pcie": None, "nics": []}, **nccl_only))
c.expect(out, "The reference's link carried more than this run's figure: this machine may have fewer active links "
              "(`nvidia-smi nvlink -s`), or nvidia-smi's figure is wrong or low.", "reference's rows, above")
c.refuse(out, "**nvidia-smi's figure", "reference's rows, above: claimed as this run's proof")
out = c.verdict(c.fixture("nccl-only-refused", {"nvlink_gbs": 478, "pcie": None, "nics": []}, **nccl_only), ref=moe_run)
c.expect(out, "not cross-checked: no copy-engine rows in this run or its reference", "refused reference")
c.refuse(out, CE, "refused reference")

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
out = c.verdict(c.fixture("ring-bwd", {"nvlink_gbs": 478, "pcie": None, "nics": []}, src=ring_run,
                          edit=lambda r: r.update({"pass": "bwd"})))
# its own backward rows measure no link (their comm_us carries fp32 dK/dV sums too), and a backward-only run
# has no reference (the verdict never judges backward rows against forward ones): no rate is claimed
c.expect(out, "**NO REFERENCE**", "ring backward rows: no forward reference stands in")
c.refuse(out, CE, "ring backward rows")
c.finish("PASS ce_check (twoshot_ce, copy_ce, ring; NVML agreeing, close, low; PCIe; unknown; the reference's rows; "
         "one GPU, shared GPU, two nodes, backward)")
