#!/usr/bin/env python3
"""Fuzz harness for the hardware figures the verdict reads (plots/hwfigures.py through
plots/limits.py and plots/cbcsv.py): each input is used three ways on copies of committed runs,
  - as RUN/limits.json of a one-node run (the verdict fixtures' "normal") and of the committed
    2-node all-reduce reference (the NIC path), judged by verdict.py with its limits section;
  - as results.json's meta.limits of the one-node run (when the input is a JSON value);
  - as RUN/link_gbs (its first 64 bytes), read by plots/summary and the verdict.
The only acceptable outcomes are success or cbcsv.InputError with a one-line message; anything
else is a crash, saved as WORK/crash-SHA1.json (exit 1). Seeds: the corpus folder (limits
objects as collbench-run and collbench write them, and regression cases).

usage: fuzz_limits.py --seconds N --corpus SEED_DIR --work WORK_DIR [--seed S]
"""
import contextlib
import io
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import fuzz_csv  # noqa: E402  (puts plots/ on sys.path)
import fuzz_json  # noqa: E402
import cbcsv  # noqa: E402
import verdict  # noqa: E402

ONE_NODE = os.path.join(fuzz_csv.ROOT, "tests", "plots", "data", "verdict", "normal")
ONE_REF = os.path.join(fuzz_csv.ROOT, "tests", "plots", "data", "verdict", "reference")
TWO_NODES = os.path.join(fuzz_csv.ROOT, "results", "reference", "h200x2-2nodes", "allreduce")


def mutate(data, corpus, rnd):
    return fuzz_json.mutate(data, corpus, rnd) if rnd.random() < 0.7 else fuzz_csv.mutate(data, corpus, rnd)


def judged(ref, run):
    """The verdict of run against ref; InputError must be one line."""
    try:
        verdict.verdict(ref, run, 0.1, 0.25)
    except cbcsv.InputError as e:
        if "\n" in str(e):
            raise AssertionError(f"a refusal of more than one line: {str(e)[:300]!r}")


def fresh(tmp, name, src):
    d = os.path.join(tmp, name)
    if not os.path.isdir(d):
        os.makedirs(d)
        for f in ("results.csv", "results.json"):
            if os.path.exists(os.path.join(src, f)):
                shutil.copy(os.path.join(src, f), d)
    return d


def put(d, name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def target(data, tmp):
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        for name, src, ref in (("one", ONE_NODE, ONE_REF), ("two", TWO_NODES, TWO_NODES)):
            d = fresh(tmp, name, src)
            put(d, "limits.json", data)
            judged(ref, d)
        meta = fresh(tmp, "meta", ONE_NODE)
        try:
            lim = json.loads(data)
        except (ValueError, RecursionError):
            lim = None
        if lim is not None:
            with open(os.path.join(ONE_NODE, "results.json"), "rb") as f:
                doc = json.load(f)
            doc.setdefault("meta", {})["limits"] = lim
            try:
                put(meta, "results.json", json.dumps(doc).encode())
            except (ValueError, RecursionError):
                pass  # not writable as JSON again (NaN is, a cycle cannot occur): nothing to judge
            else:
                judged(ONE_REF, meta)
        link = fresh(tmp, "link", ONE_NODE)
        put(link, "link_gbs", data[:64])
        judged(ONE_REF, link)
        try:
            cbcsv.read_link(link)
        except cbcsv.InputError:
            pass


def main(argv):
    return fuzz_csv.run_fuzzer("fuzz_limits", target, mutate, fuzz_csv.parse_args("fuzz_limits.py", argv), ".json")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
