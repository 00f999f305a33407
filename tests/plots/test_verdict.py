#!/usr/bin/env python3
"""CPU test of plots/verdict.py and `plots/plot --against` on the committed fixture runs of
data/verdict/ (make_verdict_fixtures.py: a real 2 x H200 reference, a normal run, a slow run
with three recorded causes, a run from another GPU): the right verdict for each, the reference
found automatically (and not found for another GPU), summary.md's verdict section replaced, not
duplicated, and bad input refused with exit 2.
usage: test_verdict.py WORKDIR"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
VERDICT = os.path.join(ROOT, "plots", "verdict.py")
PLOT = os.path.join(ROOT, "plots", "plot")
DATA = os.path.join(HERE, "data", "verdict")
failures = []


def run(*args):
    p = subprocess.run(list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def verdict_of(name):
    rc, out, err = run(sys.executable, VERDICT, os.path.join(DATA, "reference"), os.path.join(DATA, name))
    check(rc == 0, f"{name}: exit 0 (got {rc}: {err.strip()})")
    return out


def main():
    work = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    # the committed fixtures are what the generator writes
    regen = os.path.join(work, "regen")
    rc, _, err = run(sys.executable, os.path.join(HERE, "make_verdict_fixtures.py"), regen)
    check(rc == 0, "make_verdict_fixtures.py runs")
    for d in ("reference", "normal", "slow", "other-gpu"):
        for f in ("results.csv", "results.json", "link_gbs"):
            with open(os.path.join(regen, d, f)) as a, open(os.path.join(DATA, d, f)) as b:
                check(a.read() == b.read(), f"fixture {d}/{f} is current")

    out = verdict_of("normal")
    check("**OK** — NVIDIA H200 × 2 ranks" in out, "normal: overall OK")
    check("SLOW" not in out and "FAST" not in out, "normal: no row SLOW or FAST (±3 % is inside the tolerance)")
    check(out.count("| nccl |") == 4 and out.count("| auto |") == 4, "normal: 4 variants of nccl and of auto")
    check("@ 4 GiB–8 GiB" in out and "@ 8 B–16 B" in out, "normal: busbw at the largest, latency at the smallest sizes")

    out = verdict_of("slow")
    check("**SLOW** — NVIDIA H200 × 2 ranks" in out, "slow: overall SLOW")
    check("(0.60) @ 4 GiB–8 GiB **SLOW**" in out, "slow: busbw ratio 0.60 SLOW")
    check("(1.60) @ 8 B–16 B **SLOW**" in out, "slow: latency ratio 1.60 SLOW")
    check("ran unbound" in out, "slow: cause: unbound ranks (NUMA)")
    check("fewer NVLinks than the reference: 239 GB/s per GPU vs 478" in out, "slow: cause: fewer NVLinks")
    check("NCCL version differs: 2.21.5 here, 2.28.3 in the reference" in out, "slow: cause: NCCL version")
    check("nothing differs" not in out, "slow: no 'nothing differs' line")

    out = verdict_of("other-gpu")
    check("**NO VERDICT**" in out and "NVIDIA A100-SXM4-80GB" in out, "other GPU: no verdict, names both GPUs")
    check("OK" not in out.replace("NO VERDICT", ""), "other GPU: no OK/SLOW rows")

    # automatic reference: a results root holding the reference and the other GPU's run
    root = os.path.join(work, "results")
    for d in ("reference", "other-gpu"):
        shutil.copytree(os.path.join(DATA, d), os.path.join(root, "20261129-" + d))
    rc, out, _ = run(sys.executable, VERDICT, "--find", root, os.path.join(DATA, "slow"))
    check(rc == 0 and "20261129-reference" in out and "**SLOW**" in out, "--find picks the H200 reference")
    only_other = os.path.join(work, "results-a100")
    shutil.copytree(os.path.join(DATA, "other-gpu"), os.path.join(only_other, "a100"))
    rc, out, _ = run(sys.executable, VERDICT, "--find", only_other, os.path.join(DATA, "normal"))
    check(rc == 0 and "**NO REFERENCE** for allreduce on NVIDIA H200 × 2 ranks" in out, "--find: no H200 reference")
    check("commit this run as the reference: `git add" in out, "--find: suggests committing the run")
    # a run with no correct measured row (here every row marked wrong) must not be offered as a reference
    broken = os.path.join(work, "broken")
    shutil.copytree(os.path.join(DATA, "normal"), broken)
    os.remove(os.path.join(broken, "results.json"))
    import csv
    with open(os.path.join(broken, "results.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        if r["time_us_mean"]:
            r["wrong"] = "5"
    with open(os.path.join(broken, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    rc, out, _ = run(sys.executable, VERDICT, "--find", root, broken)
    check(rc == 0 and "**NO VERDICT**" in out and "git add" not in out,
          "--find: a run with every row wrong gets no verdict and no suggestion to commit it")
    # rows measured with -c 0 (empty wrong field) are counted as unverified in summary.md, not as correct
    for r in rows:
        r["wrong"] = "" if r["time_us_mean"] else r["wrong"]
    with open(os.path.join(broken, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    rc, out, err = run(sys.executable, os.path.join(ROOT, "plots", "summary"), broken)
    measured = sum(1 for r in rows if r["time_us_mean"])
    check(rc == 0 and f"{measured} measured without a correctness check (-c 0)" in out,
          f"summary: {measured} unchecked rows named as unverified ({rc} {err.strip()[:200]})")

    # plots/plot --against writes the section into summary.md, once
    mine = os.path.join(work, "run")
    shutil.copytree(os.path.join(DATA, "slow"), mine)
    with open(os.path.join(mine, "summary.md"), "w") as f:
        f.write("# summary\n\nbody\n")
    for _ in range(2):
        rc, out, err = run(PLOT, "--against", os.path.join(DATA, "reference"), mine)
        check(rc == 0 and "**SLOW**" in out, f"plots/plot --against: exit 0, SLOW printed ({rc} {err.strip()})")
    text = open(os.path.join(mine, "summary.md")).read()
    check(text.startswith("# summary\n\nbody\n\n## Verdict"), "summary.md keeps its body, verdict appended")
    check(text.count("## Verdict") == 1, "summary.md: one verdict section after two runs")

    # ringattn: causal and non-causal rows at the same S are separate lines, x labelled as S
    ra = os.path.join(HERE, "data", "synthetic-ringattn")
    rc, out, err = run(sys.executable, VERDICT, ra, ra)
    check(rc == 0 and "**OK**" in out, f"ringattn against itself: OK ({rc} {err.strip()})")
    check("| ring | bfloat16 causal" in out and "| ring | bfloat16 non-causal" in out,
          "ringattn: causal and non-causal verdict lines apart")
    check("@ S = " in out and " B " not in out.split("| ring |")[1].split("\n")[0],
          "ringattn: points named as sequence lengths")

    # bad input
    rc, _, err = run(sys.executable, VERDICT, os.path.join(work, "nope"), os.path.join(DATA, "normal"))
    check(rc == 2 and err.startswith("verdict: "), "missing reference: exit 2, one line")
    rc, _, _ = run(PLOT, "--against", os.path.join(DATA, "reference"))
    check(rc == 2, "plots/plot --against with one folder: usage, exit 2")
    rc, _, _ = run(sys.executable, VERDICT, "--bw-tol", "1.5", os.path.join(DATA, "reference"), os.path.join(DATA, "normal"))
    check(rc == 2, "--bw-tol 1.5 refused")

    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
