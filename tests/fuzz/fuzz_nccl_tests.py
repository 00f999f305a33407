#!/usr/bin/env python3
"""Fuzz harness for the nccl-tests reader and import (plots/nccl_tests.py, text and -J JSON;
plots/nccl_tests_import.py): each input is an nccl-tests output, imported into a fresh DIR.

The only acceptable outcomes are cbcsv.InputError (the reader's one clean error) with nothing
written, or success, after which every folder written reads back through plots/ (cbcsv.load
and cbmeta.load: the import never writes what its readers refuse) and every error message is
one line. Anything else is a crash, saved as WORK/crash-SHA1.txt (exit 1).

Seeds: the corpus folder (regression cases) and the committed nccl-tests outputs of
tests/plots/data/nccl-tests/ (excerpts, sections, the real H200 captures, text and JSON).
Mutations: fuzz_csv.py's byte and line mutations, a table token replaced by a hostile number or
name (non-ASCII digits, 1e999, nan, N/A, -1, huge), and fuzz_json.py's JSON value swaps.

usage: fuzz_nccl_tests.py --seconds N --corpus SEED_DIR --work WORK_DIR [--seed S]
"""
import contextlib
import io
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import fuzz_csv  # noqa: E402  (puts plots/ on sys.path)
import fuzz_json  # noqa: E402
import cbcsv  # noqa: E402
import cbmeta  # noqa: E402
import nccl_tests_import  # noqa: E402

DATA = os.path.join(fuzz_csv.ROOT, "tests", "plots", "data", "nccl-tests")
SEED_DIRS = (DATA, os.path.join(DATA, "captured", "h200x1"))
TOKENS = ["٨", "８", "²", "1_000", "1e999", "-1e999", "nan", "inf", "N/A", "-1", "0", "1e+06", "18446744073709551616",
          "9" * 50, "float\x01", "", "sum", "float", "bfloat16", "f8e4m3", "all_reduce_perf", "broadcast_perf",
          "Rank", "nGpus", "-2", "0.5", "1e-300"]
TOKEN = re.compile(rb"[^\s]+")


def mutate(data, corpus, rnd):
    r = rnd.random()
    if r < 0.35 and data.lstrip().startswith(b"{"):
        return fuzz_json.mutate(data, corpus, rnd)
    if r < 0.7:
        spots = [m.span() for m in TOKEN.finditer(data)]
        for _ in range(rnd.randint(1, 3)):
            if not spots:
                break
            a, b = rnd.choice(spots)
            data = data[:a] + rnd.choice(TOKENS).encode() + data[b:]
            spots = [m.span() for m in TOKEN.finditer(data)]
        return data[:1 << 17]
    return fuzz_csv.mutate(data, corpus, rnd)


def target(data, tmp):
    src = os.path.join(tmp, "nccl-tests.txt")
    with open(src, "wb") as f:
        f.write(data)
    out = os.path.join(tmp, "out")
    shutil.rmtree(out, ignore_errors=True)
    sink = io.StringIO()
    with contextlib.redirect_stderr(sink), contextlib.redirect_stdout(sink):
        try:
            made = nccl_tests_import.write_runs(src, out)
        except cbcsv.InputError as e:
            if "\n" in str(e) or os.path.exists(out):
                raise AssertionError(f"a refusal of more than one line, or with a folder left: {str(e)[:300]!r}")
            return
        for d in made:  # what the import wrote, the readers take
            cbcsv.load(d, warn=False)
            cbmeta.load(d)


def main(argv):
    a = fuzz_csv.parse_args("fuzz_nccl_tests.py", argv)
    return fuzz_csv.run_fuzzer("fuzz_nccl_tests", target, mutate, a, ".txt", SEED_DIRS)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
