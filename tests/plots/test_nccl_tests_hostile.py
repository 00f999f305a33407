#!/usr/bin/env python3
"""The nccl-tests import (plots/nccl_tests.py, plots/plot --nccl-tests) and
tools/compare_nccl_tests.py on hostile input (issue 42), each case on several variants:

  links   P4   a symlink planted at DIR/<family>/results.csv or results.json, DIR/<family> a
               symlink, a collbench run with a planted 31-byte (or schema-complete) results.json
               saying "nccl-tests", the default ./nccl-tests-NAME and ./compare-A-vs-B folders
               symlinked: nothing written through a link, no other run overwritten
  json    P10  -J JSON nested 100,000 deep ([ and {), nwrong 1e999, -1e999, NaN, Infinity, a
               bandwidth 1e400: exit 2 with one line, no traceback, no folder
  bounds  P12  more rows than one run has (a table that would grow to hundreds of MB), a negative
               nwrong, a line break or control character in type/redop/host, nthreads -1, 0 and
               10^30, 10^6 devices: refused with nothing written, or written only in a form the
               readers (plots/plot) take
  names   P16  a line break (\\n, \\r) or another control character in --out or in the file's
               name (default DIR): exit 2 with one line, nothing created
  compare P18  compare_nccl_tests.py with a missing, non-UTF-8, folder or symlinked CSV, bytes
               1e3, nothing in common: exit 2 with one line; the one-GPU log of a real H200 run
               (busbw 0) against the one-GPU reference: judged by time, exit 0
  digits  P26  Arabic-Indic, full-width and superscript digits and '1_000' in a table's size,
               count, time or #wrong are not numbers: never read as 8
Every failure on stderr must be one line; a Python traceback anywhere fails the case.

usage: test_nccl_tests_hostile.py CASE WORKDIR   (WORKDIR is wiped first)
"""
import csv
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PLOT = os.path.join(ROOT, "plots", "plot")
READER = os.path.join(ROOT, "plots", "nccl_tests.py")
COMPARE = os.path.join(ROOT, "tools", "compare_nccl_tests.py")
DATA = os.path.join(HERE, "data", "nccl-tests")
TEXT = os.path.join(DATA, "all_reduce_perf-g2.txt")
JSONF = os.path.join(DATA, "all_reduce_perf-g2.json")
SECTIONS = os.path.join(DATA, "h200x2-sections.log")
ONE_GPU = os.path.join(DATA, "captured", "h200x1", "all_reduce_perf.txt")
REF = os.path.join(ROOT, "results", "reference", "h200x2", "allreduce")
REF1 = os.path.join(ROOT, "results", "reference", "h200x1", "allreduce")
failures = []
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import test_nccl_tests  # noqa: E402  (run_case)


def run(args, cwd=None, timeout=300):
    p = subprocess.run([os.fsencode(a) for a in args], capture_output=True, cwd=cwd, timeout=timeout)
    p.out, p.err = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    return p


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def refused(label, p, want=2):
    err = p.err.strip()
    check(p.returncode == want and "Traceback" not in p.err and err and "\n" not in err,
          f"{label}: exit {want} with one line (got {p.returncode}: {err[-300:]!r})")


def write(path, data):
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


def read(path):
    with open(path, "rb") as f:
        return f.read()


def text_table():
    with open(TEXT) as f:
        return f.read()


def json_doc():
    with open(JSONF) as f:
        return json.load(f)


def import_(src, out, *extra, cwd=None):
    return run([sys.executable, READER, *extra, "--out", out, src], cwd=cwd)


def readable(folder):
    """Whether plots/ reads an import back: plots/summary on it exits 0."""
    p = run([sys.executable, os.path.join(ROOT, "plots", "summary"), folder])
    return p.returncode == 0 and "Traceback" not in p.err


