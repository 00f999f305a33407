#!/usr/bin/env python3
"""CPU tests of the nccl-tests reader (plots/nccl_tests.py), plots/plot --nccl-tests and
tools/compare_nccl_tests.py on real nccl-tests output (data/nccl-tests/: excerpts of the
2 x H200 logs, and the -J JSON of the same run; its README says where each comes from).
Bad input must exit 2 with one line on stderr and no traceback.
usage: test_nccl_tests.py CASE WORKDIR   (CASE: see CASES at the bottom; WORKDIR is wiped first)
"""
import csv
import json
import os
import shutil
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
REF = os.path.join(ROOT, "results", "reference", "h200x2", "allreduce")
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import imagecheck  # noqa: E402
from test_plots import expect, expect_rc, run  # noqa: E402  (no traceback allowed on stderr)


def rows_of(folder):
    with open(os.path.join(folder, "results.csv"), newline="") as f:
        return list(csv.DictReader(f))


def meta_of(folder):
    with open(os.path.join(folder, "results.json")) as f:
        return json.load(f)["meta"]


def import_(work, src, name, *extra):
    out = os.path.join(work, name)
    p = run([sys.executable, READER, "--out", out, *extra, src])
    expect_rc(p, 0, f"nccl_tests.py {src}")
    return out, p.stdout.split()


def case_text(work):
    """The text table of a real run: 31 sizes x out-of-place/in-place, its numbers, ranks, GPU."""
    out, made = import_(work, TEXT, "text")
    expect(made == [os.path.join(out, "allreduce")], f"folders: {made}")
    rows = rows_of(made[0])
    expect(len(rows) == 62, f"{len(rows)} rows, expected 62")
    last = [r for r in rows if r["bytes"] == "8589934592"]
    expect([(r["inplace"], r["time_us_mean"], r["busbw_gbs"], r["count"]) for r in last] ==
           [("0", "24664.8", "348.27", "2147483648"), ("1", "24780.8", "346.64", "2147483648")], f"8 GiB rows: {last}")
    expect({(r["family"], r["algo"], r["dtype"], r["op"], r["ranks"], r["nodes"], r["gpu"], r["mode"], r["iters"],
             r["wrong"]) for r in rows} == {("allreduce", "nccl-tests", "float", "sum", "2", "1", "NVIDIA H200",
                                             "eager", "20", "0")}, "constant columns differ")
    m = meta_of(made[0])
    expect((m["tool"], m["format"], m["ranks"], m["hosts"], m["program"]) ==
           ("nccl-tests", "text", 2, ["vm"], "all_reduce_perf"), f"meta: {m}")
    expect([ri["pci_busid"] for ri in m["rank_info"]] == ["0000:00:06", "0000:00:07"], f"rank_info: {m}")
    # 2.19.6 prints its versions just before "starting" (this excerpt's binary did not): kept for that run
    with open(TEXT) as f:
        versioned = write(work, "versioned.txt", "# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22803\n"
                          + f.read())
    m = meta_of(import_(work, versioned, "versioned")[1][0])
    expect((m["nccl_tests_version"], m["nccl_headers_code"], m["nccl_version_code"]) == ("2.19.6", 22809, 22803),
           f"versions: {m}")


def case_json(work):
    """The -J file of the same run gives the same rows as its text table; the committed file is
    what make_nccl_json_fixture.py writes."""
    regen = os.path.join(work, "regen.json")
    expect_rc(run([sys.executable, os.path.join(HERE, "make_nccl_json_fixture.py"), regen]), 0, "generator")
    with open(regen, "rb") as a, open(JSONF, "rb") as b:
        expect(a.read() == b.read(), f"{JSONF} is not what make_nccl_json_fixture.py writes")
    _, (t,) = import_(work, TEXT, "text")
    _, (j,) = import_(work, JSONF, "json")
    expect(rows_of(t) == rows_of(j), "JSON rows differ from the text rows of the same run")
    m = meta_of(j)
    # one "devices" entry per process, nthreads 1 x ngpus 2 each: 2 ranks
    expect((m["format"], m["ranks"], m["gpu"], m["mode"], m["iters"], m["env"]) ==
           ("json", 2, "NVIDIA H200", "eager", 20, {"NCCL_NVLS_ENABLE": "0", "NCCL_DEBUG": "INFO"}), f"meta: {m}")
    expect(m["program"] == "./build/all_reduce_perf", f"program: {m['program']}")


