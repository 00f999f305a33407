#!/usr/bin/env python3
"""CPU tests of plots/ (plots/plot, plots/summary) on the synthetic fixtures in data/.

Each case renders with the real gnuplot and checks the results: the exact set of chart files,
every PNG/SVG valid and non-blank at the requested size (imagecheck.py), bad inputs giving
exit 2 (3 for gnuplot trouble) with a message naming the file and no traceback, and the
summary equal to expected/run-a-summary.md.
usage: test_plots.py CASE WORKDIR   (CASE: see CASES at the bottom; WORKDIR is wiped first)
"""
import csv
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PLOT = os.path.join(ROOT, "plots", "plot")
SUMMARY = os.path.join(ROOT, "plots", "summary")
DATA = os.path.join(HERE, "data")
EXPECTED = os.path.join(HERE, "expected")
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import imagecheck  # noqa: E402
import make_fixtures  # noqa: E402


def run(args, env=None, cwd=None):
    e = dict(os.environ, **(env or {}))
    p = subprocess.run(args, capture_output=True, text=True, env=e, cwd=cwd)
    if "Traceback" in p.stderr:
        raise AssertionError(f"{args}: Python traceback on stderr:\n{p.stderr}")
    return p


def expect(cond, msg):
    if not cond:
        raise AssertionError(msg)


def expect_rc(p, rc, what):
    expect(p.returncode == rc, f"{what}: exit {p.returncode}, expected {rc}\n"
                               f"stdout: {p.stdout}\nstderr: {p.stderr}")


def lines_of(name):
    with open(os.path.join(EXPECTED, name)) as f:
        return [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]


def check_images(outdir, stems, width=1000, height=600):
    for stem in stems:
        for ext in ("png", "svg"):
            path = os.path.join(outdir, f"{stem}.{ext}")
            try:
                imagecheck.check(path, width, height)
            except imagecheck.BadImage as e:
                raise AssertionError(f"{path}: {e}")


def charts_in(outdir):
    return sorted({os.path.splitext(f)[0] for f in os.listdir(outdir) if f.endswith((".png", ".svg"))})


def case_render(work):
    """Default OUTDIR = the results folder: every chart of run A, exactly the expected set."""
    run_dir = os.path.join(work, "synthetic-run-a")
    shutil.copytree(os.path.join(DATA, "synthetic-run-a"), run_dir)
    p = run([PLOT, run_dir])
    expect_rc(p, 0, "plots/plot synthetic-run-a")
    expect("not charted" not in p.stderr, f"a family left uncharted:\n{p.stderr}")
    expected = lines_of("run-a-charts.txt")
    expect(charts_in(run_dir) == expected,
           f"chart files differ:\n got {charts_in(run_dir)}\nwant {expected}")
    for stem in expected:  # PNG and SVG both
        expect(os.path.isfile(os.path.join(run_dir, stem + ".svg")), f"{stem}.svg missing")
    check_images(run_dir, expected)
    with open(os.path.join(run_dir, "summary.md")) as f:
        written = f.read()
    expect(written == run([SUMMARY, run_dir]).stdout, "summary.md differs from plots/summary output")
    with open(os.path.join(run_dir, "allreduce-float-sum-busbw.svg")) as f:
        expect("NVLink limit 478 GB/s" in f.read(), "busbw chart lacks the NVLink line (link_gbs)")
    with open(os.path.join(run_dir, "allreduce-float-sum-latency.svg")) as f:
        expect("twoshot [WRONG: 1 row]" in f.read(), "latency chart does not flag the wrong row")
    # several NCCL forms: speedups against the fastest one; a single form: against it by name
    for stem, title in (("allreduce-float-sum-speedup", "speedup over best NCCL form"),
                        ("allreduce-float-max-speedup", "speedup over nccl")):
        with open(os.path.join(run_dir, stem + ".svg")) as f:
            expect(title in f.read(), f"{stem}.svg lacks the title '{title}'")


