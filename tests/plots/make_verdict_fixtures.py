#!/usr/bin/env python3
"""Writes the verdict fixtures under tests/plots/data/verdict/ from `reference` there: a few rows
(nccl and auto, 8 B, 16 B, 1 MiB, 4 GiB, 8 GiB) and the metadata of a real 2 x H200 all-reduce
run (git 6aa27aa, the one results/reference/h200x2/allreduce holds), kept here so the tests do
not depend on any results folder. From those rows it derives runs, each with its own
results.json metadata and link_gbs:

  normal     every time within ±3 % of the reference (deterministic pattern): verdict OK
  slow       busbw x 0.6 and small-message latency x 1.6, ranks unbound, 9 NVLinks' worth of
             link_gbs, another NCCL version: verdict SLOW with those causes
  other-gpu  the reference's numbers labelled NVIDIA A100-SXM4-80GB: refused (GPU model)
  ranks4     the reference's numbers as a 4-rank run (ranks 2 and 3 on two more GPUs): refused
             (rank count)
  shared-gpu the reference's numbers, both ranks on one GPU as CB_SHARE_GPUS=1 records it
             (gpu_shared, the environment, one PCI bus id): NOT COMPARABLE

Run it after changing the fixtures and commit its output; test_verdict.py checks the committed
files match it. usage: make_verdict_fixtures.py [OUTDIR]
"""
import copy
import csv
import io
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "data", "verdict", "reference")


def rows_of_reference():
    with open(os.path.join(SRC, "results.csv"), newline="") as f:
        rd = csv.DictReader(f)
        cols = rd.fieldnames
        rows = list(rd)
    with open(os.path.join(SRC, "results.json")) as f:
        meta = json.load(f)["meta"]
    return cols, rows, meta


def scaled(r, k_time):
    """Row r with its times multiplied by k_time (bandwidths divided by it)."""
    r = dict(r)
    for c in ("time_us_mean", "time_us_max", "time_us_p50", "time_us_p99"):
        r[c] = f"{float(r[c]) * k_time:.3f}"
    for c in ("algbw_gbs", "busbw_gbs"):
        r[c] = f"{float(r[c]) / k_time:.3f}"
    return r


def write(out, name, cols, rows, meta, link):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    with open(os.path.join(d, "results.csv"), "w") as f:
        f.write(buf.getvalue())
    with open(os.path.join(d, "results.json"), "w") as f:
        json.dump({"schema": "fixture: metadata only, rows in results.csv", "meta": meta}, f, indent=1)
        f.write("\n")
    with open(os.path.join(d, "link_gbs"), "w") as f:
        f.write(f"{link}\n")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "data", "verdict")
    cols, rows, meta = rows_of_reference()
    write(out, "reference", cols, rows, meta, 478)

    normal = [scaled(r, 1.0 + 0.03 * ((i % 3) - 1)) for i, r in enumerate(rows)]
    write(out, "normal", cols, normal, meta, 478)

    slow_meta = copy.deepcopy(meta)
    for ri in slow_meta["rank_info"]:
        ri["binding"] = "unbound (--no-bind)"
    slow_meta["nccl_version"] = "2.21.5"
    slow_meta["nccl_version_code"] = 22105
    slow = [scaled(r, 1.6 if int(r["bytes"]) < (1 << 20) else 1 / 0.6) for r in rows]
    write(out, "slow", cols, slow, slow_meta, 239)

    other_meta = copy.deepcopy(meta)
    for ri in other_meta["rank_info"]:
        ri["gpu"] = "NVIDIA A100-SXM4-80GB"
    other = [dict(r, gpu="NVIDIA A100-SXM4-80GB") for r in rows]
    write(out, "other-gpu", cols, other, other_meta, 300)

    four_meta = copy.deepcopy(meta)
    four_meta["ranks"] = 4
    for r in (2, 3):
        ri = dict(meta["rank_info"][r - 2], rank=r, local_rank=r, device=r, pid=meta["rank_info"][r - 2]["pid"] + 2)
        ri["pci_busid"] = f"0000:00:0{6 + r}.0"
        four_meta["rank_info"].append(ri)
    write(out, "ranks4", cols, [dict(r, ranks="4") for r in rows], four_meta, 478)

    shared_meta = copy.deepcopy(meta)
    shared_meta["gpu_shared"] = True
    shared_meta["env"]["CB_SHARE_GPUS"] = "1"
    for ri in shared_meta["rank_info"]:
        ri.update(device=0, pci_busid=meta["rank_info"][0]["pci_busid"])
    write(out, "shared-gpu", cols, rows, shared_meta, 478)


if __name__ == "__main__":
    main()
