#!/usr/bin/env python3
"""Compares collbench's NCCL rows with an nccl-tests log of the same machine (tolerance:
busbw within 5% from 1 MiB up, time within 1.5 us below 64 KiB).

usage: compare_nccl_tests.py NCCL_TESTS_LOG SECTION RESULTS_CSV FAMILY DTYPE [MODE] > comparison.md
  SECTION: the log's "== ..." heading that starts the table (e.g. "== mpirun 2 ranks all_reduce")
  MODE: eager (default) or graph: which collbench rows stand for the nccl-tests run
The nccl-tests out-of-place columns are compared with collbench's out-of-place rows of
algorithm nccl. Exit status 1 when a point misses the tolerance."""
import csv
import sys


def nccl_tests_rows(path, section, dtype):
    rows, inside = {}, False
    for line in open(path, errors="replace"):
        if line.startswith("=="):
            inside = line.strip() == section
            continue
        if not inside:
            continue
        f = line.split()
        if len(f) >= 9 and f[0].isdigit() and f[2] == dtype:
            rows[int(f[0])] = (float(f[5]), float(f[7]))  # out-of-place time us, busbw
    return rows


def main():
    log, section, results, family, dtype = sys.argv[1:6]
    mode = sys.argv[6] if len(sys.argv) > 6 else "eager"
    ref = nccl_tests_rows(log, section, dtype)
    ours = {}
    for r in csv.DictReader(open(results)):
        if (r["family"], r["algo"], r["dtype"], r["inplace"], r.get("mode", "eager")) == (family, "nccl", dtype, "0", mode) \
                and r["time_us_mean"]:
            ours[int(r["bytes"])] = (float(r["time_us_mean"]), float(r["busbw_gbs"]))
    print(f"# collbench NCCL rows vs nccl-tests ({family}, {dtype}, out-of-place, collbench {mode} mode)\n")
    print(f"nccl-tests: `{log}`, section `{section}`; collbench: `{results}`.\n")
    print("| bytes | nccl-tests us | collbench us | nccl-tests busbw | collbench busbw | check |")
    print("|---|---|---|---|---|---|")
    bad = 0
    for size in sorted(set(ref) & set(ours)):
        (rt, rb), (ot, ob) = ref[size], ours[size]
        if size < 64 * 1024:
            ok, rule = abs(ot - rt) <= 1.5, f"|dt| {abs(ot - rt):.2f} <= 1.5 us"
        elif size >= 1 << 20:
            ok, rule = abs(ob - rb) <= 0.05 * rb, f"busbw {100 * (ob - rb) / rb:+.1f}% (5%)"
        else:
            ok, rule = True, "not judged (64 KiB - 1 MiB)"
        bad += not ok
        print(f"| {size} | {rt:.2f} | {ot:.2f} | {rb:.2f} | {ob:.2f} | {'ok' if ok else 'MISS'}: {rule} |")
    print(f"\n{len(set(ref) & set(ours))} sizes compared, {bad} outside the tolerance.")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