def case_render_size(work):
    """A CSV path, explicit OUTDIR, --size and --link."""
    out = os.path.join(work, "out")
    p = run([PLOT, "--size", "640x400", "--link", "300",
             os.path.join(DATA, "synthetic-run-a", "results.csv"), out])
    expect_rc(p, 0, "plots/plot --size 640x400")
    check_images(out, ["allreduce-float-sum-latency", "alltoall-float-busbw", "moe-bfloat16-phases"],
                 640, 400)
    with open(os.path.join(out, "alltoall-float-busbw.svg")) as f:
        expect("link limit 300 GB/s" in f.read(), "--link 300 not drawn")


def case_compare(work):
    out = os.path.join(work, "cmp")
    a, b = os.path.join(DATA, "synthetic-run-a"), os.path.join(DATA, "synthetic-run-b")
    p = run([PLOT, "--compare", a, b, out])
    expect_rc(p, 0, "plots/plot --compare")
    expected = lines_of("compare-charts.txt")
    expect(charts_in(out) == expected, f"compare charts differ:\n got {charts_in(out)}\nwant {expected}")
    check_images(out, expected)
    with open(os.path.join(out, "compare-allreduce-float-sum-latency.svg")) as f:
        svg = f.read()
    for label in ("synthetic-run-a: nccl", "synthetic-run-b: nccl", "synthetic-run-b: twoshot"):
        expect(label in svg, f"compare latency chart lacks the line '{label}'")
    expect("no compare charts for allgather-float: only synthetic-run-a has it" in p.stderr,
           f"no note about charts only one run has:\n{p.stderr}")
    # Default OUTDIR: ./compare-<A>-vs-<B>; a CSV path is named by its folder.
    p = run([PLOT, "--compare", a, os.path.join(b, "results.csv")], cwd=work)
    expect_rc(p, 0, "plots/plot --compare (default OUTDIR)")
    default = os.path.join(work, "compare-synthetic-run-a-vs-synthetic-run-b")
    expect(charts_in(default) == expected, f"default compare OUTDIR {default} lacks the charts")