def case_sections(work):
    """A log of several tables (headers cut away): one folder per collective, named by the
    'concluded' lines; N/A #wrong (sendrecv in place) is an empty wrong column."""
    out, made = import_(work, SECTIONS, "sections")
    expect([os.path.basename(d) for d in made] == ["allgather", "allreduce", "reducescatter", "sendrecv"],
           f"folders: {made}")
    ar = rows_of(os.path.join(out, "allreduce"))
    expect(sorted({r["dtype"] for r in ar}) == ["bfloat16", "float"] and len(ar) == 2 * (31 + 14), f"{len(ar)} rows")
    expect("ranks" not in meta_of(os.path.join(out, "allreduce")), "ranks invented without Rank lines")
    sr = rows_of(os.path.join(out, "sendrecv"))
    expect({r["wrong"] for r in sr if r["inplace"] == "1"} == {""}, "sendrecv in-place N/A should be empty")
    expect({r["wrong"] for r in sr if r["inplace"] == "0"} == {"0"}, "sendrecv out-of-place #wrong should be 0")


def case_plot(work):
    """plots/plot --nccl-tests: charts (real gnuplot), summary with the verdict, then --compare
    beside the committed collbench reference run."""
    for src, name in ((TEXT, "t"), (JSONF, "j")):
        out = os.path.join(work, name)
        p = run([PLOT, "--nccl-tests", src, "--out", out])
        expect_rc(p, 0, f"plots/plot --nccl-tests {src}")
        d = os.path.join(out, "allreduce")
        stems = sorted({os.path.splitext(f)[0] for f in os.listdir(d) if f.endswith(".png")})
        expect(stems == ["allreduce-float-busbw", "allreduce-float-inplace-busbw", "allreduce-float-inplace-latency",
                         "allreduce-float-latency"], f"charts: {stems}")
        for s in stems:
            for ext in ("png", "svg"):
                imagecheck.check(os.path.join(d, f"{s}.{ext}"), 1000, 600)
        with open(os.path.join(d, "summary.md")) as f:
            summary = f.read()
        expect("nccl-tests 348.3 GB/s @ 4 GiB" in summary and "## Verdict: allreduce" in summary, summary)
        # the verdict compares the import with the reference's nccl rows (never suggests the import
        # as a reference, never blames a binding nccl-tests does not record)
        expect("Reference `" in summary and "h200x2/allreduce" in summary and "| nccl | float sum eager |" in summary,
               "the import was not compared with the h200x2 reference's nccl rows:\n" + summary)
        expect("can become the reference" not in summary and "ran unbound" not in summary, summary)
    p = run([PLOT, "--nccl-tests", TEXT], cwd=work)  # default DIR: ./nccl-tests-<name>
    expect_rc(p, 0, "default --out")
    expect(os.path.isfile(os.path.join(work, "nccl-tests-all_reduce_perf-g2", "allreduce", "summary.md")), p.stdout)
    cmp = os.path.join(work, "cmp")
    p = run([PLOT, "--compare", os.path.join(work, "t", "allreduce"), REF, cmp])
    expect_rc(p, 0, "--compare nccl-tests run with the reference")
    for ext in ("png", "svg"):
        imagecheck.check(os.path.join(cmp, f"compare-allreduce-float-busbw.{ext}"), 1000, 600)