def case_links(work):
    """P4: nothing written through a planted link; another run never overwritten."""
    victim = write(os.path.join(work, "victim.txt"), "precious\n")
    ours = '{"meta": {"tool": "nccl-tests"}}'  # the 31-byte results.json that passed the old guard
    for name, plant in (
            ("csv link", {"results.json": ours, "results.csv": ("link", victim)}),
            ("csv link, full import json", {"results.json": json.dumps({"schema": "collbench-results/1", "meta": {
                "tool": "nccl-tests", "format": "text"}, "rows": []}), "results.csv": ("link", victim)}),
            ("json link", {"results.json": ("link", victim)}),
            ("json link, csv real", {"results.csv": read(os.path.join(REF, "results.csv")),
                                     "results.json": ("link", victim)}),
            ("summary link", {"summary.md": ("link", victim)})):
        out = os.path.join(work, name.replace(" ", "-").replace(",", ""))
        d = os.path.join(out, "allreduce")
        os.makedirs(d)
        for fname, what in plant.items():
            if isinstance(what, tuple):
                os.symlink(what[1], os.path.join(d, fname))
            else:
                write(os.path.join(d, fname), what)
        p = import_(TEXT, out)
        check(read(victim) == b"precious\n", f"{name}: the link's target is untouched")
        check(p.returncode == 2 or not any(os.path.islink(os.path.join(d, f)) for f in ("results.csv", "results.json")),
              f"{name}: refused, or the links replaced by files (exit {p.returncode}: {p.err.strip()[-200:]})")
        if p.returncode:
            refused(name, p)
    # a collbench run with a planted results.json that says "nccl-tests" is no import
    for name, planted in (("31 bytes", ours), ("schema-complete", json.dumps({
            "schema": "collbench-results/1", "meta": {"tool": "nccl-tests", "format": "json"}, "rows": [],
            "complete": True}))):
        out = os.path.join(work, "run-" + name.replace(" ", "-"))
        shutil.copytree(REF, os.path.join(out, "allreduce"))
        write(os.path.join(out, "allreduce", "results.json"), planted)
        before = read(os.path.join(out, "allreduce", "results.csv"))
        p = import_(TEXT, out)
        refused(f"a collbench run with a {name} nccl-tests results.json", p)
        check(read(os.path.join(out, "allreduce", "results.csv")) == before, f"{name}: the collbench run's CSV kept")
    # DIR/<family> a symlink to another folder: refused, that folder untouched
    elsewhere = os.path.join(work, "elsewhere")
    os.makedirs(elsewhere)
    out = os.path.join(work, "family-link")
    os.makedirs(out)
    os.symlink(elsewhere, os.path.join(out, "allreduce"))
    refused("DIR/allreduce a symlink", import_(TEXT, out))
    check(os.listdir(elsewhere) == [], f"nothing written where DIR/allreduce points: {os.listdir(elsewhere)}")
    # the default folders are predictable names in the current folder: a symlink there is refused
    cwd = os.path.join(work, "cwd")
    os.makedirs(cwd)
    for args, default in (([PLOT, "--nccl-tests", TEXT], "nccl-tests-all_reduce_perf-g2"),
                          ([sys.executable, READER, TEXT], "nccl-tests-all_reduce_perf-g2"),
                          ([PLOT, "--compare", REF, REF], "compare-allreduce-vs-allreduce")):
        target = os.path.join(work, "target-" + default)
        os.makedirs(target, exist_ok=True)
        link = os.path.join(cwd, default)
        os.symlink(target, link)
        p = run(args, cwd=cwd)
        refused(f"{os.path.basename(args[0])} with ./{default} a symlink", p)
        check(os.listdir(target) == [], f"./{default}: nothing written where the link points: {os.listdir(target)}")
        os.remove(link)
        dangling = os.path.join(work, "nowhere-" + default)
        os.symlink(dangling, link)
        refused(f"./{default} a dangling symlink", run(args, cwd=cwd))
        check(not os.path.exists(dangling), f"./{default}: the dangling link's target was not created")
        os.remove(link)
    # an earlier import is still replaced, through plots/plot too (its charts and summary.md beside it)
    again = os.path.join(work, "again")
    check(run([PLOT, "--nccl-tests", TEXT, "--out", again]).returncode == 0, "plots/plot --nccl-tests --out again")
    p = import_(JSONF, again)
    check(p.returncode == 0 and readable(os.path.join(again, "allreduce")),
          f"an earlier import (with charts) is replaced: exit {p.returncode} {p.err.strip()[-200:]}")