def case_errors(work):
    out = os.path.join(work, "out")
    bad = [  # (arguments, exit code, text the message must contain)
        (["/nonexistent/results"], 2, "/nonexistent/results: no such file or folder"),
        ([DATA], 2, "results.csv: no such file"),
        ([os.path.join(DATA, "empty.csv")], 2, "empty.csv: empty file"),
        ([os.path.join(DATA, "header-only.csv")], 2, "header-only.csv: no data rows"),
        ([os.path.join(DATA, "missing-columns.csv")], 2,
         "missing-columns.csv: header lacks required column(s) time_us_mean, wrong"),
        ([os.path.join(DATA, "bad-number.csv")], 2, "bad-number.csv:2: column time_us_mean is 'fast'"),
        ([os.path.join(DATA, "ragged.csv")], 2, "ragged.csv:2: 3 fields, the header has 30"),
        ([os.path.join(DATA, "binary.csv")], 2, "binary.csv: not UTF-8 text"),
        ([os.path.join(DATA, "ringattn-no-seq.csv")], 2,
         "ringattn-no-seq.csv:3: measured ringattn row has no positive seq"),
        ([os.path.join(DATA, "ringattn-bad-causal.csv")], 2,
         "ringattn-bad-causal.csv:3: column causal is 2, expected 0 or 1"),
        (["--link", "fast", os.path.join(DATA, "synthetic-run-a")], 2, "--link: expected one positive number"),
        (["--size", "12", os.path.join(DATA, "synthetic-run-a")], 2, "--size '12'"),
        (["--frobnicate", os.path.join(DATA, "synthetic-run-a")], 2, "unknown option --frobnicate"),
        (["--compare", os.path.join(DATA, "synthetic-run-a"), os.path.join(DATA, "empty.csv")], 2,
         "empty.csv: empty file"),
        ([], 2, "usage: plots/plot"),
    ]
    for args, rc, text in bad:
        target = args + [out] if args and args[0] != "--compare" else args
        p = run([PLOT] + target)
        expect_rc(p, rc, f"plots/plot {' '.join(target)}")
        expect(text in p.stderr, f"plots/plot {' '.join(target)}: stderr lacks '{text}':\n{p.stderr}")
        expect(p.stdout == "", f"plots/plot {' '.join(target)}: wrote to stdout: {p.stdout}")
    expect(not os.path.exists(out), "a bad CSV still created the output folder")
    # Only skipped rows: exit 2, but summary.md (why everything was skipped) is written.
    p = run([PLOT, os.path.join(DATA, "only-skipped.csv"), out])
    expect_rc(p, 2, "only-skipped.csv")
    expect("only-skipped.csv: no plottable rows (3 rows, 3 skipped" in p.stderr, p.stderr)
    expect(os.path.isfile(os.path.join(out, "summary.md")), "only-skipped: no summary.md")
    expect(charts_in(out) == [], f"only-skipped: charts {charts_in(out)}")
    # gnuplot missing, or failing: exit 3 naming the problem.
    src = os.path.join(DATA, "synthetic-run-a")
    p = run([PLOT, src, os.path.join(work, "g1")], env={"GNUPLOT": "/nonexistent/gnuplot"})
    expect_rc(p, 3, "GNUPLOT=/nonexistent/gnuplot")
    expect("gnuplot not found" in p.stderr, f"missing gnuplot message:\n{p.stderr}")
    fake = os.path.join(work, "fake-gnuplot")
    with open(fake, "w") as f:
        f.write('#!/bin/sh\n[ "$1" = --version ] && { echo "gnuplot 5.4 patchlevel 4"; exit 0; }\n'
                'echo "fake gnuplot: cannot draw" >&2; exit 1\n')
    os.chmod(fake, 0o755)
    p = run([PLOT, src, os.path.join(work, "g2")], env={"GNUPLOT": fake})
    expect_rc(p, 3, "GNUPLOT=fake failing gnuplot")
    expect("gnuplot failed rendering" in p.stderr and "fake gnuplot: cannot draw" in p.stderr,
           f"failing gnuplot message:\n{p.stderr}")
    # A header naming a column twice (the last one used to win silently): exit 2.
    dup = os.path.join(work, "dup.csv")
    with open(os.path.join(src, "results.csv")) as f:
        head, rest = f.read().split("\n", 1)
    with open(dup, "w") as f:
        f.write(head.replace(",count,", ",bytes,") + "\n" + rest)
    p = run([PLOT, dup, os.path.join(work, "d")])
    expect_rc(p, 2, "duplicate header column")
    expect("names column(s) bytes more than once" in p.stderr, f"duplicate header message:\n{p.stderr}")
    # --compare of runs with nothing in common draws nothing: exit 2, not "0 chart(s)" and 0.
    p = run([PLOT, "--compare", src, os.path.join(DATA, "synthetic-ringattn"), os.path.join(work, "c0")])
    expect_rc(p, 2, "--compare with nothing in common")
    expect("share no family, dtype and mode" in p.stderr, f"--compare nothing-in-common message:\n{p.stderr}")
    # A cut-off last row (a run that crashed mid-write) is a warning, not an error.
    p = run([PLOT, os.path.join(DATA, "truncated-last-row.csv"), os.path.join(work, "t")])
    expect_rc(p, 0, "truncated last row")
    expect(p.stderr.count("last row is incomplete") == 1, f"truncated-row warning:\n{p.stderr}")


