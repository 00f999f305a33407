#!/usr/bin/env python3
"""CPU test of the test harness's own option checks: tests/gpu/run_gpu_case.sh's --min-gpus and
option values and CB_TEST_RANKS, and tests/mpi/run_mpi_case.py's --end-within seconds. Nonsense (letters, 0,
numbers past 2^64, very long values, bytes that are not UTF-8, a missing value) must end with
exit 2 and a message naming the option, before anything runs (these checks come before the GPU
check, so they hold on a machine without a GPU).

usage: test_harness_args.py RUN_GPU_CASE RUN_MPI_CASE"""
import os
import subprocess
import sys


def main():
    gpu_case, mpi_case = sys.argv[1], sys.argv[2]
    huge = str(2**64 + 1)
    cases = []
    for bad in [b"abc", b"0", b"-1", huge.encode(), b"9" * 5000, b"\xff\xfe", b"10000"]:
        cases.append(([b"bash", gpu_case.encode(), b"x", b"/bin/true", b"", b"--min-gpus", bad, b"--", b"foo"],
                      b"--min-gpus"))
    cases.append(([b"bash", gpu_case.encode(), b"x", b"/bin/true", b"", b"--min-gpus"], b"--min-gpus needs a value"))
    cases.append(([b"bash", gpu_case.encode(), b"x", b"/bin/true", b"", b"--wrap"], b"--wrap needs a value"))
    # CB_TEST_RANKS (ranks per test when they share GPUs): 2..8
    for bad in [b"1", b"9", b"02", b"abc", b"\xff", b"4" * 5000]:  # empty = unset, like the CB_* knobs
        cases.append(([b"env", b"CB_TEST_RANKS=" + bad, b"bash", gpu_case.encode(), b"x", b"/bin/true", b"", b"--", b"foo"],
                      b"CB_TEST_RANKS"))
    for bad in [b"abc", b"0", b"-3", b"nan", b"\xff", b"9e999999999999999999x"]:
        cases.append(([sys.executable.encode(), mpi_case.encode(), b"--end-within", b"text", bad, b"--", b"true"],
                      b"--end-within"))
    failures = 0
    for argv, want in cases:
        p = subprocess.run(argv, capture_output=True, timeout=60)
        out = p.stdout + p.stderr
        ok = p.returncode == 2 and want in out and len(out) < 20000
        failures += not ok
        shown = b" ".join(a[:40] for a in argv[1:]).decode("utf-8", "backslashreplace")
        print(f"{'ok  ' if ok else 'FAIL'} {shown} -> exit {p.returncode}")
        if not ok:
            print(out[-2000:].decode("utf-8", "backslashreplace"))
    print("test_harness_args:", "all passed" if not failures else f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