def json_variants():
    doc = json_doc()
    r0 = doc["results"][0]

    def with_first(**kw):
        return json.dumps(dict(doc, results=[dict(r0, **kw)] + doc["results"][1:]))

    def group(key, **kw):
        return with_first(**{key: dict(r0[key], **kw)})
    raw = json.dumps(doc)
    return {
        "100000 [": "[" * 100000 + "]" * 100000,
        "100000 [ unclosed": '{"args": ' + "[" * 100000,
        "100000 {": '{"a":' * 100000 + "1" + "}" * 100000,
        "deep inside results": raw.replace('"results": [', '"results": [' + "[" * 5000 + "]" * 5000 + ", ", 1),
        "nwrong 1e999": group("out_of_place", nwrong=1.0).replace('"nwrong": 1.0', '"nwrong": 1e999', 1),
        "nwrong -1e999": group("in_place", nwrong=1.0).replace('"nwrong": 1.0', '"nwrong": -1e999', 1),
        "nwrong NaN": group("out_of_place", nwrong=1.0).replace('"nwrong": 1.0', '"nwrong": NaN', 1),
        "nwrong Infinity": group("in_place", nwrong=1.0).replace('"nwrong": 1.0', '"nwrong": Infinity', 1),
        "bus_bw -Infinity": group("in_place", bus_bw=1.0).replace('"bus_bw": 1.0', '"bus_bw": -Infinity', 1),
        "alg_bw 1e400": group("out_of_place", alg_bw=1.0).replace('"alg_bw": 1.0', '"alg_bw": 1e400', 1),
        "time NaN": group("out_of_place", time=1.0).replace('"time": 1.0', '"time": NaN', 1),
        "size 1e999": with_first(size=1).replace('"size": 1,', '"size": 1e999,', 1),
        "nwrong 10^5000": group("out_of_place", nwrong=1).replace('"nwrong": 1}', '"nwrong": 1' + "0" * 5000 + "}", 1),
    }


def case_json(work):
    """P10: hostile -J JSON: exit 2 with one line, no folder."""
    for name, data in json_variants().items():
        src = write(os.path.join(work, name.replace(" ", "_") + ".json"), data)
        out = os.path.join(work, "o-" + name.replace(" ", "_"))
        refused(f"-J {name}", import_(src, out))
        check(not os.path.exists(out), f"-J {name}: no folder left")
    refused("plots/plot --nccl-tests on 100000 [", run([PLOT, "--nccl-tests", os.path.join(work, "100000_[.json"),
                                                         "--out", os.path.join(work, "p")]))