def case_summary(work):
    p = run([SUMMARY, os.path.join(DATA, "synthetic-run-a")])
    expect_rc(p, 0, "plots/summary synthetic-run-a")
    for text in ("| oneshot | < 64 KiB | 7 | 2.50× | 8 B | 2.36× | 32 KiB |",
                 "| oneshot | 1 – 16 MiB | 2 | 0.71× | 2 MiB | 0.42× | 8 MiB |",
                 "| twoshot | 1 – 16 MiB | 2 | 1.47× (WRONG) | 2 MiB | 1.32× | 8 MiB |",
                 "| twoshot | ≥ 256 MiB | 1 | 1.20× | 512 MiB | 1.20× | 512 MiB |",
                 "**1 row has wrong elements",
                 "| 31 | allreduce | twoshot | float | sum | 2 MiB |",
                 "| 2 | allreduce | oneshot | not supported: buffer above 32 MiB, use twoshot or auto |",
                 '("P2P disabled", see placement.txt)',
                 "| 128 | 104.4 | 35.6 | 2.93× |",
                 "Limit: NVLink 478 GB/s per direction",
                 "Configuration: model synthetic, hidden 7168, topk 8, experts 256, routing uniform.",
                 "NCCL only: no custom algorithm to compare.",
                 # against the fastest NCCL form at each size, naming it
                 "the fastest of nccl, nccl_reg, nccl_symm there",
                 "| oneshot | < 64 KiB | 7 | 1.12× vs nccl_symm | 8 B | 1.08× vs nccl_symm | 32 KiB | nccl_symm (7) |",
                 "| twoshot | 1 – 16 MiB | 2 | 1.26× vs nccl_reg | 8 MiB | 1.11× vs nccl_symm (WRONG) | 2 MiB | "
                 "nccl_reg (1), nccl_symm (1) |",
                 "| twoshot | < 64 KiB | 7 | 0.73× vs nccl_symm | 32 KiB | 0.71× vs nccl_symm | 8 B | nccl_symm (7) |"):
        expect(text in p.stdout, f"summary lacks: {text}\n{p.stdout}")
    with open(os.path.join(EXPECTED, "run-a-summary.md")) as f:
        want = f.read()
    if p.stdout != want:
        got = os.path.join(work, "run-a-summary.md")
        with open(got, "w") as f:
            f.write(p.stdout)
        raise AssertionError(f"summary differs from expected/run-a-summary.md: diff {got} against it")
    p = run([SUMMARY, os.path.join(DATA, "only-skipped.csv")])
    expect_rc(p, 0, "plots/summary only-skipped.csv")
    expect("0 measured, 3 skipped" in p.stdout, p.stdout)
    for args, text in (([os.path.join(DATA, "empty.csv")], "empty file"),
                       ([os.path.join(DATA, "missing-columns.csv")], "header lacks"),
                       (["--link"], "usage"), ([], "usage")):
        p = run([SUMMARY] + args)
        expect_rc(p, 2, f"plots/summary {args}")
        expect(text in p.stderr, f"plots/summary {args}: stderr lacks '{text}': {p.stderr}")


