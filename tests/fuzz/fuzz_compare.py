#!/usr/bin/env python3
"""Fuzz harness for the comparison tools: tools/compare_nccl_tests.py (each input as its results
CSV beside the committed 2 x H200 log, then as the log's section beside the committed reference
CSV) and tools/compare_ab.py (each input as tree B's CSV of one repetition beside a good tree A).
Run in this process, arguments as on the command line.

The only acceptable outcomes are the tools' own: exit 0 or 1 (a comparison printed, every table
row one line), or exit 2 with one line on stderr. Anything else (an exception, another exit
code, a broken table) is a crash, saved as WORK/crash-SHA1.csv (exit 1).

usage: fuzz_compare.py --seconds N --corpus SEED_DIR --work WORK_DIR [--seed S]
"""
import contextlib
import importlib.util
import io
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import fuzz_csv  # noqa: E402  (puts plots/ on sys.path)
import fuzz_nccl_tests  # noqa: E402

LOG = os.path.join(fuzz_csv.ROOT, "tests", "plots", "data", "nccl-tests", "h200x2-sections.log")
SECTION = "== mpirun 2 ranks all_reduce"
REF_CSV = os.path.join(fuzz_csv.ROOT, "results", "reference", "h200x2", "allreduce", "results.csv")
AB_GOOD = b"family,algo,dtype,mode,tokens,phase,time_us_mean,remote_gbs,wrong\nmoe,peer,bfloat16,graph,128,roundtrip,10,1,0\n"


def tool(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(fuzz_csv.TOOLS, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


compare_nccl_tests = tool("compare_nccl_tests")
compare_ab = tool("compare_ab")


def call(main, argv):
    """Runs main with sys.argv = argv: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.argv
    sys.argv = argv
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main()
            except SystemExit as e:
                rc = e.code
    finally:
        sys.argv = saved
    return (0 if rc is None else rc), out.getvalue(), err.getvalue()


def judge(what, rc, out, err):
    if rc not in (0, 1, 2):
        raise AssertionError(f"{what}: exit {rc!r}")
    if rc == 2 and (not err.strip() or "\n" in err.strip()):
        raise AssertionError(f"{what}: exit 2 without exactly one line on stderr: {err[-300:]!r}")
    for line in out.splitlines():
        if line.startswith("|") and not line.endswith("|"):
            raise AssertionError(f"{what}: a table row broken: {line[:200]!r}")


def put(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def target(data, tmp):
    csv_path = put(os.path.join(tmp, "results.csv"), data)
    judge("compare_nccl_tests CSV", *call(compare_nccl_tests.main, ["c", LOG, SECTION, csv_path, "allreduce", "float"]))
    log = put(os.path.join(tmp, "log.txt"), b"== s\n" + data)
    judge("compare_nccl_tests log", *call(compare_nccl_tests.main, ["c", log, "== s", REF_CSV, "allreduce", "float"]))
    ab = os.path.join(tmp, "ab")
    os.makedirs(ab, exist_ok=True)
    put(os.path.join(ab, "x-a-1.csv"), AB_GOOD)
    put(os.path.join(ab, "x-b-1.csv"), data)
    judge("compare_ab", *call(compare_ab.main, ["compare_ab.py", ab, "a", "b"]))


def mutate(data, corpus, rnd):
    return fuzz_nccl_tests.mutate(data, corpus, rnd) if rnd.random() < 0.4 else fuzz_csv.mutate(data, corpus, rnd)


def main(argv):
    a = fuzz_csv.parse_args("fuzz_compare.py", argv)
    return fuzz_csv.run_fuzzer("fuzz_compare", target, mutate, a, ".csv")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
