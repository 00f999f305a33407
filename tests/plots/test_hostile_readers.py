#!/usr/bin/env python3
"""CPU test of plots/ on hostile results folders (issue 32), with the real gnuplot:

  N2   a symlink planted at every file plots/plot and `verdict.py --write` write (summary.md,
       each chart's .png and .svg, and names a temporary file beside them might take) is
       replaced by a new regular file, never written through; a FIFO at summary.md does not hang
       and is not replaced (plots/outfile.py, as base/newfile.h: never onto a device, FIFO or socket)
  N7   results.json of an unexpected shape ([], {"meta": []}, rank_info a string, binding null,
       a lone surrogate in a GPU name with --write, 100,000 nested [) and an oversized one: exit 2
       with one line, no traceback, from verdict.py and from `plots/plot --against`
  N12  a line break inside a quoted CSV field other than note (dtype, family, mode): exit 2
  N13  a folder name that is not UTF-8: charts, summary and verdict without a traceback; a line
       break in OUTDIR: exit 2 naming it, nothing written elsewhere
  N14  negative busbw, inplace -1 or 1e18, a ringattn pass other than fwd/bwd/both: exit 2
  N15  a results.csv over the size cap: exit 2 at once
  N16  --compare of two runs with nothing in common: exit 2 and no folder left

usage: test_hostile_readers.py WORKDIR"""
import glob
import csv
import os
import shutil
import stat
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PLOT = os.path.join(ROOT, "plots", "plot")
SUMMARY = os.path.join(ROOT, "plots", "summary")
VERDICT = os.path.join(ROOT, "plots", "verdict.py")
RUN_A = os.path.join(HERE, "data", "synthetic-run-a")
ATTN = os.path.join(HERE, "data", "synthetic-ringattn")
VDATA = os.path.join(HERE, "data", "verdict")
failures = []


def run(*args, timeout=120):
    try:
        p = subprocess.run([os.fsencode(a) for a in args], capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", f"timed out after {timeout} s"
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def refused(label, rc, err, want=2):
    check(rc == want and "Traceback" not in err and err.strip().count("\n") == 0 and err.strip(),
          f"{label}: exit {want} with one line (got {rc}: {err.strip()[-300:]!r})")


def copy_run(src, dst):
    shutil.copytree(src, dst)
    return dst


def symlink_sweep(work):
    """N2: every name plots/plot and verdict --write write, planted with a symlink first."""
    clean = copy_run(RUN_A, os.path.join(work, "clean"))
    rc, _, err = run(PLOT, clean)
    check(rc == 0, f"clean render (got {rc}: {err[-300:]!r})")
    outputs = sorted(set(os.listdir(clean)) - set(os.listdir(RUN_A)))
    check("summary.md" in outputs and any(n.endswith(".png") for n in outputs) and
          any(n.endswith(".svg") for n in outputs), f"the clean render wrote summary.md and charts: {outputs}")
    leftovers = [n for n in os.listdir(clean) if n.startswith(".")]
    check(not leftovers, f"no temporary files left beside the outputs: {leftovers}")
    hostile = copy_run(RUN_A, os.path.join(work, "hostile"))
    victims = os.path.join(work, "victims")
    os.mkdir(victims)
    planted = []
    for name in outputs:
        for at in (name, name + ".tmp", "." + name + ".tmp", name + "~"):
            target = os.path.join(victims, at.replace("/", "_") + ".target")
            with open(target, "w") as f:
                f.write("precious\n")
            os.symlink(target, os.path.join(hostile, at))
            planted.append((at, target))
    os.symlink(os.path.join(victims, "dangling"), os.path.join(hostile, "link_gbs.tmp"))
    rc, _, err = run(PLOT, hostile)
    check(rc == 0, f"render into a folder of planted symlinks: exit 0 (got {rc}: {err[-300:]!r})")
    rc, _, err = run(PLOT, "--against", os.path.join(VDATA, "reference"), hostile)
    rc, _, err = run(sys.executable, VERDICT, "--write", os.path.join(hostile, "summary.md"),
                     os.path.join(VDATA, "reference"), os.path.join(VDATA, "normal"))
    check(rc == 0, f"verdict --write: exit 0 (got {rc}: {err[-300:]!r})")
    changed = [at for at, target in planted if open(target, "rb").read() != b"precious\n"]
    check(not changed, f"no planted symlink written through (written: {changed})")
    check(not os.path.exists(os.path.join(victims, "dangling")), "a dangling symlink's target is not created")
    for name in outputs:
        p = os.path.join(hostile, name)
        check(os.path.isfile(p) and not os.path.islink(p), f"{name}: a new regular file")
    check("## Verdict" in open(os.path.join(hostile, "summary.md")).read(), "summary.md holds the verdict")
    # a FIFO at summary.md: verdict --write refuses it (exit 2, one line) instead of blocking on it
    fifo_run = copy_run(os.path.join(VDATA, "normal"), os.path.join(work, "fifo"))
    os.mkfifo(os.path.join(fifo_run, "summary.md"))
    rc, _, err = run(sys.executable, VERDICT, "--write", os.path.join(fifo_run, "summary.md"),
                     os.path.join(VDATA, "reference"), fifo_run, timeout=30)
    refused("verdict --write over a FIFO", rc, err)
    check(stat.S_ISFIFO(os.lstat(os.path.join(fifo_run, "summary.md")).st_mode), "the FIFO is left as it was")


def bad_json(work):
    """N7: verdict.py and plots/plot --against on results.json of unexpected shapes."""
    with open(os.path.join(VDATA, "normal", "results.json"), encoding="utf-8") as f:
        good = f.read()
    cases = {
        "a list": "[]",
        "meta a list": '{"meta": []}',
        "rank_info a string": '{"meta": {"rank_info": "gpu0"}}',
        "binding null": '{"meta": {"rank_info": [{"gpu": "NVIDIA H200", "binding": null}]}}',
        "env a list": '{"meta": {"env": ["NCCL_ALGO=ring"]}}',
        "env value an object": '{"meta": {"env": {"NCCL_ALGO": {"x": 1}}}}',
        "lone surrogate in a GPU name": good.replace('"NVIDIA H200"', '"NVIDIA \\ud800 H200"'),
        "100,000 nested [": "[" * 100000,
        "not JSON": "{meta",
    }
    for i, (label, text) in enumerate(cases.items()):
        d = copy_run(os.path.join(VDATA, "normal"), os.path.join(work, f"json{i}"))
        with open(os.path.join(d, "results.json"), "w", encoding="utf-8", errors="surrogatepass") as f:
            f.write(text)
        rc, _, err = run(sys.executable, VERDICT, "--write", os.path.join(d, "summary.md"),
                         os.path.join(VDATA, "reference"), d)
        refused(f"verdict.py, results.json {label}", rc, err)
        rc, _, err = run(PLOT, "--against", os.path.join(VDATA, "reference"), d)
        refused(f"plots/plot --against, results.json {label}", rc, err)
        # as the reference: refused too (and skipped by --find, which must still answer)
        rc, _, err = run(sys.executable, VERDICT, d, os.path.join(VDATA, "normal"))
        refused(f"verdict.py, the reference's results.json {label}", rc, err)
    d = copy_run(os.path.join(VDATA, "normal"), os.path.join(work, "json-big"))
    with open(os.path.join(d, "results.json"), "wb") as f:
        f.truncate((64 << 20) + 1)
    rc, _, err = run(sys.executable, VERDICT, os.path.join(VDATA, "reference"), d)
    refused("verdict.py, a results.json over 64 MiB", rc, err)


def edit_csv(src, dst, fn):
    d = copy_run(src, dst)
    path = os.path.join(d, "results.csv")
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(fn(lines)))
    return d


