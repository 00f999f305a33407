#!/usr/bin/env python3
"""CPU test of tests/lib/check_csv.py's one-rank rules (--ranks): on a one-GPU machine a row that
needs 2 ranks may say so instead of running (allowed, and its algorithm is not required by
--algos), never for an algorithm in --skipped (whose reason must match --allow-skip), and a run
in which nothing could be timed for that reason is "skipped" (77); with 2 ranks the same rows
fail; nonsense for --ranks is a usage error. And --loaded (moe --overlap): a roundtrip row of a
listed algorithm needs a timed roundtrip_loaded row of the same dtype, size and mode whose
slowdowns are numbers in (0, 100). --shared: rows skipped because ranks share a GPU are excused
(also a skipped roundtrip_loaded row, of the same size and mode), without it they fail; when every
row is excused, each dtype/mode/... asked for needs an excused row instead of a timed one. Synthetic CSVs with the result columns.

usage: test_check_csv.py CHECK_CSV"""
import csv
import os
import subprocess
import sys
import tempfile

COLS = ["family", "algo", "dtype", "op", "bytes", "count", "inplace", "ranks", "nodes", "gpu", "time_us_mean",
        "time_us_max", "time_us_p50", "time_us_p99", "algbw_gbs", "busbw_gbs", "wrong", "note", "mode", "sms", "phase", "slowdown_comm", "slowdown_compute"]
TIMED = dict(algo="peer", time_us_mean="5", time_us_max="5", time_us_p50="5", time_us_p99="5", algbw_gbs="1",
             busbw_gbs="0", wrong="0", sms="8")
ONE_RANK = dict(algo="copy_ce", note="not supported: a peer copy needs 2 or more ranks")
FP8_AVG = dict(algo="nccl", note="not supported: NCCL 2.28.3 refuses avg of fp8e4m3 on one rank (invalid argument)")
OTHER = dict(algo="nccl", note="skipped: something else")
RT = dict(TIMED, phase="roundtrip")
LOADED = dict(TIMED, phase="roundtrip_loaded", slowdown_comm="1.25", slowdown_compute="1.05")
SHARED = dict(algo="twoshot_ce", note="not supported: ranks share a GPU (copies wait behind the reduce kernel)")
SHARED_LOADED = dict(algo="peer", phase="roundtrip_loaded", note="skipped: ranks share a GPU (virtual nodes): each one's compute kernel would take the SMs")


def write(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLS)
        w.writeheader()
        for r in rows:
            d = {c: "" for c in COLS}
            d.update(family="moe", dtype="bfloat16", op="none", bytes="0", count="0", inplace="0", ranks="1",
                     nodes="1", gpu="H200", mode="eager")
            d.update(r)
            w.writerow(d)


def main():
    tool = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="cb-check-csv-")
    cases = [  # rows, arguments, expected exit
        ([TIMED, ONE_RANK], ["--ranks", "1", "--algos", "peer,copy_ce"], 0),
        ([TIMED, ONE_RANK], ["--ranks", "2", "--algos", "peer,copy_ce"], 1),
        ([TIMED, ONE_RANK], ["--algos", "peer"], 1),
        ([TIMED, FP8_AVG], ["--ranks", "1", "--algos", "peer"], 0),
        ([TIMED, OTHER], ["--ranks", "1", "--algos", "peer"], 1),
        ([ONE_RANK], ["--ranks", "1", "--algos", "copy_ce"], 77),
        ([ONE_RANK, OTHER], ["--ranks", "1"], 1),
        ([TIMED, ONE_RANK], ["--ranks", "1", "--skipped", "copy_ce", "--allow-skip", "other.reason"], 1),
        ([TIMED, ONE_RANK], ["--ranks", "1", "--skipped", "copy_ce", "--allow-skip", "needs.2"], 0),
    ]
    cases += [
        ([RT, LOADED], ["--loaded", "peer"], 0),
        ([RT], ["--loaded", "peer"], 1),  # no roundtrip_loaded row
        ([RT, dict(LOADED, mode="graph")], ["--loaded", "peer"], 1),  # not for this mode
        ([RT, dict(LOADED, dtype="fp8e4m3")], ["--loaded", "peer"], 1),  # not for this dtype
        ([RT, dict(LOADED, slowdown_comm="")], ["--loaded", "peer"], 1),
        ([RT, dict(LOADED, slowdown_compute="nan")], ["--loaded", "peer"], 1),
        ([RT, dict(LOADED, slowdown_compute="0")], ["--loaded", "peer"], 1),
        ([RT, dict(LOADED, slowdown_comm="1e9")], ["--loaded", "peer"], 1),
        ([RT], ["--loaded", "nccl"], 0),  # peer not listed: its loaded rows are not required
        # --shared: rows skipped because ranks share a GPU are excused, without --shared they fail
        ([TIMED, SHARED], ["--shared", "--algos", "peer,twoshot_ce"], 0),
        ([TIMED, SHARED], ["--algos", "peer,twoshot_ce"], 1),
        ([SHARED], ["--shared", "--algos", "twoshot_ce"], 77),
        ([TIMED, SHARED], ["--shared", "--skipped", "twoshot_ce", "--allow-skip", "other.reason"], 1),
        ([TIMED, ONE_RANK], ["--shared"], 1),  # the one-rank excuse needs --ranks 1
        ([RT, SHARED_LOADED], ["--loaded", "peer", "--shared"], 0),
        ([RT, SHARED_LOADED], ["--loaded", "peer"], 1),
        ([RT, dict(SHARED_LOADED, mode="graph")], ["--loaded", "peer", "--shared"], 1),  # not for this mode
        # ... nor for another round trip size (a skipped roundtrip_loaded row carries its bytes)
        ([dict(RT, bytes="58376192"), SHARED_LOADED], ["--loaded", "peer", "--shared"], 1),
        ([dict(RT, bytes="58376192"), dict(SHARED_LOADED, bytes="58376192")], ["--loaded", "peer", "--shared"], 0),
        # every row excused: the values timed rows should show are moot, the run is skipped
        ([SHARED, dict(SHARED, mode="graph")], ["--shared", "--algos", "twoshot_ce", "--modes", "eager,graph"], 77),
        ([ONE_RANK, dict(ONE_RANK, dtype="fp8e4m3", inplace="1")], ["--ranks", "1", "--dtypes", "bfloat16,fp8e4m3", "--inplace", "0,1"], 77),
        ([SHARED], ["--shared", "--modes", "eager,graph"], 1),  # ... but a mode asked for has no row at all
        ([ONE_RANK], ["--ranks", "1", "--dtypes", "bfloat16,fp8e4m3"], 1),  # ... nor a dtype
        ([dict(OTHER, note="skipped: x")], ["--allow-skip", "x", "--modes", "eager"], 1),  # nothing excused
    ]
    # nonsense for --ranks: argparse's usage error (exit 2)
    cases += [([TIMED], ["--ranks", bad], 2) for bad in ["abc", "1.5", "", "9" * 5000 + "x"]]
    failures = 0
    for i, (rows, args, want) in enumerate(cases):
        path = os.path.join(tmp, f"case{i}.csv")
        write(path, rows)
        p = subprocess.run([sys.executable, tool, path, *args], capture_output=True, text=True)
        ok = p.returncode == want
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} case {i}: {' '.join(a[:40] for a in args)} -> exit {p.returncode} (expected {want})")
        if not ok:
            print(p.stdout + p.stderr)
    print("test_check_csv:", "all passed" if not failures else f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
