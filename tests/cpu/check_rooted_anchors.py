#!/usr/bin/env python3
"""Compares collbench's arithmetic of broadcast, reduce, gather, scatter and hypercube with real
nccl-tests 2.19 tables (tests/cpu/data/nccl-tests-rooted/): for each table, the sweep from its
header (minBytes, maxBytes, step factor), the rank count from its `#  Rank` lines; for each row,
collbench's size and count columns must equal nccl-tests', and its algbw and busbw, computed by
test_rooted_arith from the row's own out-of-place and in-place times, must equal the table's to
its rounding (times and bandwidths are printed with 2 decimals).

usage: check_rooted_anchors.py TEST_ROOTED_ARITH DATA_DIR
"""
import os
import re
import subprocess
import sys

FAMILIES = {"broadcast": "broadcast", "reduce": "reduce", "gather": "gather", "scatter": "scatter",
            "hypercube": "hypercube"}

problems = []


def fail(msg):
    problems.append(msg)
    print("check_rooted_anchors: FAIL:", msg)


def read_table(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    head = next(l for l in lines if "minBytes" in l)
    m = re.search(r"minBytes (\d+) maxBytes (\d+) step: (\d+)\(factor\)", head)
    lo, hi, factor = (int(x) for x in m.groups())
    sweep, s = [], lo
    while s <= hi:
        sweep.append(s)
        s *= factor
    nranks = sum(1 for l in lines if re.match(r"#\s+Rank\s+\d+", l))
    rows = [l.split() for l in lines if l.strip() and not l.startswith("#")]
    return sweep, nranks, rows


def close(got, want, time_us):
    # want is rounded to 0.01; got is computed from a time rounded to 0.01 us
    return abs(got - want) <= 0.0051 + abs(got) * 0.0051 / time_us


def check(tool, path, family):
    sweep, nranks, rows = read_table(path)
    name = os.path.basename(path)
    if not rows or nranks < 1:
        fail(f"{name}: no rows or no ranks")
        return 0
    if len(rows) > len(sweep):
        fail(f"{name}: {len(rows)} rows for a sweep of {len(sweep)} sizes")
        return 0
    checked = 0
    # columns: size count type redop [root] time algbw busbw #wrong time algbw busbw #wrong;
    # hypercube prints no redop, so count the groups from the right
    for place in ("out", "in"):
        off = -8 if place == "out" else -4
        times = [float(r[off]) for r in rows]
        args = [f"{s}:{t}" for s, t in zip(sweep, times)]
        out = subprocess.run([tool, family, str(nranks), rows[0][2]] + args, capture_output=True, text=True)
        if out.returncode != 0:
            fail(f"{name}: test_rooted_arith exited {out.returncode}: {out.stderr.strip()}")
            return checked
        for r, s, t, line in zip(rows, sweep, times, out.stdout.splitlines()):
            got = line.split()
            if got[0] == "refused":
                fail(f"{name}: -b {s}: collbench refuses the size: {line}")
                continue
            size, count, algbw, busbw = int(got[0]), int(got[1]), float(got[2]), float(got[3])
            want_algbw, want_busbw = float(r[off + 1]), float(r[off + 2])
            if size != int(r[0]) or count != int(r[1]):
                fail(f"{name}: sweep point {s}: size {size} count {count}, nccl-tests {r[0]} {r[1]}")
            if not close(algbw, want_algbw, t) or not close(busbw, want_busbw, t):
                fail(f"{name}: sweep point {s} {place}-of-place at {t} us: algbw {algbw:.4f} busbw "
                     f"{busbw:.4f}, nccl-tests {want_algbw} {want_busbw}")
            checked += 1
    return checked


def main():
    tool, data = sys.argv[1], sys.argv[2]
    total = 0
    for family in FAMILIES:
        for variant in ("g1", "np2"):
            path = os.path.join(data, f"{family}-{variant}.txt")
            if not os.path.isfile(path):
                fail(f"{path} missing")
                continue
            total += check(tool, path, FAMILIES[family])
    if total < 100:
        fail(f"only {total} rows checked")
    if problems:
        print(f"check_rooted_anchors: {len(problems)} problem(s)")
        return 1
    print(f"check_rooted_anchors: OK ({total} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