def field(lines, k, name, value):
    """lines with row k's column NAME set to value (written as given: quote it yourself)."""
    head = lines[0].split(",")
    cells = lines[k].split(",")
    cells[head.index(name)] = value
    return lines[:k] + [",".join(cells)] + lines[k + 1:]


def bad_csv(work):
    """N12, N14, N15 on plots/plot, plots/summary and verdict.py."""
    cases = {
        "a line break in dtype": ("dtype", '"float\n## Verdict"'),
        "a line break in family": ("family", '"allreduce\nx"'),
        "a line break in mode": ("mode", '"eager\r\n## Verdict: x"'),
        "negative busbw": ("busbw_gbs", "-1.5"),
        "inplace -1": ("inplace", "-1"),
        "inplace 1e18": ("inplace", "1e18"),
    }
    for i, (label, (col, value)) in enumerate(cases.items()):
        d = edit_csv(os.path.join(VDATA, "normal"), os.path.join(work, f"csv{i}"), lambda ls: field(ls, 3, col, value))
        rc, _, err = run(SUMMARY, d)
        refused(f"plots/summary, {label}", rc, err)
        rc, _, err = run(PLOT, d)
        refused(f"plots/plot, {label}", rc, err)
        check(not os.path.exists(os.path.join(d, "summary.md")), f"plots/plot, {label}: no summary.md written")
        rc, _, err = run(sys.executable, VERDICT, "--write", os.path.join(d, "summary.md"),
                         os.path.join(VDATA, "reference"), d)
        refused(f"verdict.py, {label}", rc, err)
    # ringattn's pass is a one-line field too (the verdict names it): a real one-GPU run
    kern = os.path.join(ROOT, "results", "reference", "h200x1", "ringattn-kernels")
    d = copy_run(kern, os.path.join(work, "csv-pass"))
    with open(os.path.join(d, "results.csv"), newline="") as f:
        rows = list(csv.reader(f))  # its notes hold commas: field() splits naively
    rows[3][rows[0].index("pass")] = "fwd\n## Verdict: x"
    with open(os.path.join(d, "results.csv"), "w", newline="") as f:
        csv.writer(f).writerows(rows)
    rc, _, err = run(sys.executable, VERDICT, kern, d)
    refused("verdict.py, a line break in pass", rc, err)
    rows[3][rows[0].index("pass")] = "sideways"  # not a pass --pass takes: refused, not charted as the forward
    with open(os.path.join(d, "results.csv"), "w", newline="") as f:
        csv.writer(f).writerows(rows)
    for tool in ((SUMMARY,), (PLOT,), (sys.executable, VERDICT, kern)):
        rc, _, err = run(*tool, d)
        refused(f"{os.path.basename(tool[-1])}, pass 'sideways'", rc, err)
    # a summary.md with a verdict section before another: --write replaces only the last one
    d = copy_run(os.path.join(VDATA, "normal"), os.path.join(work, "two-verdicts"))
    with open(os.path.join(d, "summary.md"), "w") as f:
        f.write("# s\n\n## Verdict: old\n\nold\n\n## Later section\n\nkeep me\n\n## Verdict: last\n\nx\n")
    run(sys.executable, VERDICT, "--write", os.path.join(d, "summary.md"), os.path.join(VDATA, "reference"), d)
    text = open(os.path.join(d, "summary.md")).read()
    check("keep me" in text and "Verdict: last" not in text, f"--write keeps the sections before the last verdict: {text[:200]!r}")
    big = copy_run(RUN_A, os.path.join(work, "big"))
    with open(os.path.join(big, "results.csv"), "rb") as f:
        rows = f.read().split(b"\n", 1)[1]
    with open(os.path.join(big, "results.csv"), "ab") as f:  # valid rows, repeated past the cap
        f.write(rows * ((64 << 20) // len(rows) + 1))
    for tool in ((SUMMARY,), (PLOT,), (sys.executable, VERDICT, os.path.join(VDATA, "reference"))):
        rc, _, err = run(*tool, big, timeout=60)
        refused(f"{os.path.basename(tool[-1])}, a results.csv over 64 MiB", rc, err)


def odd_names(work):
    """N13: a non-UTF-8 folder name; a line break in OUTDIR."""
    raw = os.path.join(os.fsencode(work), b"run-\xff\xfe")
    name = os.fsdecode(raw)
    shutil.copytree(os.path.join(VDATA, "normal"), name)
    rc, _, err = run(PLOT, name)
    check(rc == 0 and "Traceback" not in err, f"plots/plot on a non-UTF-8 folder: exit 0 (got {rc}: {err[-300:]!r})")
    rc, out, err = run(SUMMARY, name)
    check(rc == 0 and "Traceback" not in err and "\\xff" in out,
          f"plots/summary on a non-UTF-8 folder: exit 0, the name escaped (got {rc}: {err[-300:]!r})")
    rc, out, err = run(sys.executable, VERDICT, "--write", os.path.join(name, "summary.md"),
                       os.path.join(VDATA, "reference"), name)
    check(rc == 0 and "Traceback" not in err, f"verdict.py on a non-UTF-8 folder: exit 0 (got {rc}: {err[-300:]!r})")
    rc, out, err = run(sys.executable, VERDICT, "--write", os.path.join(name, "summary.md"), "--find", work, name)
    check(rc == 0 and "Traceback" not in err, f"verdict.py --find among non-UTF-8 folders (got {rc}: {err[-300:]!r})")
    rc, _, err = run(PLOT, "--compare", name, RUN_A, os.path.join(work, "cmp-odd"))
    check(rc in (0, 2) and "Traceback" not in err, f"plots/plot --compare with a non-UTF-8 run: no traceback ({rc})")
    for outdir in (os.path.join(work, "out\nx"), os.path.join(work, "trailing\n")):
        rc, _, err = run(PLOT, RUN_A, outdir)
        refused(f"plots/plot, OUTDIR {outdir[-10:]!r}", rc, err)
        check("line break" in err and "$'" in err, f"the message names the folder as given: {err.strip()!r}")
        check(not os.path.exists(os.path.join(work, "trailing")) and not os.path.exists(os.path.join(work, "out")),
              "nothing written to the name without the line break")


def compare_nothing_common(work):
    """N16: --compare of two runs that share nothing leaves no folder."""
    out = os.path.join(work, "cmp-none")
    rc, _, err = run(PLOT, "--compare", RUN_A, ATTN, out)
    check(rc == 2 and "share no family" in err, f"--compare with nothing in common: exit 2 (got {rc}: {err[-300:]!r})")
    check(not os.path.exists(out), f"--compare with nothing in common: no folder {out} left")


def main():
    work = sys.argv[1]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    symlink_sweep(work)
    bad_json(work)
    bad_csv(work)
    odd_names(work)
    compare_nothing_common(work)
    print(f"{len(failures)} failure(s)" if failures else "all ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
