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
and issue 42's readers (plots/infile.py), each its own CASE:
  links   P7   link_gbs (and limits.json, results.csv, results.json) a symlink to a secret, or
               a regular file of 4 KB of text: exit 2 from plots/plot, plots/summary and
               verdict.py with one short line that quotes neither; a symlink to a valid file
               is refused too (never followed); a summary.md that is not UTF-8, read before its
               verdict section is kept, is refused and left as it was
  limits  P11  limits.json nested 100,000 deep, a NIC name that is a number, null, a list, an
          P24  object or 5,000 characters on a 2-node run; link_gbs and --link of 1e-300, 1e300,
               0 and 1e-5, limits.json nvlink_gbs 1e300, NIC gbs 1e-300, PCIe gen 4.0, 7 or
               "5", width 0.001 or 1000, in limits.json and in results.json's meta.limits:
               exit 2 with one line, never a traceback or a 300-digit percentage
  ab      P19  tools/compare_ab.py: a row shorter or longer than the header, files named
               t3-main-x-².csv or -٣.csv (no repetition), a name with '|': exit 2 with one line
               or the file left out, never a traceback
  digits  P26  a results CSV with '٨', '８', '²', '1_000' or ' 8' in bytes, time_us_mean or
               busbw_gbs, a link_gbs of '٤٧٨': exit 2 with one line (int() and float() took them)

usage: test_hostile_readers.py [CASE] WORKDIR   (no CASE: the issue-32 sweep N2..N16)"""
import glob
import csv
import json
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
TWO_NODES = os.path.join(ROOT, "results", "reference", "h200x2-2nodes", "allreduce")
COMPARE_AB = os.path.join(ROOT, "tools", "compare_ab.py")
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


def readers_of(run_dir):
    """The three readers of a results folder: plots/plot, plots/summary, verdict.py against the
    verdict fixtures' reference. (label, argv) pairs."""
    return (("plots/plot", (PLOT, run_dir, run_dir)), ("plots/summary", (SUMMARY, run_dir)),
            ("verdict.py", (sys.executable, VERDICT, os.path.join(VDATA, "reference"), run_dir)))


def case_links(work):
    """P7: a file of a results folder is never read through a symlink, and a message never
    echoes more than a short excerpt of what it read."""
    secret = os.path.join(work, "shadow")
    with open(secret, "w") as f:
        f.write("root:SECRET-HASH-$6$abcdefgh:19000:0:99999:7:::\n" * 80)
    valid = os.path.join(work, "valid_gbs")
    with open(valid, "w") as f:
        f.write("478\n")
    for fname, target in (("link_gbs", secret), ("link_gbs", valid), ("limits.json", secret),
                          ("results.json", secret), ("results.csv", os.path.join(RUN_A, "results.csv"))):
        d = copy_run(os.path.join(VDATA, "normal"), os.path.join(work, f"{fname}-{os.path.basename(target)}"))
        os.remove(os.path.join(d, fname)) if os.path.lexists(os.path.join(d, fname)) else None
        os.symlink(target, os.path.join(d, fname))
        for label, argv in readers_of(d):
            if fname in ("limits.json", "results.json") and label != "verdict.py":
                continue  # only the verdict reads them
            rc, out, err = run(*argv)
            refused(f"{label}, {fname} a symlink to {os.path.basename(target)}", rc, err)
            check("SECRET" not in err + out, f"{label}: the link's target is not shown")
    # summary.md, read before it is rewritten (its verdict section is kept): bytes that are not
    # UTF-8 are refused with one line and the file is left as it was, never rewritten with them replaced
    old = b"# summary\n\n## Verdict: allreduce\n\n**OK** \xff\xfe kept\n"
    d = copy_run(os.path.join(VDATA, "normal"), os.path.join(work, "summary-not-utf8"))
    with open(os.path.join(d, "summary.md"), "wb") as f:
        f.write(old)
    for label, argv in (("plots/plot", (PLOT, d)),
                        ("verdict.py --write", (sys.executable, VERDICT, "--write", os.path.join(d, "summary.md"),
                                                os.path.join(VDATA, "reference"), d))):
        rc, out, err = run(*argv)
        refused(f"{label}, summary.md not UTF-8", rc, err)
        check("not UTF-8" in err, f"{label}: says why ({err.strip()[-200:]!r})")
        check(open(os.path.join(d, "summary.md"), "rb").read() == old, f"{label}: summary.md left as it was")
    for name, text in (("4 KB of text", "x" * 60 + "SECRET" + "y" * 4000), ("a line break", "478\n" + "." * 50 + "SECRET\n"),
                       ("control characters", "\x1b[2J\x07" + "." * 50 + "SECRET")):
        d = copy_run(RUN_A, os.path.join(work, "linktext-" + name.replace(" ", "-")))
        with open(os.path.join(d, "link_gbs"), "w") as f:
            f.write(text)
        for label, argv in readers_of(d):
            rc, out, err = run(*argv)
            refused(f"{label}, link_gbs holding {name}", rc, err)
            check(len(err) < 400 and "SECRET" not in err and "\x1b" not in err,
                  f"{label}: a short excerpt of link_gbs at most ({len(err)} characters: {err[:200]!r})")


