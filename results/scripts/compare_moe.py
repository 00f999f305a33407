#!/usr/bin/env python3
"""Before/after table of collbench MoE CSVs: for every CSV name in both folders (e.g.
results/20261130-h200x2-moe-sms/final and a new run's results/), each peer / peer_ll / copy_ce
row's mean time before and after, the change, and its remote GB/s as a share of copy_ce's
(same file, dtype, mode, tokens and phase) before and after; `wrong` of the new row.

  results/scripts/compare_moe.py BEFORE_DIR AFTER_DIR [ALGO,...]
"""
import csv
import os
import sys


def load(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("family") == "moe" and r.get("time_us_mean")]
    by = {}
    for r in rows:
        by[(r["algo"], r["dtype"], r["mode"], r["tokens"], r["phase"])] = r
    return by


def share(by, key):
    r, ce = by.get(key), by.get(("copy_ce",) + key[1:])
    try:
        return 100.0 * float(r["remote_gbs"]) / float(ce["remote_gbs"])
    except (TypeError, ValueError, ZeroDivisionError, KeyError):
        return None


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    before, after = argv[1], argv[2]
    algos = set((argv[3] if len(argv) > 3 else "peer,peer_ll,copy_ce").split(","))
    names = sorted(set(n for n in os.listdir(before) if n.endswith(".csv")) & set(os.listdir(after)))
    if not names:
        sys.stderr.write("no CSV name in both folders\n")
        return 1
    pct = lambda v: "-" if v is None else "%.0f %%" % v
    for name in names:
        b, a = load(os.path.join(before, name)), load(os.path.join(after, name))
        print("## %s\n" % name)
        print("| algo | dtype | mode | tokens | phase | before us | after us | change | % of copy_ce before | after | wrong |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for key in sorted(set(a) & set(b), key=lambda k: (k[1], k[2], int(k[3]), k[4], k[0])):
            if key[0] not in algos:
                continue
            tb, ta = float(b[key]["time_us_mean"]), float(a[key]["time_us_mean"])
            ch = "%+.1f %%" % (100.0 * (ta - tb) / tb) if tb > 0 else "-"
            print("| %s | %s | %s | %s | %s | %.1f | %.1f | %s | %s | %s | %s |" % (
                key[0], key[1], key[2], key[3], key[4], tb, ta, ch, pct(share(b, key)), pct(share(a, key)),
                a[key].get("wrong", "")))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