def case_compare(work):
    """tools/compare_nccl_tests.py reads through the reader and gives the committed comparisons
    (made from the whole log) from the excerpt."""
    for section, dtype, mode in (("== mpirun 2 ranks all_reduce", "float", "eager"),
                                 ("== bf16 all_reduce", "bfloat16", "graph")):
        p = run([sys.executable, COMPARE, SECTIONS, section, os.path.join(REF, "results.csv"), "allreduce", dtype,
                 mode])
        expect_rc(p, 1, f"compare {section}")  # both committed comparisons have misses
        with open(os.path.join(REF, f"nccl-tests-comparison-{dtype}.md")) as f:
            want = [ln for ln in f.read().splitlines() if not ln.startswith("nccl-tests: ")]
        got = [ln for ln in p.stdout.splitlines() if not ln.startswith("nccl-tests: ")]
        expect(got == want, f"{section}: differs from the committed comparison\n" + "\n".join(got))
    p = run([sys.executable, COMPARE, SECTIONS, "== no such", os.path.join(REF, "results.csv"), "allreduce", "float"])
    expect_rc(p, 2, "unknown section")
    expect_rc(run([sys.executable, COMPARE, SECTIONS]), 2, "too few arguments")


def write(work, name, data):
    path = os.path.join(work, name)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


def expect_bad(args, what, needle):
    p = run(args)
    expect_rc(p, 2, what)
    lines = p.stderr.strip().splitlines()
    expect(len(lines) == 1 and needle in lines[0], f"{what}: stderr should be one line with '{needle}':\n{p.stderr}")


