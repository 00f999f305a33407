#!/usr/bin/env python3
"""Fuzz harness for the metadata loader of plots/verdict.py (plots/cbmeta.py) and what consumes
it: the verdict of a run against a reference (both sides' results.json mutated in turn) and
`--write` into summary.md. The mutation loop and the byte/field mutator are fuzz_csv.py's; on
top of them, a JSON mutation replaces one value with a hostile one (another type, null, a lone
surrogate escape, huge or non-finite numbers, deep nesting). The rows are the committed fixture
run tests/plots/data/verdict/normal.

The only acceptable outcomes are success or cbcsv.InputError (exit 2 with one line); anything
else is a crash, saved as WORK/crash-SHA1.json with its traceback (exit 1).

usage: fuzz_json.py --seconds N --corpus SEED_DIR --work WORK_DIR [--seed S]
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
import cbcsv  # noqa: E402
import verdict  # noqa: E402

ROWS = os.path.join(os.path.dirname(HERE), "plots", "data", "verdict", "normal")
JSON_HOSTILE = [b"[]", b"{}", b"null", b"true", b"0", b"-1", b"1e999", b"-1e999", b'""', b'"\\ud800"',
                b'"\\udfff\\ud800"', b'"\\u0000"', b'"a\\nb"', b"[" * 2000 + b"]" * 2000, b"[" * 5000,
                b'{"gpu": null}', b'[{"binding": 1}]', b'{"NCCL_ALGO": []}', b'"' + b"x" * 5000 + b'"']
VALUE = re.compile(rb'(?<=: )("(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*|true|false|null|\[\]|\{\})')


def mutate(data, corpus, rnd):
    if rnd.random() < 0.5:
        return fuzz_csv.mutate(data, corpus, rnd)
    spots = [m.span() for m in VALUE.finditer(data)]
    if not spots:
        return fuzz_csv.mutate(data, corpus, rnd)
    for _ in range(rnd.randint(1, 3)):
        a, b = rnd.choice(spots)
        data = data[:a] + rnd.choice(JSON_HOSTILE) + data[b:]
        spots = [m.span() for m in VALUE.finditer(data)] or [(0, 0)]
    return data[:1 << 17]


def side(tmp, name, data):
    d = os.path.join(tmp, name)
    if not os.path.isdir(d):
        shutil.copytree(ROWS, d)
    with open(os.path.join(d, "results.json"), "wb") as f:
        f.write(data)
    return d


def target(data, tmp):
    """The verdict with data as the run's results.json, then as the reference's."""
    good = open(os.path.join(ROWS, "results.json"), "rb").read()
    sink = io.StringIO()
    for run_json, ref_json in ((data, good), (good, data)):
        run, ref = side(tmp, "run", run_json), side(tmp, "ref", ref_json)
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            try:
                text = "\n".join(verdict.verdict(ref, run, 0.1, 0.25))
            except cbcsv.InputError:
                continue
            if verdict.write_section(os.path.join(run, "summary.md"), text) != 0:
                raise AssertionError("write_section failed: " + sink.getvalue()[-300:])


def main(argv):
    return fuzz_csv.run_fuzzer("fuzz_json", target, mutate, fuzz_csv.parse_args("fuzz_json.py", argv), ".json")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