def case_bounds(work):
    """P12: what the import writes is what its readers take; a runaway table is refused before
    anything is written."""
    text = text_table()
    head, rows = text.split("#        (B)", 1)
    head += "#        (B)" + rows.split("\n", 1)[0] + "\n"
    row = "%12d %13d     float     sum      -1    19.17    0.00    0.00       0    18.65    0.00    0.00       0\n"
    for n in (40000, 200000):  # 80,000 and 400,000 rows: more than one run has
        src = write(os.path.join(work, f"rows{n}.txt"), head + "".join(row % (8 * (i + 1), 2 * (i + 1))
                                                                       for i in range(n)))
        out = os.path.join(work, f"o-rows{n}")
        refused(f"a table of {n} rows", import_(src, out))
        check(not os.path.exists(out), f"a table of {n} rows: nothing written")
    doc = json_doc()
    r0 = doc["results"][0]
    dev0 = doc["config"]["devices"][0]
    variants = {
        "nwrong -5": dict(doc, results=[dict(r0, out_of_place=dict(r0["out_of_place"], nwrong=-5))]),
        "nwrong 0.5": dict(doc, results=[dict(r0, in_place=dict(r0["in_place"], nwrong=0.5))]),
        "count -2": dict(doc, results=[dict(r0, count=-2)]),
        "bus_bw -3": dict(doc, results=[dict(r0, in_place=dict(r0["in_place"], bus_bw=-3.0))]),
        "type newline": dict(doc, results=[dict(r0, type="float\nx")]),
        "redop tab": dict(doc, results=[dict(r0, redop="sum\t")]),
        "type comma": dict(doc, results=[dict(r0, type="flo,at")]),
        "host newline": dict(doc, config=dict(doc["config"], devices=[dict(dev0, hostname="vm\nx")])),
        "gpu name 5000 chars": dict(doc, config=dict(doc["config"], devices=[dict(dev0, device_info="H" * 5000)])),
        "nthreads -1": dict(doc, config=dict(doc["config"], nthreads=-1)),
        "nthreads 0": dict(doc, config=dict(doc["config"], nthreads=0)),
        "nthreads 10^30": dict(doc, config=dict(doc["config"], nthreads=10 ** 30)),
        "ngpus 10^9": dict(doc, config=dict(doc["config"], ngpus=10 ** 9)),
        "10^6 devices": dict(doc, config=dict(doc["config"], devices=[dev0] * 10 ** 6)),
        "iterations -1": dict(doc, config=dict(doc["config"], iterations=-1)),
        "nccl_version a list": dict(doc, nccl_version=[1]),
        "start_time newline": dict(doc, start_time="a\nb"),
    }
    for name, d in variants.items():
        src = write(os.path.join(work, name.replace(" ", "_") + ".json"), json.dumps(d))
        out = os.path.join(work, "o-" + name.replace(" ", "_"))
        p = import_(src, out)
        if p.returncode == 0:
            check(readable(os.path.join(out, "allreduce")), f"-J {name}: written in a form plots/ reads back")
        else:
            refused(f"-J {name}", p)
            check(not os.path.exists(out), f"-J {name}: nothing written")
    first = next(ln for ln in text.splitlines() if ln.strip().startswith("8 "))
    for name, new in (("type \\x01", first.replace("float", "flo\x01at")),
                      ("#wrong -3", first[:-1] + "-3"),
                      ("busbw -1", first.replace("    0.00    0.00       0    18.65", "    0.00   -1.00       0    18.65")),
                      ("size 10^30", first.replace("           8 ", " 1" + "0" * 30 + " ", 1))):
        src = write(os.path.join(work, "t-" + name.replace(" ", "_").replace("\\", "") + ".txt"),
                    text.replace(first, new, 1))
        out = os.path.join(work, "o-t-" + name.replace(" ", "_").replace("\\", ""))
        p = import_(src, out)
        if p.returncode == 0:
            check(readable(os.path.join(out, "allreduce")), f"text {name}: written in a form plots/ reads back")
        else:
            refused(f"text {name}", p)
    rank = next(ln for ln in text.splitlines() if ln.startswith("#  Rank  0"))
    src = write(os.path.join(work, "host-ctl.txt"), text.replace(rank, rank.replace(" vm ", " v\x01m ")))
    p = import_(src, os.path.join(work, "o-host-ctl"))
    check(p.returncode == 2 or readable(os.path.join(work, "o-host-ctl", "allreduce")),
          f"a control character in a Rank line's host: refused or readable (exit {p.returncode})")


def case_names(work):
    """P16: a line break or control character in --out or in the file's name."""
    cwd = os.path.join(work, "cwd")
    os.makedirs(cwd)
    for bad in ("a\nb", "a\rb", "x\x1bz", "nl-at-end\n"):
        for args in ([sys.executable, READER, "--out", bad, TEXT], [PLOT, "--nccl-tests", TEXT, "--out", bad]):
            refused(f"{os.path.basename(args[1] if args[0] == sys.executable else args[0])} --out {bad!r}",
                    run(args, cwd=cwd))
        src = os.path.join(work, f"all_reduce{bad}.txt")
        shutil.copy(TEXT, src)
        for args in ([sys.executable, READER, src], [PLOT, "--nccl-tests", src]):
            refused(f"{os.path.basename(args[0])} on a file named {os.path.basename(src)!r} (default DIR)",
                    run(args, cwd=cwd))
        check(os.listdir(cwd) == [], f"{bad!r}: nothing created in the current folder: {os.listdir(cwd)}")


def one_gpu_log(work):
    return write(os.path.join(work, "one-gpu.log"), "== one H200\n" + read(ONE_GPU).decode())