def case_errors(work):
    """Bad input: exit 2, one line, no traceback (through the reader and through plots/plot)."""
    with open(TEXT) as f:
        text = f.read()
    with open(JSONF) as f:
        doc = json.load(f)
    header_end = text.index("           8 ")
    bad = {
        "empty.txt": ("", "empty file"),
        "blank.txt": ("\n  \n", "empty file"),
        "latin1.txt": (text[:200].encode() + b"\xff\xfe size", "not UTF-8"),
        "symm.log": (open(os.path.join(DATA, "symm-digest.log")).read(), "no nccl-tests result rows"),
        "short-row.txt": (text[:header_end] + "           8             2     float     sum      -1    19.17    0.00\n",
                          ":29: 7 fields, the table has at least 13"),
        "bad-number.txt": (text[:header_end] + "           8             2     float     sum      -1    19.x7    0.00"
                           "    0.00       0    18.65    0.00    0.00       0\n", "malformed nccl-tests row"),
        "nan.txt": (text[:header_end] + "           8             2     float     sum      -1      nan    0.00"
                    "    0.00       0    18.65    0.00    0.00       0\n", "not a finite number"),
        "twice.txt": (text + text, "appears twice"),
        "nameless.txt": (open(SECTIONS).read().split("== bf16 all_reduce\n")[1].split("# Out of")[0],
                         "cannot tell the collective"),
        "syntax.json": ('{"version":3,"args":["all_reduce_perf"', "not valid JSON"),
        "list.json": ("[]", "no nccl-tests result rows"),  # JSON, not an object: read as text, no rows
        "no-results.json": (json.dumps(dict(doc, results=5)), "results is 5, expected list"),
        "no-size.json": (json.dumps(dict(doc, results=[{k: v for k, v in doc["results"][0].items() if k != "size"}])),
                         "results[0].size is null"),
        "str-time.json": (json.dumps(dict(doc, results=[dict(doc["results"][0], in_place={"time": "fast"})])),
                          "results[0].in_place.time"),
        "bool-size.json": (json.dumps(dict(doc, results=[dict(doc["results"][0], size=True)])), "results[0].size"),
        "size-2^64.json": (json.dumps(dict(doc, results=[dict(doc["results"][0], size=2**64)])),
                           "results[0].size or count '18446744073709551616' is out of range"),
        "count-negative.json": (json.dumps(dict(doc, results=[dict(doc["results"][0], count=-2)])),
                                "results[0].size or count '-2' is out of range"),
        "size-2^64.txt": (text[:header_end] + "18446744073709551616             2     float     sum      -1    19.17"
                          "    0.00    0.00       0    18.65    0.00    0.00       0\n", "is out of range"),
        "other.json": (json.dumps(dict(doc, args=["./other_perf"])), "other_perf: collbench has no family"),
        "no-config.json": (json.dumps({k: v for k, v in doc.items() if k != "config"}), "config is null"),
        # util.cu's jsonDouble writes NaN as the string "nan" and an infinity as a bare inf (%lf)
        "nan.json": (json.dumps(dict(doc, results=[dict(doc["results"][0], in_place=dict(
            doc["results"][0]["in_place"], bus_bw="nan"))])), 'in_place.bus_bw is "nan"'),
        "inf.json": (open(JSONF).read().replace('"alg_bw":0.000000', '"alg_bw":inf', 1), "holds inf"),
    }
    for name, (data, needle) in bad.items():
        path = write(work, name, data)
        expect_bad([sys.executable, READER, "--out", os.path.join(work, "o-" + name), path], name, needle)
        if name in ("empty.txt", "latin1.txt", "short-row.txt", "syntax.json"):
            expect_bad([PLOT, "--nccl-tests", path, "--out", os.path.join(work, "p-" + name)], "plot " + name, needle)
        expect(not os.path.exists(os.path.join(work, "o-" + name)), f"{name}: an output folder was left behind")
    # an object without args
    expect_bad([sys.executable, READER, "--out", os.path.join(work, "o"), write(work, "obj.json", "{}")],
               "{}", "args is null")
    huge = os.path.join(work, "huge.log")
    with open(huge, "wb") as f:
        f.truncate((64 << 20) + 1)  # sparse: nothing read before the size check
    expect_bad([sys.executable, READER, "--out", os.path.join(work, "o"), huge], "huge", "more than the 64 MiB")
    expect_bad([sys.executable, READER, "--out", os.path.join(work, "o"), work], "a folder", "not a regular file")
    expect_bad([sys.executable, READER, "--out", os.path.join(work, "o"), os.path.join(work, "nope")], "missing",
               "cannot read")
    # the nameless table reads with --family; #wrong is %6g: a million wrong elements print as 1e+06
    with open(os.path.join(work, "nameless.txt")) as f:
        nameless = f.read()
    first = next(ln for ln in nameless.splitlines() if ln.strip()[:1].isdigit())
    expect_rc(run([sys.executable, READER, "--family", "allreduce", "--out", os.path.join(work, "named"),
                   write(work, "nameless-1e6.txt", nameless.replace(first, first[:-1] + "1e+06", 1))]),
              0, "--family allreduce")
    wrong = {r["wrong"] for r in rows_of(os.path.join(work, "named", "allreduce"))}
    expect(wrong == {"0", "1000000"}, f"#wrong 1e+06 read as {wrong}")
    # a folder holding a collbench run is never overwritten
    victim = os.path.join(work, "victim")
    shutil.copytree(REF, os.path.join(victim, "allreduce"))
    expect_bad([sys.executable, READER, "--out", victim, TEXT], "collbench run in --out", "not an nccl-tests import")
    expect(rows_of(os.path.join(victim, "allreduce"))[0]["algo"] == "nccl", "the collbench run was overwritten")
    # an earlier import is replaced
    import_(work, TEXT, "again")
    import_(work, JSONF, "again")
    expect(meta_of(os.path.join(work, "again", "allreduce"))["format"] == "json", "re-import did not replace")
    # a table of a binary collbench has no family for is skipped with a warning, the rest is read
    with open(SECTIONS) as f:
        mixed = write(work, "mixed.log", text.replace("all_reduce_perf", "other_perf") + f.read())
    p = run([sys.executable, READER, "--out", os.path.join(work, "mixed"), mixed])
    expect_rc(p, 0, "mixed log")
    expect("other_perf: collbench has no family for it" in p.stderr and len(p.stdout.split()) == 4, p.stderr)
    for args, needle in (([PLOT, "--out", "x", TEXT], "--out goes with --nccl-tests"),
                         ([PLOT, "--nccl-tests", TEXT, "extra"], "--nccl-tests takes FILE"),
                         ([PLOT, "--nccl-tests"], "--nccl-tests needs a value")):
        expect_bad(args, " ".join(args[1:]), needle)


