#!/usr/bin/env python3
"""Fuzz harness for the CSV reader of plots/ (cbcsv.py) and what consumes it: the chart inputs
(prepare.py, without gnuplot), the summary (plots/summary) and the verdict against the
verdict fixtures' reference (as the run, then as the reference). Python has no libFuzzer here, so
this is a small coverage-guided mutation fuzzer (run_fuzzer, shared by fuzz_json.py,
fuzz_nccl_tests.py, fuzz_limits.py and fuzz_compare.py): inputs that reach new lines of
plots/*.py and tools/*.py (sys.settrace) join the corpus; mutations flip, insert, delete and splice bytes, and swap CSV
fields for hostile values (huge and non-finite numbers, long names, newlines, quotes, invalid
UTF-8). The budget is fixed (--seconds), the random seed too (--seed), so a run is repeatable.

The only acceptable outcomes for an input are success or cbcsv.InputError (exit 2 with one
message, no traceback). Anything else is a crash: the input is saved as WORK/crash-SHA1.csv
with its traceback, and the harness exits 1. Every summary.md table row must stay one line.

usage: fuzz_csv.py --seconds N --corpus SEED_DIR --work WORK_DIR [--seed S]
"""
import argparse
import contextlib
import hashlib
import importlib.machinery
import importlib.util
import io
import os
import random
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PLOTS = os.path.join(ROOT, "plots")
TOOLS = os.path.join(ROOT, "tools")
VERDICT_REF = os.path.join(ROOT, "tests", "plots", "data", "verdict", "reference")
sys.dont_write_bytecode = True
sys.path.insert(0, PLOTS)
import cbcsv  # noqa: E402
import prepare  # noqa: E402
import verdict  # noqa: E402


def load_script(name):
    loader = importlib.machinery.SourceFileLoader(name, os.path.join(PLOTS, name))
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


summary = load_script("summary")

HOSTILE = [b"", b"0", b"-1", b"1e308", b"-1e308", b"nan", b"inf", b"1e-320", b"18446744073709551616",
           b"x" * 300, b"a\nb", b"a\r\nb", b'"', b'""', b"|", b"\xff\xfe", b"\xe2\x82", b"moe", b"allreduce",
           b"ringattn", b"eager", b"graph", b"nccl", b"roundtrip", b"dispatch", b"1", b"4096", b"0.5",
           b"9" * 40, b"1.5e18", b"1e19", b" ", b"\t", b"\x00"]


class Coverage:
    """Lines of plots/ and tools/ executed by one call."""

    def __init__(self):
        self.lines = set()

    def tracer(self, frame, event, arg):
        if frame.f_code.co_filename.startswith((PLOTS, TOOLS)):
            if event == "line":
                self.lines.add((frame.f_code.co_filename, frame.f_lineno))
            return self.tracer
        return None


def target(data, tmp):
    """Runs the plots code on one CSV; raises on anything but success or InputError."""
    path = os.path.join(tmp, "results.csv")
    with open(path, "wb") as f:
        f.write(data)
    work, out = os.path.join(tmp, "work"), os.path.join(tmp, "out")
    for d in (work, out):
        os.makedirs(d, exist_ok=True)
    sink = io.StringIO()
    with contextlib.redirect_stderr(sink), contextlib.redirect_stdout(sink):
        try:
            prepare.main(["--work", work, "--outdir", out, path])
        except cbcsv.InputError:
            return
        text = io.StringIO()
        with contextlib.redirect_stdout(text):
            try:
                summary.main([path])
            except cbcsv.InputError:
                return
        for ref, run in ((VERDICT_REF, path), (path, VERDICT_REF)):  # as the verdict reads a CSV
            try:
                verdict.verdict(ref, run, 0.1, 0.25)
            except cbcsv.InputError:
                pass
    for line in text.getvalue().splitlines():
        if line.startswith("|") and not line.endswith("|"):
            raise AssertionError(f"summary table row broken: {line!r}")