def case_compare(work):
    """P18: compare_nccl_tests.py's inputs."""
    good = os.path.join(REF, "results.csv")
    section = "== mpirun 2 ranks all_reduce"
    args = lambda csv_path, *rest: [sys.executable, COMPARE, SECTIONS, section, csv_path, "allreduce", "float", *rest]
    os.makedirs(os.path.join(work, "a-folder"))
    with open(good, newline="") as f:
        rows = list(csv.DictReader(f))
    edited = os.path.join(work, "bytes-1e3.csv")
    with open(edited, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow(dict(r, bytes="1e3") if r["bytes"] == "1024" else r)
    os.symlink(good, os.path.join(work, "link.csv"))
    for name, path in (("a missing CSV", os.path.join(work, "nope.csv")),
                       ("a non-UTF-8 CSV", write(os.path.join(work, "latin1.csv"), read(good)[:300] + b"\xff\xfe\n")),
                       ("a folder as CSV", os.path.join(work, "a-folder")),
                       ("a symlinked CSV", os.path.join(work, "link.csv")),
                       ("an empty CSV", write(os.path.join(work, "empty.csv"), b"")),
                       ("bytes 1e3", edited),
                       ("a CSV of digits '٨'", write(os.path.join(work, "digits.csv"),
                                                     read(good).replace(b"allreduce,nccl,float,sum,1024,",
                                                                       "allreduce,nccl,float,sum,١٠٢٤,".encode(), 1)))):
        refused(f"compare_nccl_tests.py with {name}", run(args(path)))
    refused("compare_nccl_tests.py with MODE 'eagre'", run(args(good, "eagre")))
    refused("compare_nccl_tests.py with FAMILY 'allredcue'",
            run([sys.executable, COMPARE, SECTIONS, section, good, "allredcue", "float"]))
    refused("compare_nccl_tests.py with nothing in common (bfloat16 eager)",
            run([sys.executable, COMPARE, SECTIONS, section, good, "allreduce", "bfloat16"]))
    os.symlink(SECTIONS, os.path.join(work, "log-link"))
    refused("compare_nccl_tests.py with a symlinked log",
            run([sys.executable, COMPARE, os.path.join(work, "log-link"), section, good, "allreduce", "float"]))
    # one GPU: nccl-tests' busbw is 0 (nothing crosses a link); judged by time, no division by 0
    p = run([sys.executable, COMPARE, one_gpu_log(work), "== one H200", os.path.join(REF1, "results.csv"),
             "allreduce", "float"])
    check(p.returncode in (0, 1) and "Traceback" not in p.err and "sizes compared" in p.out and "busbw 0" in p.out,
          f"one-GPU log against the one-GPU reference: a comparison by time (exit {p.returncode}: {p.err[-300:]!r})")


def case_digits(work):
    """P26: digits that are not ASCII are no numbers in an nccl-tests table."""
    text = text_table()
    first = next(ln for ln in text.splitlines() if ln.strip().startswith("8 "))
    for name, new in (("size '٨'", first.replace("           8 ", "           ٨ ", 1)),
                      ("size '８'", first.replace("           8 ", "           ８ ", 1)),
                      ("count '²'", first.replace("             2 ", "             ² ", 1)),
                      ("time '١٩.١٧'", first.replace("19.17", "١٩.١٧", 1)),
                      ("#wrong '٠'", first[:-1] + "٠"),
                      ("size '1_000'", first.replace("           8 ", "       1_000 ", 1))):
        only = write(os.path.join(work, "only.txt"), new + "\n")
        out = os.path.join(work, "o-only")
        p = import_(only, out)
        refused(f"a lone row with {name}", p)
        src = write(os.path.join(work, "table.txt"), text.replace(first, new, 1))
        p = import_(src, os.path.join(work, "o-table"))
        if name.startswith("size") and p.returncode == 0:  # not a number: not a row (a log line)
            with open(os.path.join(work, "o-table", "allreduce", "results.csv")) as f:
                sizes = {r["bytes"] for r in csv.DictReader(f)}
            check("8" not in sizes and "1000" not in sizes, f"a table row with {name} is not read as a size")
        else:
            refused(f"a table row with {name}", p)
        shutil.rmtree(os.path.join(work, "o-table"), ignore_errors=True)


CASES = {"links": case_links, "json": case_json, "bounds": case_bounds, "names": case_names,
         "compare": case_compare, "digits": case_digits}


def main(argv):
    name, rc = test_nccl_tests.run_case(argv, CASES)
    if name:
        print(f"nccl-tests hostile {name}: {len(failures)} failure(s)")
    return 1 if failures else rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
