#!/usr/bin/env python3
"""Compares collbench's NCCL rows with an nccl-tests log of the same machine (tolerance:
busbw within 5% from 1 MiB up, time within 1.5 us below 64 KiB).

usage: compare_nccl_tests.py NCCL_TESTS_LOG SECTION RESULTS_CSV FAMILY DTYPE [MODE] > comparison.md
  SECTION: the log's "== ..." heading that starts the table (e.g. "== mpirun 2 ranks all_reduce")
  MODE: eager (default) or graph: which collbench rows stand for the nccl-tests run
The nccl-tests out-of-place columns are compared with collbench's out-of-place rows of
algorithm nccl; where nccl-tests' busbw is 0 (one GPU: nothing crosses a link) the sizes from 1
MiB up are judged by time instead (within 5%). The log is read by plots/nccl_tests.py (the
section's lines), the CSV by plots/cbcsv.py (plots/infile.py's reader rule: no symlink, a size
cap, UTF-8, ASCII decimal numbers). Exit status 1 when a point misses the tolerance, 2 on bad
input (one line on stderr: a file that cannot be read, a section or family that is not there, no
size in common)."""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plots"))
import cbcsv  # noqa: E402
import nccl_tests  # noqa: E402  (the one nccl-tests reader: plots/nccl_tests.py)


def nccl_tests_rows(path, section, family, dtype):
    """{bytes: (time us, busbw)} of the out-of-place columns of family's dtype rows in the log's
    section (its lines from the "== ..." heading to the next one)."""
    lines, inside, found = [], False, False
    for line in nccl_tests.read_text_file(path).splitlines():
        if line.startswith("=="):
            inside = line.strip() == section
            found = found or inside
        elif inside:
            lines.append(line)
    if not found:
        raise cbcsv.InputError(f"{cbcsv.shown(path)}: no section heading {cbcsv.excerpt(section, 80)}")
    rows, _ = nccl_tests.parse_text(lines, f"{path} ({section})", family)
    return {r["bytes"]: (r["time_us_mean"], r["busbw_gbs"]) for r in rows
            if (r["family"], r["dtype"], r["inplace"]) == (family, dtype, 0) and r["time_us_mean"] != ""}


def collbench_rows(path, family, dtype, mode):
    """{bytes: (time us, busbw)} of the CSV's out-of-place rows of algorithm nccl."""
    run = cbcsv.load(path, warn=False)
    return {r["bytes"]: (r["time"], r["busbw"] or 0.0) for r in run.measured
            if (r["family"], r["algo"], r["dtype"], r["inplace"], r["mode"]) == (family, "nccl", dtype, 0, mode)}


def judge(size, ref, ours):
    """(ok, rule text) of one size: time below 64 KiB, busbw from 1 MiB (time where busbw is 0)."""
    (rt, rb), (ot, ob) = ref, ours
    if size < 64 * 1024:
        return abs(ot - rt) <= 1.5, f"|dt| {abs(ot - rt):.2f} <= 1.5 us"
    if size < 1 << 20:
        return True, "not judged (64 KiB - 1 MiB)"
    if rb > 0:
        return abs(ob - rb) <= 0.05 * rb, f"busbw {100 * (ob - rb) / rb:+.1f}% (5%)"
    return abs(ot - rt) <= 0.05 * rt, f"busbw 0 (one GPU): time {100 * (ot - rt) / rt:+.1f}% (5%)"


def main():
    if len(sys.argv) not in (6, 7):
        print(__doc__.split("\n\n", 1)[1], file=sys.stderr)
        return 2
    log, section, results, family, dtype = sys.argv[1:6]
    mode = sys.argv[6] if len(sys.argv) > 6 else "eager"
    try:
        if family not in nccl_tests.FAMILIES.values():
            raise cbcsv.InputError(f"FAMILY {cbcsv.excerpt(family)} is not one of {', '.join(nccl_tests.FAMILIES.values())}")
        if mode not in ("eager", "graph"):
            raise cbcsv.InputError(f"MODE {cbcsv.excerpt(mode)} is not eager or graph")
        if not nccl_tests.NAME.fullmatch(dtype):
            raise cbcsv.InputError(f"DTYPE {cbcsv.excerpt(dtype)} is not a type name")
        ref = nccl_tests_rows(log, section, family, dtype)
        ours = collbench_rows(results, family, dtype, mode)
        common = sorted(set(ref) & set(ours))
        if not common:
            raise cbcsv.InputError(f"{cbcsv.shown(results)}: no out-of-place {family} {dtype} {mode} nccl row at a size "
                                   "the nccl-tests section has")
    except cbcsv.InputError as e:
        print(f"compare_nccl_tests: {e}", file=sys.stderr)
        return 2
    print(f"# collbench NCCL rows vs nccl-tests ({family}, {dtype}, out-of-place, collbench {mode} mode)\n")
    print(f"nccl-tests: `{cbcsv.shown(log)}`, section `{cbcsv.shown(section)}`; collbench: `{cbcsv.shown(results)}`.\n")
    print("| bytes | nccl-tests us | collbench us | nccl-tests busbw | collbench busbw | check |")
    print("|---|---|---|---|---|---|")
    bad = 0
    for size in common:
        (rt, rb), (ot, ob) = ref[size], ours[size]
        ok, rule = judge(size, ref[size], ours[size])
        bad += not ok
        print(f"| {size} | {rt:.2f} | {ot:.2f} | {rb:.2f} | {ob:.2f} | {'ok' if ok else 'MISS'}: {rule} |")
    print(f"\n{len(common)} sizes compared, {bad} outside the tolerance.")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
