#!/usr/bin/env python3
"""The nccl-tests drop-in's output against real nccl-tests 2.19.6 output (tests/cpu/data/
nccl-tests-2.19.6/: every binary, one rank and two ranks, and NCCL_TESTS_MIN_BW failing).

test_ncclt_table CASE prints what the drop-in prints for fixed rows (no GPU here); this script
reads the anchors and those outputs with the same reader, plots/nccl_tests.py's parse_text (what
plots/ uses for nccl-tests' own output), and checks, each check able to fail:
  - the kinds of lines and their order (version, "starting", "# nThread", "# Using devices",
    "#  Rank" lines, the three column-header lines, rows, "# Out of bounds values", "# Avg bus
    bandwidth", "# Collective test concluded") are nccl-tests'; the drop-in adds only its
    "# collbench algorithm: NAME" line before each column header;
  - the column-header lines are byte for byte nccl-tests';
  - every row's fields end at the columns nccl-tests' rows end at (right-aligned widths);
  - case allreduce, fed the numbers of all_reduce-np2.txt, prints that file line for line but
    for the version token and the average (the anchor averaged unrounded times); case iter the
    same with -I 1's per-iteration columns against all_reduce-np2-iter.txt;
  - the footer's verdict words (OK, FAILED, nothing when NCCL_TESTS_MIN_BW is unset) as nccl-tests
    prints them; plots reads the rows with the family and the algorithm of each table;
  - case fail: the failure lines (an NCCL failure and its trace, exit 7's trace) are lines of
    all_reduce-g1-all.txt and all_reduce-g1-minbw.txt, byte for byte, given their host, pid,
    file and line.
With --names DIR LIST: DIR (build/nccl-tests) holds exactly the binaries of LIST (comma list, the
table of collectives/ncclt_names.c), each a link to collbench.

With --output FILE BINARY ROOT: the stdout of a real drop-in run (tests/gpu/run_ncclt_case.sh) has
nccl-tests' line kinds, column headers and row widths (those of BINARY's own anchors), names
BINARY, 0 out-of-bounds values and nccl-tests' line order (a whole sweep of sizes per type, op and
root); with -I 1 (a "# Per-Iteration Report" line) those of
all_reduce-np2-iter.txt, the one -I 1 anchor (every binary prints the same columns).

usage: check_ncclt_format.py TEST_NCCLT_TABLE ROOT
       check_ncclt_format.py --names DIR COLLBENCH TEST_NCCLT_TABLE
       check_ncclt_format.py --output FILE BINARY ROOT [NT_JSON]
(NT_JSON: the run's -J file, with -I 1: the per-iteration columns are its numbers.)"""
import glob
import os
import re
import subprocess
import sys

problems = []


def fail(msg):
    problems.append(msg)
    print("check_ncclt_format: FAIL:", msg)


KINDS = [
    ("version", re.compile(r"# nccl-tests version \S+ nccl-headers=\d+ nccl-library=\d+")),
    ("starting", re.compile(r"# Collective test starting: \w+_perf")),
    ("nthread", re.compile(r"# nThread \d+ nGpus \d+ minBytes \d+ maxBytes \d+ step: \d+\((factor|bytes)\) warmup iters: "
                           r"\d+ iters: \d+ agg iters: \d+ validation: \d+ graph: \d+ unalign: \d+")),
    ("periter", re.compile(r"# Per-Iteration Report: CUDA event timing; i_\* uses max over process rows ")),
    ("using", re.compile(r"# Using devices")),
    ("rank", re.compile(r"#  Rank +\d+ Group +\d+ Pid +\d+ on +\S+ device +\d+ \[[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\] .+")),
    ("algorithm", re.compile(r"# collbench algorithm: \w+")),
    ("groups", re.compile(r"# +out-of-place( \(\+ per-iteration\))? +in-place( \(\+ per-iteration\)| +)")),
    ("names", re.compile(r"# +size +count +type +redop +root +time .*")),
    ("units", re.compile(r"# +\(B\) +\(elements\) .*")),
    ("row", re.compile(r" *\d+ +\d+ +\w+ +\w* +-?\d+( +\S+){8}(( +\S+){8})?")),
    ("skipped", re.compile(r"# +\d+ +\d+ +\w+ +\w* +-?\d+ +(out-of-place|in-place) not run: .*")),
    ("oob", re.compile(r"# Out of bounds values : \d+ (OK|FAILED)")),
    ("avg", re.compile(r"# Avg bus bandwidth    : \S+ (|OK|FAILED)")),
    ("concluded", re.compile(r"# Collective test concluded: \w+_perf")),
    ("hash", re.compile(r"#")),
    ("blank", re.compile(r"")),
]


