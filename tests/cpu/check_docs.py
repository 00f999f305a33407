#!/usr/bin/env python3
"""The documentation against the program (CPU test): docs/cli.md's option block must be what
`collbench --help` prints, and every CSV column the report writes must be documented in
docs/results-format.md's column table, the one description of the format (and nothing documented
there that the report does not write; results/README.md, the catalogue, holds no second column
table), so neither drifts when an option or a column is added; and results/ holds reference runs
only: its README's catalogue links every folder under results/reference/ that holds a run (results.csv),
and only those, each with its command.txt and its results.json (or results-part*.json for a run
made in parts), and nothing there is code, a patch or a work log (no other README).

usage: check_docs.py COLLBENCH TEST_REPORT REPO_ROOT
(TEST_REPORT: tests/cpu/test_report.c, which writes result files through the real report code)"""
import os
import re
import subprocess
import sys
import tempfile


def fail(msg):
    print("check_docs: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) != 4:
        fail(__doc__)
    collbench, test_report, root = sys.argv[1:]
    helptext = subprocess.run([collbench, "--help"], capture_output=True, text=True, check=False)
    if helptext.returncode != 0:
        fail("collbench --help exited %d" % helptext.returncode)
    lines = helptext.stdout.splitlines()
    start = [i for i, l in enumerate(lines) if l.startswith("sizes (classic")]
    if not start:
        fail("collbench --help has no 'sizes (classic' line")
    want = "\n".join(lines[start[0]:]).strip("\n")
    readme = open(root + "/docs/cli.md", encoding="utf-8").read()
    m = re.search(r"```\n(sizes \(classic.*?)```", readme, re.S)
    if not m:
        fail("docs/cli.md has no option block starting 'sizes (classic'")
    have = m.group(1).strip("\n")
    if have != want:
        import difflib
        diff = "\n".join(difflib.unified_diff(have.splitlines(), want.splitlines(), "docs/cli.md",
                                              "collbench --help", lineterm=""))
        fail("docs/cli.md's option block differs from collbench --help:\n" + diff)

    with tempfile.TemporaryDirectory() as work:
        p = subprocess.run([test_report, "csvonly", work], capture_output=True, text=True, timeout=60, check=False)
        if p.returncode != 0:
            fail("test_report csvonly exited %d: %s" % (p.returncode, p.stderr))
        with open(os.path.join(work, "r.csv"), encoding="utf-8") as f:
            header = f.readline().strip().split(",")
    if len(header) < 10:
        fail("the report's CSV header %r looks wrong" % header)
    fmt = open(root + "/docs/results-format.md", encoding="utf-8").read()
    table = fmt.split("\n## CSV columns\n", 1)[-1].split("\n## ", 1)[0] if "\n## CSV columns\n" in fmt else ""
    documented = set()
    for row in re.findall(r"^\| (`[^|]*`) \|", table, re.M):
        documented.update(re.findall(r"`([a-z0-9_]+)`", row))
    missing = [c for c in header if c not in documented]
    if missing:
        fail("CSV columns not documented in docs/results-format.md's 'CSV columns' table: " + ", ".join(missing))
    extra = sorted(documented - set(header))
    if extra:
        fail("docs/results-format.md documents CSV columns the report does not write: " + ", ".join(extra))
    doc = open(root + "/results/README.md", encoding="utf-8").read()
    if re.search(r"^\| `(family|algo|time_us_mean)`", doc, re.M):
        fail("results/README.md has a CSV column table: the format is described once, in docs/results-format.md")
    refs = check_references(root, doc)
    named = check_paths(root)
    print("check_docs: docs/cli.md option block = collbench --help (%d lines); %d CSV columns documented; "
          "%d reference runs catalogued; %d file names in the docs exist" % (len(want.splitlines()), len(header), refs,
                                                                             named))


CODE = (".patch", ".diff", ".c", ".cu", ".cuh", ".h", ".sh", ".py")
# A file the docs name by its folder (launcher/world_init.c): it must exist, so a rename leaves
# no stale name behind (docs/architecture.md named launcher/world.c long after it became
# world_init.c). Names with a wildcard or a placeholder (collectives/*_hier.c, <family>) are skipped.
PATH_NAME = re.compile(r"(?<![\w/.*<-])((?:base|kernels|collectives|launcher|topologies|plots|tools|tests|docs)"
                       r"/[A-Za-z0-9_./-]*\.(?:c|h|cu|cuh|py|sh|gp|md|txt|cmake))\b(?![*<])")


def check_paths(root):
    """Every folder/file.ext that README.md and docs/*.md name exists; returns how many."""
    docs = ["README.md"] + sorted("docs/" + n for n in os.listdir(os.path.join(root, "docs")) if n.endswith(".md"))
    stale, seen = [], set()
    for doc in docs:
        with open(os.path.join(root, doc), encoding="utf-8") as f:
            for name in set(PATH_NAME.findall(f.read())):
                seen.add(name)
                if not os.path.exists(os.path.join(root, name)):
                    stale.append(f"{doc} names {name}, which does not exist")
    if stale:
        fail("stale file names: " + "; ".join(sorted(stale)))
    return len(seen)


def check_references(root, doc):
    """results/ = README.md + reference/<machine>/<family>[-<variant>]/ run folders, each in
    results/README.md's catalogue; returns how many."""
    results = os.path.join(root, "results")
    extra = sorted(n for n in os.listdir(results) if n not in ("README.md", "reference"))
    if extra:
        fail("results/ holds more than README.md and reference/: " + ", ".join(extra))
    runs, problems = set(), []
    for d, subdirs, names in os.walk(os.path.join(results, "reference")):
        rel = os.path.relpath(d, results)
        problems += [f"{rel}/{n}: code, a patch or a work log in results/" for n in names
                     if n.endswith(CODE) or n.lower() == "readme.md"]
        if "results.csv" not in names:
            continue
        if rel.count(os.sep) != 2:
            problems.append(f"{rel}: not at results/reference/<machine>/<family>[-<variant>]/")
        runs.add(rel.replace(os.sep, "/"))
        if "command.txt" not in names:
            problems.append(f"{rel}: no command.txt")
        if "results.json" not in names and not any(re.fullmatch(r"results-part\d+\.json", n) for n in names):
            problems.append(f"{rel}: no results.json")
    linked = set(re.findall(r"\]\((reference/[^)#]*?)/?\)", doc))
    problems += [f"{r}: not in results/README.md's catalogue" for r in sorted(runs - linked)]
    problems += [f"results/README.md links {r}, which holds no run" for r in sorted(linked - runs)]
    if not runs:
        problems.append("results/reference/ holds no run")
    if problems:
        fail("results/: " + "; ".join(problems))
    return len(runs)


if __name__ == "__main__":
    main()