def case_cut_conclusion(work):
    """Two runs of one log, the first's 'concluded' line cut away: each table keeps its own
    run's NCCL version (the second run's version line closes the first table). The real one-GPU
    captures of data/nccl-tests/captured/h200x1, the second's library version edited."""
    cap = os.path.join(DATA, "captured", "h200x1")
    with open(os.path.join(cap, "all_reduce_perf.txt")) as f:
        first = [l for l in f if not l.startswith("# Collective test concluded")]
    with open(os.path.join(cap, "all_gather_perf.txt")) as f:
        second = [l.replace("nccl-library=22803", "nccl-library=22805") for l in f]
    expect(any("nccl-library=22803" in l for l in first) and any("nccl-library=22805" in l for l in second),
           "the captures' version lines")
    src = write(work, "two-runs.log", "".join(first + second))
    out, made = import_(work, src, "two-runs")
    expect([os.path.basename(d) for d in made] == ["allgather", "allreduce"], f"folders: {made}")
    versions = {fam: meta_of(os.path.join(out, fam)).get("nccl_version_code") for fam in ("allreduce", "allgather")}
    expect(versions == {"allreduce": 22803, "allgather": 22805}, f"each table's own NCCL version: {versions}")


def summary_of(folder):
    with open(os.path.join(folder, "summary.md"), encoding="utf-8") as f:
        return f.read()


def case_options(work):
    """Issue 44: plots/plot --nccl-tests takes --family, --gpu, --ranks and --nodes (nccl_tests.py
    checks them: bad values exit 2 with one line and write nothing); with --gpu and --ranks an
    excerpt without '# Using devices' lines gets its verdict against the matching reference."""
    nameless = write(work, "nameless.txt", open(SECTIONS).read().split("== bf16 all_reduce\n")[1].split("# Out of")[0])
    out = os.path.join(work, "fam")
    expect_rc(run([PLOT, "--nccl-tests", nameless, "--family", "allreduce", "--out", out]), 0, "plots/plot --family")
    expect(os.path.isfile(os.path.join(out, "allreduce", "summary.md")), "--family: no allreduce folder")
    p = run([PLOT, "--nccl-tests", nameless, "--out", os.path.join(work, "nofam")])
    expect_rc(p, 2, "a nameless table without --family")
    expect("give --family" in p.stderr, f"the message names the option plots/plot takes: {p.stderr}")
    out = os.path.join(work, "dev")
    p = run([PLOT, "--nccl-tests", SECTIONS, "--gpu", "NVIDIA H200", "--ranks", "2", "--out", out])
    expect_rc(p, 0, "plots/plot --gpu --ranks")
    s = summary_of(os.path.join(out, "allreduce"))
    expect("Reference `" in s and "h200x2/allreduce" in s and "NO REFERENCE" not in s,
           f"--gpu and --ranks choose the h200x2 reference:\n{s}")
    expect("one node assumed" in s, "the assumed node count is said")
    expect({r["gpu"] for r in rows_of(os.path.join(out, "allreduce"))} == {"NVIDIA H200"}, "rows carry --gpu")
    for args, needle in ((["--ranks", "0"], "--ranks"), (["--ranks", "two"], "--ranks"), (["--ranks", "1e3"], "--ranks"),
                         (["--ranks", "\u0662"], "--ranks"), (["--ranks", "99999999999"], "--ranks"),
                         (["--nodes", "-1"], "--nodes"), (["--gpu", "H200\nx"], "--gpu"), (["--gpu", "G" * 100], "--gpu"),
                         (["--gpu", ""], "--gpu"), (["--family", "allredcue"], "--family"),
                         (["--ranks", "3"], "--ranks says 3")):
        src = SECTIONS if needle != "--ranks says 3" else TEXT
        for cmd, rest in (([PLOT], ["--nccl-tests", src, "--out", os.path.join(work, "bad")]),
                          ([sys.executable, READER], ["--out", os.path.join(work, "bad"), src])):
            expect_bad(cmd + args + rest, f"{os.path.basename(cmd[-1])} {args}", needle)
        expect(not os.path.exists(os.path.join(work, "bad")), f"{args}: nothing written")
    for opt in ("--family", "--gpu", "--ranks", "--nodes"):
        expect_bad([PLOT, opt, "x", os.path.join(REF)], f"{opt} without --nccl-tests", "goes with --nccl-tests")
        expect_bad([PLOT, "--nccl-tests", TEXT, opt], f"{opt} without a value", "needs a value")


