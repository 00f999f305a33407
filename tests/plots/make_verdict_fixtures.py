#!/usr/bin/env python3
"""Writes the verdict fixtures under tests/plots/data/verdict/ from a committed reference run
(results/20261129-h200x2-allreduce, real 2 x H200 numbers): a few rows of it as `reference`,
and three runs derived from those rows, each with its own results.json metadata and link_gbs:

  normal     every time within ±3 % of the reference (deterministic pattern): verdict OK
  slow       busbw x 0.6 and small-message latency x 1.6, ranks unbound, 9 NVLinks' worth of
             link_gbs, another NCCL version: verdict SLOW with those causes
  other-gpu  the reference's numbers labelled NVIDIA A100-SXM4-80GB: no verdict

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
SRC = os.path.join(HERE, "..", "..", "results", "20261129-h200x2-allreduce")
ALGOS = ("nccl", "auto")
SIZES = (8, 16, 1 << 20, 4 << 30, 8 << 30)


def rows_of_reference():
    with open(os.path.join(SRC, "results.csv"), newline="") as f:
        rd = csv.DictReader(f)
        cols = rd.fieldnames
        rows = [r for r in rd if r["algo"] in ALGOS and int(r["bytes"]) in SIZES and r["time_us_mean"]]
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


if __name__ == "__main__":
    main()
