#!/usr/bin/env python3
"""A/B table of alternating runs of two builds in one device call (e.g. main and a patched
tree, alternated by A/B scripts on a branch): CSV files named NAME-TREE[-MORE]-REP.csv, e.g.
t4096-main-sms32-2.csv and t4096-nq-sms32-2.csv. For every run name, dtype, mode, tokens, phase
and algorithm: each repetition's mean time for tree A and for tree B (repetitions in numeric
order), the change of the median, and the median remote GB/s.
Exits 1 if any row has wrong elements, 2 on bad input (no such folder, no run with both trees,
two rows of one file with the same key, a file that is not a readable UTF-8 collbench CSV, a
row shorter or longer than the header, a count or time that is not a number). Files are read by
plots/infile.py (no symlink followed, a size cap, UTF-8), numbers in ASCII decimal (a file
named t3-main-x-².csv is no repetition: '²' is not a digit).

  tools/compare_ab.py DIR TREE_A TREE_B
"""
import collections
import csv
import glob
import io
import os
import re
import statistics
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plots"))
import infile  # noqa: E402  (the one reader: plots/infile.py)

CSV_MAX_BYTES = 64 << 20  # plots/cbcsv.py's cap on a results CSV
DIGITS = re.compile(r"[0-9]+")


def fail(msg):
    print(f"compare_ab.py: {msg}", file=sys.stderr)
    sys.exit(2)


def read_rows(path):
    """The rows of one CSV as {column: text}, every row exactly as long as the header."""
    try:
        text = infile.read_text(path, CSV_MAX_BYTES, bom=True)
        records = list(enumerate(csv.reader(io.StringIO(text, newline=""), strict=True), start=1))
    except infile.InputError as e:
        fail(f"cannot read it as a collbench CSV: {e}")
    except csv.Error as e:
        fail(f"{infile.shown(path)}: cannot read it as a collbench CSV (csv.Error: {infile.shown(str(e))[:200]})")
    if not records:
        fail(f"{infile.shown(path)}: cannot read it as a collbench CSV (an empty file)")
    header = records[0][1]
    rows = []
    for n, rec in records[1:]:
        if not rec:
            continue
        if len(rec) != len(header):
            fail(f"{infile.shown(path)}:{n}: {len(rec)} fields, the header has {len(header)}")
        rows.append(dict(zip(header, rec)))
    return rows


def measurement(path, what, s):
    v = infile.decimal(s.strip())
    if v is None or v < 0:
        fail(f"{infile.shown(path)}: {what} {infile.excerpt(s)} is not a finite measurement")
    return v


def files(folder, trees):
    """(rep, name, tree, path) of the folder's CSV files of the given trees, reps in numeric order."""
    out = []
    for path in glob.glob(os.path.join(glob.escape(folder), "*.csv")):
        parts = os.path.basename(path)[:-4].split("-")
        if len(parts) < 3 or parts[1] not in trees or not DIGITS.fullmatch(parts[-1]):
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
        for r in read_rows(path):
            count = infile.decimal((r.get("wrong") or "0").strip(), integer=True)
            if count is None or count < 0:
                fail(f"{infile.shown(path)}: wrong = {infile.excerpt(r.get('wrong'))} is not a count")
            wrong += count
            if not r.get("time_us_mean"):
                continue  # a skipped or failed point
            t = measurement(path, "time", r["time_us_mean"])
            g = measurement(path, "GB/s", r.get("remote_gbs") or "0")
            try:
                key = (infile.shown(name), r["dtype"], r.get("mode", ""), r.get("tokens", ""), r["phase"], r["algo"])
            except KeyError as e:
                fail(f"{infile.shown(path)}: not a collbench MoE row (no column {infile.excerpt(e.args[0])})")
            if not all(infile.one_line(k) and "|" not in k for k in key):
                fail(f"{infile.shown(path)}: a name ({', '.join(infile.excerpt(k) for k in key[1:])}) is not one line "
                     "without '|'")
            if key in seen:
                fail(f"{infile.shown(path)}: two rows for {' '.join(key[1:])}")
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