def case_no_devices(work):
    """Issue 44: an output without its '# Using devices' lines gets no NO REFERENCE: the
    verdict names the real cause and the options that supply it."""
    out = os.path.join(work, "nodev")
    expect_rc(run([PLOT, "--nccl-tests", SECTIONS, "--out", out]), 0, "plots/plot --nccl-tests on an excerpt")
    for fam in ("allreduce", "allgather", "sendrecv"):
        s = summary_of(os.path.join(out, fam))
        verdict = s[s.index("## Verdict"):]
        expect("NO REFERENCE" not in verdict and "'# Using devices'" in verdict and "--gpu" in verdict and
               "--ranks" in verdict and "one rank" not in verdict, f"{fam}: the verdict names the cause:\n{verdict}")
    # plots/plot --against auto on the same folder names the same cause (verdict.py reads meta.devices_note)
    p = run([PLOT, "--against", "auto", os.path.join(out, "allreduce")])
    expect_rc(p, 0, "--against auto on an import without '# Using devices'")
    expect("NO REFERENCE" not in p.stdout and "NO VERDICT" in p.stdout and "'# Using devices'" in p.stdout and
           "--ranks" in p.stdout and "one rank" not in p.stdout, f"--against auto names the cause:\n{p.stdout}")
    out = os.path.join(work, "gpuonly")
    expect_rc(run([PLOT, "--nccl-tests", SECTIONS, "--gpu", "NVIDIA H200", "--out", out]), 0, "--gpu alone")
    s = summary_of(os.path.join(out, "allreduce"))
    expect("rank count (--ranks N)" in s and "GPU model (--gpu" not in s, f"only the rank count is missing:\n{s}")


def case_ngpus(work):
    """Issue 44: a -g N run's own nGpus explains its latency in the verdict; one GPU per process
    gets no such note."""
    out = os.path.join(work, "g2")
    expect_rc(run([PLOT, "--nccl-tests", TEXT, "--out", out]), 0, "the -g 2 run")
    s = summary_of(os.path.join(out, "allreduce"))
    expect("nccl-tests ran with nGpus 2" in s and "-g 2" in s and "one process per GPU" in s, f"the -g note:\n{s}")
    expect(meta_of(os.path.join(out, "allreduce"))["gpus_per_process"] == 2, "meta keeps nGpus")
    out = os.path.join(work, "g2json")
    expect_rc(run([PLOT, "--nccl-tests", JSONF, "--out", out]), 0, "the -g 2 run's JSON")
    expect("nccl-tests ran with nGpus 2" in summary_of(os.path.join(out, "allreduce")), "the -g note from -J")
    out = os.path.join(work, "g1")
    expect_rc(run([PLOT, "--nccl-tests", os.path.join(DATA, "captured", "h200x1", "all_reduce_perf.txt"), "--out", out]),
              0, "a one-GPU run")
    expect("nccl-tests ran with nGpus" not in summary_of(os.path.join(out, "allreduce")), "no -g note for nGpus 1")