def case_limits(work):
    """P11 and P24: limits.json, meta.limits, link_gbs and --link in and out of range."""
    two = copy_run(TWO_NODES, os.path.join(work, "two-nodes"))
    verdict_of = lambda d: run(sys.executable, VERDICT, TWO_NODES if d.startswith(two) else
                               os.path.join(VDATA, "reference"), d)
    for name, lim in (("100000 deep", '{"nics": ' + "[" * 100000 + "]" * 100000 + "}"),
                      ("100000 deep, unclosed", '{"pcie": ' + "{\"a\": " * 100000),
                      ("NIC name 5", '{"nics": [{"name": 5, "gbs": null}]}'),
                      ("NIC name null", '{"nics": [{"name": null, "gbs": null}]}'),
                      ("NIC name a list", '{"nics": [{"name": ["mlx5_0"], "gbs": null}]}'),
                      ("NIC name an object", '{"nics": [{"name": {"a": 1}, "gbs": 25}]}'),
                      ("NIC name 5000 chars", '{"nics": [{"name": "' + "n" * 5000 + '", "gbs": null}]}'),
                      ("NIC name a line break", '{"nics": [{"name": "mlx5\\n0", "gbs": null}]}'),
                      ("NIC gbs 1e-300", '{"nics": [{"name": "mlx5_0", "gbs": 1e-300}]}'),
                      ("NIC gbs 1e300", '{"nics": [{"name": "mlx5_0", "gbs": 1e300}]}'),
                      ("NIC gbs 1e999", '{"nics": [{"name": "mlx5_0", "gbs": 1e999}]}'),
                      ("NIC gbs NaN", '{"nics": [{"name": "mlx5_0", "gbs": NaN}]}')):
        d = copy_run(TWO_NODES, os.path.join(two, name.replace(" ", "-")))
        with open(os.path.join(d, "limits.json"), "w") as f:
            f.write(lim)
        rc, out, err = verdict_of(d)
        refused(f"verdict.py, a 2-node run's limits.json with {name}", rc, err)
    one = os.path.join(VDATA, "normal")
    for name, lim in (("nvlink_gbs 1e300", {"nvlink_gbs": 1e300}), ("nvlink_gbs 1e-300", {"nvlink_gbs": 1e-300}),
                      ("nvlink_gbs -478", {"nvlink_gbs": -478}), ("pcie gen 4.0", {"pcie": {"gen": 4.0, "width": 16}}),
                      ("pcie gen 7", {"pcie": {"gen": 7, "width": 16}}), ("pcie gen '5'", {"pcie": {"gen": "5", "width": 16}}),
                      ("pcie width 0.001", {"pcie": {"gen": 5, "width": 0.001}}),
                      ("pcie width 1000", {"pcie": {"gen": 5, "width": 1000}}),
                      ("nvlink_links 10^9", {"nvlink_gbs": 478, "nvlink_links": 10 ** 9})):
        for where in ("limits.json", "meta.limits"):
            d = copy_run(one, os.path.join(work, f"{where}-{name}".replace(" ", "-").replace("'", "")))
            if where == "limits.json":
                with open(os.path.join(d, "limits.json"), "w") as f:
                    json.dump(lim, f)
            else:
                with open(os.path.join(d, "results.json")) as f:
                    doc = json.load(f)
                doc.setdefault("meta", {})["limits"] = lim
                with open(os.path.join(d, "results.json"), "w") as f:
                    json.dump(doc, f)
            rc, out, err = verdict_of(d)
            refused(f"verdict.py, {where} with {name}", rc, err)
    for value in ("1e-300", "1e300", "0", "1e-5", "-478", "inf", "٤٧٨", "478 GB/s"):
        d = copy_run(RUN_A, os.path.join(work, "link-" + value.replace("/", "_").replace(" ", "_")))
        with open(os.path.join(d, "link_gbs"), "w") as f:
            f.write(value + "\n")
        for label, argv in readers_of(d):
            rc, out, err = run(*argv)
            refused(f"{label}, link_gbs {value}", rc, err)
        rc, out, err = run(PLOT, "--link", value, RUN_A, os.path.join(work, "out-link"))
        refused(f"plots/plot --link {value}", rc, err)
    d = copy_run(RUN_A, os.path.join(work, "link-ok"))
    with open(os.path.join(d, "link_gbs"), "w") as f:
        f.write("478\n")
    rc, out, err = run(SUMMARY, d)
    check(rc == 0 and "Limit: NVLink 478 GB/s" in out, f"link_gbs 478 still read (got {rc}: {err[-200:]!r})")