def case_columns_by_name(work):
    """Columns are found by name: shuffled columns plus unknown new ones change nothing."""
    import csv
    with open(os.path.join(DATA, "synthetic-run-a", "results.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    cols = ["added_later"] + list(reversed(list(rows[0]))) + ["another_new_column"]
    run_dir = os.path.join(work, "synthetic-run-a")
    os.makedirs(run_dir)
    shutil.copy(os.path.join(DATA, "synthetic-run-a", "link_gbs"), run_dir)
    with open(os.path.join(run_dir, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        w.writerows(dict(r, added_later="x,y", another_new_column="7") for r in rows)
    p = run([PLOT, run_dir])
    expect_rc(p, 0, "plots/plot on shuffled columns")
    expect(charts_in(run_dir) == lines_of("run-a-charts.txt"), f"charts: {charts_in(run_dir)}")
    with open(os.path.join(run_dir, "summary.md")) as f, \
            open(os.path.join(EXPECTED, "run-a-summary.md")) as g:
        expect(f.read() == g.read(), "summary of the shuffled CSV differs from expected/run-a-summary.md")


def case_ringattn(work):
    """ringattn: TFLOP/s and overlap charts per group, the summary's table and crossover lines,
    and --compare (the fixture against itself: a TFLOP/s overlay per group)."""
    run_dir = os.path.join(work, "synthetic-ringattn")
    shutil.copytree(os.path.join(DATA, "synthetic-ringattn"), run_dir)
    p = run([PLOT, run_dir])
    expect_rc(p, 0, "plots/plot synthetic-ringattn")
    expected = lines_of("ringattn-charts.txt")
    expect(charts_in(run_dir) == expected,
           f"ringattn chart files differ:\n got {charts_in(run_dir)}\nwant {expected}")
    check_images(run_dir, expected)
    with open(os.path.join(run_dir, "ringattn-d128-causal-bfloat16-tflops.svg")) as f:
        svg = f.read()
    for text in ("single", "ring", "nccl_ring [WRONG: 1 row]", "nccl_allgather", ">16K<", ">64K<",
                 "B 1, H 32, KV 8, D 128", "sequence length S"):
        expect(text in svg, f"TFLOP/s chart lacks '{text}'")
    with open(os.path.join(run_dir, "ringattn-d128-causal-bfloat16-overlap.svg")) as f:
        svg = f.read()
    expect("1.0 = communication fully hidden" in svg and "nccl_allgather" in svg,
           "overlap chart lacks its 1.0 line or a line")
    expect(">single<" not in svg, "overlap chart draws single (it has no overlap)")
    with open(os.path.join(run_dir, "summary.md")) as f:
        written = f.read()
    for text in ("## ringattn · d128 · causal · bfloat16 · eager (8 ranks, 1 node, synthetic-fixture)",
                 "Shape: batch 1, 32 heads, 8 K/V heads, head dim 128.",
                 "| S | algo | time µs | TFLOP/s per GPU | overlap | ring/single | err_max |",
                 "| 16K | ring | 1898 | 144.8 | 0.995 | 1.065 | 0.0039 |",
                 "| 16K | single | 6847 | 321.2 | – | – | 0.0039 |",
                 "| 16K | nccl_ring (WRONG: 3) | 1913 | 143.7 | 0.987 | 1.073 | 0.0039 |",
                 "Fastest (lowest time, single excluded): 4K nccl_allgather · 8K ring · 16K ring",
                 "ring overtakes nccl_allgather between S = 4K and 8K: slower up to 4K, faster from 8K on.",
                 "ring overtakes nccl_allgather between S = 8K and 16K",
                 "ring is faster than nccl_allgather at S = 16K only (no single crossover).",
                 "| 1 | ringattn | ring | skipped: 131072 tokens need"):
        expect(text in written, f"ringattn summary lacks: {text}\n{written}")
    with open(os.path.join(EXPECTED, "ringattn-summary.md")) as f:
        expect(written == f.read(), "ringattn summary differs from expected/ringattn-summary.md")
    out = os.path.join(work, "cmp")
    p = run([PLOT, "--compare", run_dir, os.path.join(DATA, "synthetic-ringattn", "results.csv"), out])
    expect_rc(p, 0, "plots/plot --compare synthetic-ringattn (itself)")
    want = sorted("compare-" + c for c in expected if c.endswith("-tflops"))
    expect(charts_in(out) == want, f"ringattn compare charts differ:\n got {charts_in(out)}\nwant {want}")
    check_images(out, want)
    with open(os.path.join(out, "compare-ringattn-d64-causal-bfloat16-tflops.svg")) as f:
        svg = f.read()
    for label in ("A synthetic-ringattn: ring", "B synthetic-ringattn: nccl_allgather"):
        expect(label in svg, f"ringattn compare chart lacks the line '{label}'")


def case_fixtures_current(work):
    """The committed fixtures are what make_fixtures.py writes (edit the generator, not them)."""
    make_fixtures.main(["make_fixtures.py", work])
    for rel in make_fixtures.fixtures():
        with open(os.path.join(work, rel), "rb") as a, open(os.path.join(DATA, rel), "rb") as b:
            expect(a.read() == b.read(), f"data/{rel} differs from make_fixtures.py output: rerun it")


def case_imagecheck(work):
    """The image checker itself rejects blank, wrong-size, cut-off and non-XML files."""
    import struct
    import zlib

    def png(path, w, h, fill):
        chunk = lambda k, d: struct.pack(">I", len(d)) + k + d + struct.pack(">I", zlib.crc32(k + d))
        raw = b"".join(b"\x00" + bytes(fill) * w for _ in range(h))
        data = (imagecheck.PNG_SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
        with open(path, "wb") as f:
            f.write(data)
        return data

    blank = os.path.join(work, "blank.png")
    data = png(blank, 200, 100, (255, 255, 255))
    cut = os.path.join(work, "cut.png")
    with open(cut, "wb") as f:
        f.write(data[:60])
    svg = os.path.join(work, "bad.svg")
    with open(svg, "w") as f:
        f.write("<svg width='200' height='100'><path></svg>")
    for path, w, h, why in ((blank, 200, 100, "looks blank"), (blank, 300, 100, "expected 300x100"),
                            (cut, 200, 100, ""), (svg, 200, 100, "not well-formed")):
        try:
            imagecheck.check(path, w, h)
        except imagecheck.BadImage as e:
            expect(why in str(e), f"{path}: rejected for '{e}', expected '{why}'")
            continue
        raise AssertionError(f"{path} ({w}x{h}) passed the image check")


def case_hostile(work):
    """Hostile values in an otherwise valid CSV: an over-long family name renders (no "file name
    too long" traceback), tokens=1e308 is an input error (exit 2) before gnuplot sees it, and a
    newline in a note stays inside its summary.md table row."""
    with open(os.path.join(DATA, "synthetic-run-a", "results.csv"), newline="") as f:
        rows = list(csv.reader(f))
    head, body = rows[0], rows[1:]
    col = {h: i for i, h in enumerate(head)}

    def write(name, rows):
        path = os.path.join(work, name)
        with open(path, "w", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows([head] + rows)
        return path

    longfam = [list(r) for r in body if r[col["family"]] == "allreduce"]
    for r in longfam:
        r[col["family"]] = "allreduce" + "x" * 300
        r[col["op"]] = "sum" + "y" * 200
    p = run([PLOT, write("long-names.csv", longfam), os.path.join(work, "long")])
    expect_rc(p, 0, "over-long family and op")
    charts = charts_in(os.path.join(work, "long"))
    expect(charts and all(len(c) < 200 for c in charts), f"over-long names: charts {charts}")

    huge = [list(r) for r in body]
    moe = [r for r in huge if r[col["family"]] == "moe"]
    moe[0][col["tokens"]] = "1e308"
    p = run([PLOT, write("huge-tokens.csv", huge), os.path.join(work, "huge")])
    expect_rc(p, 2, "tokens=1e308")
    expect("column tokens is '1e308'" in p.stderr, f"tokens=1e308 message:\n{p.stderr}")

    noted = [list(r) for r in body]
    skipped = [r for r in noted if not r[col["time_us_mean"]]]
    skipped[0][col["note"]] = "first line\nsecond | line\r\nthird"
    p = run([SUMMARY, write("newline-note.csv", noted)])
    expect_rc(p, 0, "newline in a note")
    table = [ln for ln in p.stdout.splitlines() if "first line" in ln or "third" in ln]
    expect(len(table) == 1 and table[0].startswith("|") and table[0].endswith("|")
           and "second \\| line" in table[0], f"note with newlines in summary.md:\n{p.stdout}")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}
NEEDS_GNUPLOT = ("render", "render_size", "compare", "errors", "ringattn", "columns_by_name", "hostile")


def main(argv):
    if len(argv) != 3 or argv[1] not in CASES:
        print(f"usage: test_plots.py CASE WORKDIR   (CASE: {', '.join(CASES)})", file=sys.stderr)
        return 2
    case, work = argv[1], os.path.abspath(argv[2])
    if case in NEEDS_GNUPLOT and not shutil.which(os.environ.get("GNUPLOT", "gnuplot")):
        print("FAIL: gnuplot not found on PATH (tests/run installs gnuplot-nox)", file=sys.stderr)
        return 1
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        CASES[case](work)
    except AssertionError as e:
        print(f"FAIL plot_{case}: {e}", file=sys.stderr)
        return 1
    print(f"ok plot_{case}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
