#!/usr/bin/env python3
"""A/B table of alternating runs of two builds in one device call (the run.sh of
results/*-next-*/ and results/20261130-h200x1-decode-1rank/): CSV files named
NAME-TREE[-MORE]-REP.csv, e.g. t4096-main-sms32-2.csv and t4096-nq-sms32-2.csv. For every run
name, dtype, phase and algorithm: each repetition's mean time for tree A and for tree B, the
change of the median, and the median remote GB/s; exits 1 if any row has wrong elements.

  results/scripts/compare_ab.py DIR TREE_A TREE_B
"""
import collections
import csv
import glob
import os
import statistics
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    folder, ta, tb = sys.argv[1:]
    if not os.path.isdir(folder):
        sys.exit(f"compare_ab.py: {folder}: not a folder")
    runs = collections.defaultdict(list)
    wrong = 0
    for path in sorted(glob.glob(os.path.join(folder, "*.csv"))):
        parts = os.path.basename(path)[:-4].split("-")
        if len(parts) < 3 or parts[1] not in (ta, tb) or not parts[-1].isdigit():
            continue
        name = "-".join([parts[0]] + parts[2:-1])
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                try:
                    t = float(r["time_us_mean"])
                except (KeyError, ValueError):
                    continue
                wrong += int(r.get("wrong") or 0)
                g = float(r.get("remote_gbs") or 0)
                runs[(name, r["dtype"], r["phase"], r["algo"], parts[1])].append((t, g))
    pairs = sorted(k for k in {k[:-1] for k in runs} if k + (ta,) in runs and k + (tb,) in runs)
    if not pairs:
        sys.exit(f"compare_ab.py: no run of {folder} has CSV files for both {ta} and {tb} (NAME-TREE[-MORE]-REP.csv)")
    print(f"| run | dtype | phase | algo | {ta} us | {tb} us | median change | GB/s {ta} | GB/s {tb} |")
    print("|---|---|---|---|---|---|---|---|---|")
    for key in pairs:
        a, b = runs[key + (ta,)], runs[key + (tb,)]
        ma, mb = statistics.median(x[0] for x in a), statistics.median(x[0] for x in b)
        ga, gb = statistics.median(x[1] for x in a), statistics.median(x[1] for x in b)
        print("| " + " | ".join(key) + " | " + " ".join(f"{x[0]:.2f}" for x in a) + " | " +
              " ".join(f"{x[0]:.2f}" for x in b) + f" | {100 * (mb / ma - 1):+.1f} % | {ga:.0f} | {gb:.0f} |")
    if wrong:
        print(f"\n{wrong} wrong elements in these files")
        sys.exit(1)


if __name__ == "__main__":
    main()