def case_ab(work):
    """P19: tools/compare_ab.py on short and long rows and odd file names."""
    head = "family,algo,dtype,mode,tokens,phase,time_us_mean,remote_gbs,wrong\n"
    good = "moe,peer,bfloat16,graph,128,roundtrip,10.0,1,0\n"
    for name, files in (("a short row", {"x-a-1.csv": head + good, "x-b-1.csv": head + "moe,peer,bfloat16\n"}),
                        ("a row of one field", {"x-a-1.csv": head + good, "x-b-1.csv": head + "moe\n"}),
                        ("short rows with their time", dict.fromkeys(("x-a-1.csv", "x-b-1.csv"),
                         "time_us_mean,wrong,family,algo,dtype,mode,tokens,phase\n10.0,0,moe\n")),
                        ("a long row", {"x-a-1.csv": head + good, "x-b-1.csv": head + good[:-1] + ",extra\n"}),
                        ("a '|' in algo", {"x-a-1.csv": head + good, "x-b-1.csv": head + good.replace("peer", "pe|er")}),
                        ("a line break in a quoted name", {"x-a-1.csv": head + good,
                                                           "x-b-1.csv": head + good.replace("peer", '"pe\ner"')})):
        d = os.path.join(work, "ab-" + name.replace(" ", "-").replace("'", "").replace("|", "bar"))
        os.makedirs(d)
        for fname, text in files.items():
            with open(os.path.join(d, fname), "w") as f:
                f.write(text)
        rc, out, err = run(sys.executable, COMPARE_AB, d, "a", "b")
        refused(f"compare_ab.py, {name}", rc, err)
    for odd in ("²", "٣", "３", "1²"):
        d = os.path.join(work, "ab-name-" + odd)
        os.makedirs(d)
        for fname in ("t3-a-x-1.csv", "t3-b-x-1.csv", f"t3-b-x-{odd}.csv"):
            with open(os.path.join(d, fname), "w") as f:
                f.write(head + (good.replace("10.0", "99.0") if odd in fname else good))
        rc, out, err = run(sys.executable, COMPARE_AB, d, "a", "b")
        check(rc == 0 and "Traceback" not in err and "99.00" not in out and "| 10.00 | 10.00 |" in out,
              f"compare_ab.py: t3-b-x-{odd}.csv is no repetition, left out (got {rc}: {err[-200:]!r} {out[-200:]!r})")


def case_digits(work):
    """P26: a number of a results CSV or link_gbs is ASCII decimal digits only."""
    with open(os.path.join(RUN_A, "results.csv"), encoding="utf-8") as f:
        head, first, rest = f.read().split("\n", 2)
    col = head.split(",")
    fields = first.split(",")
    for column in ("bytes", "time_us_mean", "busbw_gbs", "inplace"):
        i = col.index(column)
        for digits in ("٨", "８", "²", "1_000", "๘", "\u0968"):
            edited = list(fields)
            edited[i] = digits
            d = os.path.join(work, f"{column}-{digits.encode('unicode_escape').decode()}".replace("\\", ""))
            os.makedirs(d)
            with open(os.path.join(d, "results.csv"), "w", encoding="utf-8") as f:
                f.write(head + "\n" + ",".join(edited) + "\n" + rest)
            for label, argv in readers_of(d):
                rc, out, err = run(*argv)
                refused(f"{label}, {column} {digits!r}", rc, err)
    d = copy_run(RUN_A, os.path.join(work, "link-digits"))
    with open(os.path.join(d, "link_gbs"), "w", encoding="utf-8") as f:
        f.write("٤٧٨\n")
    rc, out, err = run(SUMMARY, d)
    refused("plots/summary, link_gbs '٤٧٨'", rc, err)


CASES = {"links": case_links, "limits": case_limits, "ab": case_ab, "digits": case_digits}


def main(argv):
    if len(argv) == 3 and argv[1] in CASES:
        case, work = CASES[argv[1]], argv[2]
    elif len(argv) == 2:
        case, work = None, argv[1]
    else:
        print(f"usage: {argv[0]} [{'|'.join(CASES)}] WORKDIR", file=sys.stderr)
        return 2
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    if case:
        case(work)
    else:
        symlink_sweep(work)
        bad_json(work)
        bad_csv(work)
        odd_names(work)
        compare_nothing_common(work)
    print(f"{len(failures)} failure(s)" if failures else "all ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