def case_inplace_na(work):
    """Issue 44: alltoall's (and sendrecv's) in-place #wrong of N/A in a run that validates is a
    form nccl-tests does not run, not '-c 0': those rows are skipped with the reason; a -c 0
    run's N/A stays 'not checked'."""
    cap = os.path.join(DATA, "captured", "h200x1")
    for name in ("alltoall_perf.txt", "alltoall_perf.json", "sendrecv_perf.txt", "sendrecv_perf.json"):
        _, (d,) = import_(work, os.path.join(cap, name), "na-" + name.replace(".", "-"))
        rows = rows_of(d)
        inplace = [r for r in rows if r["inplace"] == "1"]
        expect(inplace and all(r["time_us_mean"] == "" and "does not run" in r["note"] and "in place" in r["note"]
                               for r in inplace), f"{name}: in-place rows skipped with the reason: {inplace[:2]}")
        expect(any(r["time_us_mean"] and r["wrong"] == "0" for r in rows if r["inplace"] == "0"),
               f"{name}: out-of-place rows measured and checked")
    # the same table run with -c 0: every #wrong N/A, validation 0: measured, not checked
    with open(os.path.join(cap, "alltoall_perf.txt")) as f:
        text = f.read().replace("validation: 1", "validation: 0")
    lines = [ln if not ln.strip()[:1].isdigit() else ln.rstrip("\n").rsplit(None, 5)[0] + "       N/A" +
             " ".join([""] + ln.rstrip("\n").rsplit(None, 4)[1:]) + "\n" for ln in text.splitlines(True)]
    c0 = write(work, "alltoall-c0.txt", "".join(lines))
    _, (d,) = import_(work, c0, "c0")
    rows = [r for r in rows_of(d) if r["bytes"] != "0"]
    expect(all(r["wrong"] == "" and r["time_us_mean"] for r in rows),
           f"-c 0: measured and not checked: {[(r['inplace'], r['wrong'], r['time_us_mean']) for r in rows[:4]]}")


def case_compare_labels(work):
    """Issue 44: --compare of an import with a collbench run labels each line with its tool, and
    --compare-algo keeps one of run B's algorithms; a name B lacks exits 2 with the ones it has."""
    _, (t,) = import_(work, TEXT, "imp")
    svg_text = lambda d: open(os.path.join(d, "compare-allreduce-float-busbw.svg"), encoding="utf-8").read()
    out = os.path.join(work, "all")
    expect_rc(run([PLOT, "--compare", t, REF, out]), 0, "--compare import vs collbench")
    svg = svg_text(out)
    expect("A: nccl-tests all_reduce_perf" in svg and "B: collbench nccl" in svg and "B: collbench twoshot" in svg,
           "labels name the tool")
    out = os.path.join(work, "one")
    expect_rc(run([PLOT, "--compare", "--compare-algo", "nccl", t, REF, out]), 0, "--compare-algo nccl")
    svg = svg_text(out)
    expect("B: collbench nccl" in svg and "twoshot" not in svg and "oneshot" not in svg, "only B's nccl is drawn")
    expect_bad([PLOT, "--compare", "--compare-algo", "ncl", t, REF, os.path.join(work, "bad")], "--compare-algo ncl",
               "it has: auto, nccl,")
    expect(not os.path.exists(os.path.join(work, "bad")), "--compare-algo ncl: no folder")
    expect_bad([PLOT, "--compare-algo", "nccl", t], "--compare-algo without --compare", "goes with --compare")
    expect_bad([PLOT, "--compare", "--compare-algo", "nc\ncl", t, REF, os.path.join(work, "bad")], "a line break",
               "--compare-algo")
    # two collbench runs: labels as before (the folder names), no tool
    expect_rc(run([PLOT, "--compare", REF, REF, os.path.join(work, "same")]), 0, "collbench vs collbench")
    expect("A allreduce: nccl" in svg_text(os.path.join(work, "same")), "two collbench runs keep their labels")


CASES = {"text": case_text, "json": case_json, "sections": case_sections, "plot": case_plot,
         "compare": case_compare, "errors": case_errors, "cut_conclusion": case_cut_conclusion,
         "options": case_options, "no_devices": case_no_devices, "ngpus": case_ngpus, "inplace_na": case_inplace_na,
         "compare_labels": case_compare_labels}


def run_case(argv, cases):
    """Runs case argv[1] of cases in the wiped folder argv[2]; (name, 0) or (None, 2) on bad usage."""
    if len(argv) != 3 or argv[1] not in cases:
        print(f"usage: {argv[0]} {{{','.join(cases)}}} WORKDIR", file=sys.stderr)
        return None, 2
    work = os.path.abspath(argv[2])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cases[argv[1]](work)
    return argv[1], 0


def main(argv):
    name, rc = run_case(argv, CASES)
    if name:
        print(f"nccl-tests {name}: ok")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