def mutate(data, corpus, rnd):
    data = bytearray(data)
    for _ in range(rnd.randint(1, 4)):
        op = rnd.randrange(7)
        pos = rnd.randint(0, len(data))
        if op == 0 and data:  # flip a byte
            i = rnd.randrange(len(data))
            data[i] ^= 1 << rnd.randrange(8)
        elif op == 1:  # insert random bytes
            data[pos:pos] = bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 8)))
        elif op == 2 and data:  # delete a span
            del data[pos:pos + rnd.randint(1, 16)]
        elif op == 3:  # splice a line from another input
            other = rnd.choice(corpus).split(b"\n")
            data[pos:pos] = rnd.choice(other) + b"\n"
        else:  # replace one CSV field with a hostile value
            lines = bytes(data).split(b"\n")
            k = rnd.randrange(len(lines))
            fields = lines[k].split(b",")
            fields[rnd.randrange(len(fields))] = rnd.choice(HOSTILE)
            lines[k] = b",".join(fields)
            data = bytearray(b"\n".join(lines))
    return bytes(data[:1 << 16])


def parse_args(prog, argv):
    ap = argparse.ArgumentParser(prog=prog)
    ap.add_argument("--seconds", type=float, required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--seed", type=int, default=1)
    return ap.parse_args(argv)


def run_fuzzer(name, target_fn, mutate_fn, a, suffix, seed_dirs=()):
    """The mutation loop (shared by the Python harnesses): seeds first (a.corpus, then the files
    of seed_dirs: committed test data), then mutations of the corpus for a.seconds; inputs
    reaching new lines of plots/ or tools/ join the corpus; the first exception from
    target_fn(data, tmp) is a crash, saved as WORK/crash-SHA1SUFFIX. Returns the exit status."""
    saved = os.path.join(a.work, "corpus")
    os.makedirs(saved, exist_ok=True)
    corpus = []
    for d in (a.corpus, *seed_dirs, saved):
        for fname in sorted(os.listdir(d)):
            if os.path.isfile(os.path.join(d, fname)):
                with open(os.path.join(d, fname), "rb") as f:
                    corpus.append(f.read())
    if not corpus:
        print(f"{name}: {a.corpus}: empty seed corpus", file=sys.stderr)
        return 2
    rnd = random.Random(a.seed)
    seen = set()
    execs, start, crashes = 0, time.monotonic(), 0
    with tempfile.TemporaryDirectory(prefix=f"cb-{name}.") as tmp:
        queue = list(corpus)  # seeds (regression cases) run first, unmutated
        while queue or time.monotonic() - start < a.seconds:
            data = queue.pop(0) if queue else mutate_fn(rnd.choice(corpus), corpus, rnd)
            cov = Coverage()
            sys.settrace(cov.tracer)
            try:
                target_fn(data, tmp)
            except Exception:  # noqa: BLE001 - every other exception is a finding
                sys.settrace(None)
                crashes += 1
                crash = os.path.join(a.work, "crash-" + hashlib.sha1(data).hexdigest() + suffix)
                with open(crash, "wb") as f:
                    f.write(data)
                print(f"{name}: CRASH, input saved as {crash}\n{traceback.format_exc()}", file=sys.stderr)
                break
            finally:
                sys.settrace(None)
            execs += 1
            if not cov.lines <= seen:
                seen |= cov.lines
                if data not in corpus:
                    corpus.append(data)
                    with open(os.path.join(saved, hashlib.sha1(data).hexdigest()), "wb") as f:
                        f.write(data)
    dt = time.monotonic() - start
    print(f"{name}: {execs} runs in {dt:.1f} s ({execs / dt:.0f} exec/s), corpus {len(corpus)} inputs, "
          f"{len(seen)} lines of plots/ covered, {crashes} crash(es)")
    return 1 if crashes else 0


def main(argv):
    return run_fuzzer("fuzz_csv", target, mutate, parse_args("fuzz_csv.py", argv), ".csv")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
