#!/usr/bin/env python3
"""A/B table of alternating runs of two builds in one device call (e.g. main and a patched
tree, alternated by A/B scripts on a branch): CSV files named NAME-TREE[-MORE]-REP.csv, e.g.
t4096-main-sms32-2.csv and t4096-nq-sms32-2.csv. For every run name, dtype, mode, tokens, phase
and algorithm: each repetition's mean time for tree A and for tree B (repetitions in numeric
order), the change of the median, and the median remote GB/s.
Exits 1 if any row has wrong elements, 2 on bad input (no such folder, no run with both trees,
two rows of one file with the same key, a file that is not a readable UTF-8 collbench CSV, a
count or time that is not a number).

  tools/compare_ab.py DIR TREE_A TREE_B
"""
import collections
import csv
import glob
import math
import os
import statistics
import sys


def fail(msg):
    print(f"compare_ab.py: {msg}", file=sys.stderr)
    sys.exit(2)


def files(folder, trees):
    """(rep, name, tree, path) of the folder's CSV files of the given trees, reps in numeric order."""
    out = []
    for path in glob.glob(os.path.join(folder, "*.csv")):
        parts = os.path.basename(path)[:-4].split("-")
        if len(parts) < 3 or parts[1] not in trees or not parts[-1].isdigit():
            continue
        out.append((int(parts[-1]), "-".join([parts[0]] + parts[2:-1]), parts[1], path))
    return sorted(out)


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    folder, ta, tb = sys.argv[1:]
    if not os.path.isdir(folder):
        fail(f"{folder}: not a folder")
    runs = collections.defaultdict(list)
    wrong = 0
    for _, name, tree, path in files(folder, (ta, tb)):
        seen = set()
        try:
            with open(path, newline="", encoding="utf-8") as f:
                rows = list(csv.DictReader(f))
        except (OSError, UnicodeDecodeError, csv.Error) as e:
            fail(f"{path}: cannot read it as a collbench CSV ({e.__class__.__name__}: {str(e)[:200]})")
        for r in rows:
            try:
                wrong += int(r.get("wrong") or 0)
            except ValueError:
                fail(f"{path}: wrong = {str(r.get('wrong'))[:40]!r} is not a count")
            if not r.get("time_us_mean"):
                continue  # a skipped or failed point
            try:
                t, g = float(r["time_us_mean"]), float(r.get("remote_gbs") or 0)
                key = (name, r["dtype"], r.get("mode", ""), r.get("tokens", ""), r["phase"], r["algo"])
            except (KeyError, TypeError, ValueError) as e:
                fail(f"{path}: not a collbench MoE row ({e.__class__.__name__}: {str(e)[:80]})")
            if not (math.isfinite(t) and t >= 0 and math.isfinite(g)):
                fail(f"{path}: time {t} or GB/s {g} is not a finite measurement")
            if key in seen:
                fail(f"{path}: two rows for {' '.join(key[1:])}")
            seen.add(key)
            runs[key + (tree,)].append((t, g))
    pairs = sorted(k for k in {k[:-1] for k in runs} if k + (ta,) in runs and k + (tb,) in runs)
    if not pairs:
        fail(f"no run of {folder} has CSV files for both {ta} and {tb} (NAME-TREE[-MORE]-REP.csv)")
    print(f"| run | dtype | mode | tokens | phase | algo | {ta} us | {tb} us | median change | GB/s {ta} | GB/s {tb} |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for key in pairs:
        a, b = runs[key + (ta,)], runs[key + (tb,)]
        ma, mb = statistics.median(x[0] for x in a), statistics.median(x[0] for x in b)
        ga, gb = statistics.median(x[1] for x in a), statistics.median(x[1] for x in b)
        change = f"{100 * (mb / ma - 1):+.1f} %" if ma > 0 else "-"
        print("| " + " | ".join(key) + " | " + " ".join(f"{x[0]:.2f}" for x in a) + " | " +
              " ".join(f"{x[0]:.2f}" for x in b) + f" | {change} | {ga:.0f} | {gb:.0f} |")
    if wrong:
        print(f"\n{wrong} wrong elements in these files")
        sys.exit(1)


if __name__ == "__main__":
    main()