def kind(line):
    for name, pat in KINDS:
        if pat.fullmatch(line):
            return name
    return None


def table_part(text):
    """The lines from the version line to the blank line after "concluded" (mpirun's and the
    failure lines after it are not nccl-tests' table)."""
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("# nccl-tests version"))
    end = next(i for i, l in enumerate(lines) if l.startswith("# Collective test concluded"))
    return lines[start:end + 2]


def kinds(lines, where):
    out = []
    for n, line in enumerate(lines, 1):
        k = kind(line)
        if k is None:
            fail(f"{where}:{n}: a line of no nccl-tests kind: {line!r}")
        elif not out or out[-1] != k or k not in ("rank", "row", "skipped"):
            out.append(k)
    return out


def field_ends(line):
    return [m.end() for m in re.finditer(r"\S+", line)]


def parse(lines, where):
    sys.path.insert(0, os.path.join(ROOT, "plots"))
    import nccl_tests  # noqa: E402  the reader plots/ uses for nccl-tests' own output
    return nccl_tests.parse_text(lines, where)


def check_anchors(anchors):
    """What every real output shares: returns (column-header lines, row field ends, kinds)."""
    headers, ends, seqs = set(), set(), set()
    for path in anchors:
        name = os.path.basename(path)
        lines = table_part(open(path, encoding="utf-8").read())
        seq = tuple(k for k in kinds(lines, name))
        seqs.add(seq)
        headers.add(tuple(l for l in lines if kind(l) in ("groups", "names", "units")))
        for l in lines:
            if kind(l) == "row" and not name.startswith("hypercube"):  # hypercube: an empty redop field
                ends.add(tuple(field_ends(l)))
        rows, metas = parse(lines, name)
        fam = re.sub(r"-.*", "", name).replace("_", "")
        if metas and not rows:
            fail(f"{name}: plots read no rows")
    if len(headers) != 1:
        fail(f"the anchors' column headers differ: {headers}")
    if len(seqs) != 1:
        fail(f"the anchors' line kinds differ: {seqs}")
    return headers.pop(), ends, seqs.pop()


def run_case(prog, case):
    p = subprocess.run([prog, case], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        fail(f"test_ncclt_table {case}: exit {p.returncode}: {p.stderr[-600:]}")
    if case == "names":
        return p.stdout.splitlines()
    return table_part(p.stdout)


# The cases that print an anchor's numbers: the anchor, and the average line the drop-in prints
# from the rounded numbers (the anchor averaged unrounded times: 0.186264, 0.0936463).
SAME_AS = {
    "allreduce": ("all_reduce-np2.txt", r"# Avg bus bandwidth    : 0\.18\d+ "),
    "iter": ("all_reduce-np2-iter.txt", r"# Avg bus bandwidth    : 0\.09\d* "),
}


def iter_anchor(anchor_dir):
    """all_reduce-np2-iter.txt's column header, row field ends and line kinds (-I 1)."""
    lines = table_part(open(os.path.join(anchor_dir, "all_reduce-np2-iter.txt"), encoding="utf-8").read())
    header = tuple(l for l in lines if kind(l) in ("groups", "names", "units"))
    ends = {tuple(field_ends(l)) for l in lines if kind(l) == "row"}
    return header, ends, tuple(kinds(lines, "all_reduce-np2-iter.txt"))


def check_case(prog, case, header, ends, anchor_seq, anchor_dir):
    lines = run_case(prog, case)
    if case == "iter":
        header, ends, anchor_seq = iter_anchor(anchor_dir)
    where = f"test_ncclt_table {case}"
    seq = kinds(lines, where)
    # the drop-in adds "# collbench algorithm: NAME" before each column header
    plain = [k for k in seq if k != "algorithm"]
    if case == "multi":
        # two tables: the second's heading, rows (one skipped) and footer before "concluded"
        want = list(anchor_seq[:anchor_seq.index("concluded") - 1])
        want += ["hash", "groups", "names", "units", "row", "skipped", "oob", "avg", "hash", "concluded", "hash"]
        got = [k for k in plain if k != "skipped"]
        want = [k for k in want if k != "skipped"]
        if got != want:
            fail(f"{where}: line kinds {got}, expected {want}")
    elif tuple(plain) != anchor_seq:
        fail(f"{where}: line kinds {plain}, nccl-tests prints {list(anchor_seq)}")
    if seq.count("algorithm") != seq.count("groups"):
        fail(f"{where}: a column header without its '# collbench algorithm' line")
    got_headers = [l for l in lines if kind(l) in ("groups", "names", "units")]
    for i in range(0, len(got_headers), 3):
        if tuple(got_headers[i:i + 3]) != header:
            fail(f"{where}: column header {got_headers[i:i + 3]} is not nccl-tests' {list(header)}")
    for l in lines:
        if kind(l) == "row" and "N/A     N/A     N/A" not in l and tuple(field_ends(l)) not in ends:
            fail(f"{where}: row {l!r}: fields end at {field_ends(l)}, nccl-tests' rows at {sorted(ends)}")
    rows, metas = parse(lines, where)
    fam = {"allreduce": "allreduce", "iter": "allreduce", "alltoall": "alltoall", "sendrecv": "sendrecv", "multi": "allreduce",
           "minbw": "allreduce"}[case]
    if sorted(metas) != [fam]:
        fail(f"{where}: plots read families {sorted(metas)}, expected [{fam}]")
    algos = sorted({r["algo"] for r in rows})
    want_algos = ["nccl-tests", "oneshot"] if case == "multi" else ["nccl-tests"]
    if algos != want_algos:
        fail(f"{where}: plots read algorithms {algos}, expected {want_algos}")
    measured = [r for r in rows if r["time_us_mean"] != ""]
    want_measured = {"allreduce": 12, "iter": 10, "minbw": 12, "sendrecv": 6, "alltoall": 6, "multi": 22}[case]
    if len(measured) != want_measured:
        fail(f"{where}: plots read {len(measured)} measured rows, expected {want_measured}")
    if case in SAME_AS:
        name, avg = SAME_AS[case]
        anchor = table_part(open(os.path.join(anchor_dir, name), encoding="utf-8").read())
        mine = [l for l in lines if kind(l) != "algorithm"]
        if len(mine) != len(anchor):
            fail(f"{where}: {len(mine)} lines, {name} has {len(anchor)}")
        for n, (a, b) in enumerate(zip(anchor, mine), 1):
            if kind(a) == "version":
                if not re.fullmatch(r"# nccl-tests version 2\.19\.6\+collbench-\S+ nccl-headers=22803 nccl-library=22803", b):
                    fail(f"{where}: version line {b!r}")
            elif kind(a) == "avg":
                if not re.fullmatch(avg, b):
                    fail(f"{where}: average line {b!r} (nccl-tests: {a!r})")
            elif a != b:
                fail(f"{where}: line {n}: {b!r}, nccl-tests: {a!r}")
        if not any(kind(l) == "avg" for l in anchor):
            fail(f"{name}: no average line")
    if case == "minbw":
        for path in glob.glob(os.path.join(anchor_dir, "*minbw.txt")):
            a = [l for l in table_part(open(path, encoding="utf-8").read()) if kind(l) == "avg"]
            if not a or not a[0].endswith(" FAILED"):
                fail(f"{path}: no FAILED average line")
        if not any(re.fullmatch(r"# Avg bus bandwidth    : \S+ FAILED", l) for l in lines):
            fail(f"{where}: no FAILED average line")


TRACE = re.compile(r" \.\. \S+ pid \d+: Test failure [\w.]+:\d+")


def check_fail(prog, anchor_dir):
    p = subprocess.run([prog, "fail"], capture_output=True, text=True, timeout=60)
    where = "test_ncclt_table fail"
    if p.returncode != 0:
        fail(f"{where}: exit {p.returncode}: {p.stderr[-600:]}")
    got = p.stdout.splitlines()
    all_lines = open(os.path.join(anchor_dir, "all_reduce-g1-all.txt"), encoding="utf-8").read().splitlines()
    minbw = open(os.path.join(anchor_dir, "all_reduce-g1-minbw.txt"), encoding="utf-8").read().splitlines()
    if len(got) < 3:
        fail(f"{where}: {got}")
        return
    if got[0] not in all_lines:
        fail(f"{where}: {got[0]!r} is not all_reduce-g1-all.txt's NCCL failure line")
    if not TRACE.fullmatch(got[1]) or not any(TRACE.fullmatch(l) for l in all_lines):
        fail(f"{where}: trace line {got[1]!r} is not nccl-tests' shape")
    if got[2] not in minbw:
        fail(f"{where}: {got[2]!r} is not all_reduce-g1-minbw.txt's exit-7 line")


def check_names(folder, collbench, prog):
    names = sorted(l for l in run_case(prog, "names") if l.endswith("_perf"))
    if len(names) != 11:
        fail(f"test_ncclt_table names: {names}")
    have = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    if have != names:
        fail(f"{folder} holds {have}, the binary table {names}")
    for n in have:
        path = os.path.join(folder, n)
        if not os.path.islink(path) or os.path.realpath(path) != os.path.realpath(collbench):
            fail(f"{path} is not a link to {collbench}")


def check_order(lines, where):
    """nccl-tests' line order: in each table, the rows of one (type, redop, root) stand together
    (a whole sweep of sizes per type, op and root; all_reduce-g1-all.txt)."""
    done, last = set(), None
    for l in lines:
        if kind(l) == "algorithm":
            done, last = set(), None
        elif kind(l) in ("row", "skipped"):
            f = l.lstrip("#").split()
            key = (f[2], f[3], f[4]) if len(f) > 4 and f[3] != "-1" else (f[2], "", f[3])
            if key != last:
                if key in done:
                    fail(f"{where}: {key} again after other types or ops: nccl-tests prints a whole sweep per type and op")
                if last:
                    done.add(last)
                last = key


def ncclt_float(v, width):
    """nccl-tests' getFloatStr: %.2f, then fewer decimals, then %e, in width characters."""
    for fmt in ("%*.2f", "%*.1f", "%*.0f"):
        s = fmt % (width, v)
        if len(s) <= width:
            return s.strip()
    return (("%*.1e" if width >= 7 else "%*.0e") % (width, v)).strip()


def check_iter_json(path, json_path):
    """-I 1 with -J: each row's i_min i_max i_p99 i_cv% are its -J result's min_us, max_us,
    p99_us and cv_pct as nccl-tests prints them (the table and the file from the same times)."""
    import json
    results = json.load(open(json_path, encoding="utf-8"))["results"]
    rows = [l.split() for l in table_part(open(path, encoding="utf-8").read()) if kind(l) == "row"]
    if len(rows) != len(results) or not rows:
        fail(f"{path}: {len(rows)} rows, {json_path}: {len(results)} results")
        return
    for f, r in zip(rows, results):
        for side, at in (("out_of_place_per_iter", 9), ("in_place_per_iter", 17)):
            p = r.get(side)
            if not p or len(f) < at + 4:
                fail(f"{path}: size {f[0]}: no {side} in the -J file, or no per-iteration columns")
                continue
            want = [ncclt_float(p[k], 7) for k in ("min_us", "max_us", "p99_us", "cv_pct")]
            if f[at:at + 4] != want:
                fail(f"{path}: size {f[0]} {side}: i_min i_max i_p99 i_cv% {f[at:at + 4]}, the -J file's {want}")


def check_output(path, binary, anchor_dir):
    """A real drop-in run's stdout against the anchors of its binary."""
    prefix = binary[:-len("_perf")]
    anchors = sorted(glob.glob(os.path.join(anchor_dir, f"{prefix}-g1.txt")) +
                     glob.glob(os.path.join(anchor_dir, f"{prefix}-np2.txt")))
    if len(anchors) != 2:
        fail(f"{binary}: no anchors {prefix}-g1.txt and {prefix}-np2.txt in {anchor_dir}")
        return
    header, seq = None, None
    ends = set()
    for a in anchors:
        lines = table_part(open(a, encoding="utf-8").read())
        seq = tuple(kinds(lines, a))
        header = tuple(l for l in lines if kind(l) in ("groups", "names", "units"))
        ends |= {tuple(field_ends(l)) for l in lines if kind(l) == "row"}
    lines = table_part(open(path, encoding="utf-8", errors="replace").read())
    if any(kind(l) == "periter" for l in lines):
        header, ends, seq = iter_anchor(anchor_dir)
        if binary == "hypercube_perf":  # its empty redop field: every end but that one
            ends |= {e[:3] + e[4:] for e in ends}
    got = [k for k in kinds(lines, path) if k not in ("algorithm", "skipped")]
    # --algo LIST: the tables after the first (heading, rows, footer) before "concluded"
    more = ["hash", "groups", "names", "units", "row", "oob", "avg"]
    first = got.index("avg") + 1 if "avg" in got else len(got)
    while got[first:first + len(more)] == more:
        del got[first:first + len(more)]
    if tuple(got) != seq:
        fail(f"{path}: line kinds {got}, nccl-tests prints {list(seq)}")
    heads = [l for l in lines if kind(l) in ("groups", "names", "units")]
    for i in range(0, len(heads), 3):
        if tuple(heads[i:i + 3]) != header:
            fail(f"{path}: column header {heads[i:i + 3]} is not nccl-tests'")
    rows = [l for l in lines if kind(l) == "row"]
    if not rows:
        fail(f"{path}: no rows")
    for l in rows:
        if "N/A     N/A     N/A" not in l and tuple(field_ends(l)) not in ends:
            fail(f"{path}: row {l!r}: fields end at {field_ends(l)}, nccl-tests' {binary} rows at {sorted(ends)}")
    check_order(lines, path)
    for want in (f"# Collective test starting: {binary}", f"# Collective test concluded: {binary}",
                 "# Out of bounds values : 0 OK"):
        if want not in lines:
            fail(f"{path}: no line {want!r}")
    parse(lines, path)  # plots' reader takes it (InputError otherwise)


def main():
    global ROOT
    if sys.argv[1:2] == ["--names"]:
        check_names(*sys.argv[2:5])
    elif sys.argv[1:2] == ["--output"]:
        ROOT = sys.argv[4]
        check_output(sys.argv[2], sys.argv[3], os.path.join(ROOT, "tests", "cpu", "data", "nccl-tests-2.19.6"))
        if len(sys.argv) > 5:
            check_iter_json(sys.argv[2], sys.argv[5])
    else:
        prog, ROOT = sys.argv[1], sys.argv[2]
        anchor_dir = os.path.join(ROOT, "tests", "cpu", "data", "nccl-tests-2.19.6")
        anchors = sorted(glob.glob(os.path.join(anchor_dir, "*-g1.txt")) + glob.glob(os.path.join(anchor_dir, "*-np2.txt")))
        if len(anchors) != 22:
            fail(f"{anchor_dir}: {len(anchors)} anchors, expected 22 (11 binaries, -g 1 and 2 ranks)")
        header, ends, seq = check_anchors(anchors)
        for case in ("allreduce", "iter", "alltoall", "sendrecv", "multi", "minbw"):
            check_case(prog, case, header, ends, seq, anchor_dir)
        check_fail(prog, anchor_dir)
    if problems:
        print(f"check_ncclt_format: {len(problems)} problem(s)")
        return 1
    print("PASS check_ncclt_format")
    return 0


ROOT = None
if __name__ == "__main__":
    sys.exit(main())
