#!/usr/bin/env python3
"""CPU test of plots/verdict.py and `plots/plot --against` on the committed fixture runs of
data/verdict/ (make_verdict_fixtures.py: a real 2 x H200 reference, a normal run, a slow run
with three recorded causes, runs from another GPU, with 4 ranks and with both ranks on one GPU):
the right verdict for each; like compared with like only: another GPU model, rank count or node
count refused with its reason, a run whose ranks share a GPU (however recorded) NOT COMPARABLE,
and such a run never a reference; the reference found automatically among a reference tree
(named, with why, and the refused ones with their reasons) and not found for another GPU;
summary.md's verdict section replaced, not duplicated; bad input refused with exit 2; each run
folder read once per invocation (the run, its reference and every candidate --find looks at); a
run named by its CSV (results.csv in the tree --find searches, or another name) judged as its
folder's run, never its own reference.
usage: test_verdict.py WORKDIR"""
import csv
import json
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


def edit_json(folder, fn):
    path = os.path.join(folder, "results.json")
    with open(path) as f:
        doc = json.load(f)
    fn(doc["meta"])
    with open(path, "w") as f:
        json.dump(doc, f)


def edit_csv(folder, fn):
    path = os.path.join(folder, "results.csv")
    with open(path, newline="") as f:
        rd = csv.DictReader(f)
        cols, rows = rd.fieldnames, list(rd)
    rows = fn(rows)
    cols = cols + [k for k in (rows[0] if rows else {}) if k not in cols]  # a column fn added
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)


def no_rows_judged(out):
    return not any(f"**{v}**" in out for v in ("OK", "SLOW", "FAST"))


# python3 -c COUNT_OPENS SCRIPT ARGS: runs SCRIPT with every path it opens counted (builtins.open
# and os.open, the readers' two ways in), then the counts on stderr as "opened N PATH" lines
COUNT_OPENS = r"""
import builtins, collections, os, runpy, sys
opened = collections.Counter()
def counted(real):
    def wrapper(path, *args, **kwargs):
        if isinstance(path, str):
            opened[os.path.realpath(path)] += 1
        return real(path, *args, **kwargs)
    return wrapper
builtins.open, os.open = counted(builtins.open), counted(os.open)
sys.argv = sys.argv[1:]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
finally:
    sys.stderr.write("".join(f"opened {n} {p}\n" for p, n in sorted(opened.items())))
"""


def read_once(root):
    """A run against a reference (the section against the hardware reads the reference too: these
    runs have no copy-engine rows) and --find in root: results.csv, results.json and link_gbs of
    each folder opened once (they were: the run's 5 times, its reference's 4)."""
    candidates = [os.path.join(root, *n.split("/")) for n in ("h200x2/allreduce", "a100x2/allreduce",
                                                                   "h200x4/allreduce", "h200x2/allreduce-shared")]
    for what, args, folders, want in (
            ("against a reference", [os.path.join(DATA, "reference"), os.path.join(DATA, "normal")],
             [os.path.join(DATA, "reference"), os.path.join(DATA, "normal")], "**OK**"),
            ("--find", ["--find", root, os.path.join(DATA, "slow")], [os.path.join(DATA, "slow")] + candidates,
             "(found automatically)")):
        rc, out, err = run(sys.executable, "-c", COUNT_OPENS, VERDICT, *args)
        opened, errors = {}, []
        for line in err.splitlines():
            if line.startswith("opened "):
                n, path = line.split(" ", 2)[1:]
                opened[path] = int(n)
            else:
                errors.append(line)
        check(rc == 0 and want in out and "### Against the hardware" in out,
              f"read once, {what}: the verdict and the section against the hardware ({rc} {errors[-3:]})")
        for folder in folders:
            for name in ("results.csv", "results.json", "link_gbs"):
                n = opened.get(os.path.realpath(os.path.join(folder, name)), 0)
                check(n == 1, f"read once, {what}: {os.path.normpath(folder)}/{name} opened once (got {n})")


def refused_runs(work):
    """Runs that must not be compared with the reference, each refused with its reason."""
    out = verdict_of("other-gpu")
    check("**NO VERDICT**: different GPU model: NVIDIA H200 in the reference, NVIDIA A100-SXM4-80GB in this run" in out,
          "other GPU: no verdict, the GPU models named")
    check(no_rows_judged(out), "other GPU: no OK/SLOW/FAST rows")
    out = verdict_of("ranks4")
    check("**NO VERDICT**: different rank count: 2 in the reference, 4 in this run" in out,
          "4 ranks: refused (rank count)")
    check(no_rows_judged(out), "4 ranks: no OK/SLOW/FAST rows")
    nodes2 = os.path.join(work, "nodes2")
    shutil.copytree(os.path.join(DATA, "normal"), nodes2)
    edit_json(nodes2, lambda m: m.update(nodes=2))
    edit_csv(nodes2, lambda rows: [dict(r, nodes="2") for r in rows])
    rc, out, _ = run(sys.executable, VERDICT, os.path.join(DATA, "reference"), nodes2)
    check(rc == 0 and "**NO VERDICT**: different node count: 1 in the reference, 2 in this run" in out,
          "2 nodes: refused (node count)")

    shared = "**NOT COMPARABLE: ranks share a GPU (correctness only)**"
    out = verdict_of("shared-gpu")
    check(shared + " — results.json records gpu_shared: true" in out, "shared GPU: NOT COMPARABLE, from gpu_shared")
    check(no_rows_judged(out), "shared GPU: no OK/SLOW/FAST rows (the same numbers as the reference)")
    # the same run as older collbench recorded it: no gpu_shared, no CB_SHARE_GPUS, one PCI bus id twice
    old = os.path.join(work, "shared-old")
    shutil.copytree(os.path.join(DATA, "shared-gpu"), old)
    edit_json(old, lambda m: (m.pop("gpu_shared"), m["env"].pop("CB_SHARE_GPUS")))
    rc, out, _ = run(sys.executable, VERDICT, os.path.join(DATA, "reference"), old)
    check(rc == 0 and shared + " — ranks 0 and 1 both use GPU 0000:00:06.0 on vm" in out,
          "shared GPU, older metadata: NOT COMPARABLE from the rank records")
    env_only = os.path.join(work, "shared-env")
    shutil.copytree(os.path.join(DATA, "shared-gpu"), env_only)
    edit_json(env_only, lambda m: (m.pop("gpu_shared"), m.update(rank_info=[])))
    rc, out, _ = run(sys.executable, VERDICT, os.path.join(DATA, "reference"), env_only)
    check(rc == 0 and shared + " — results.json records CB_SHARE_GPUS=1" in out,
          "shared GPU, only the environment says so: NOT COMPARABLE")
    # a CSV without results.json: a skipped row's note says the ranks share a GPU
    csv_only = os.path.join(work, "shared-csv")
    shutil.copytree(os.path.join(DATA, "shared-gpu"), csv_only)
    os.remove(os.path.join(csv_only, "results.json"))
    note = "not supported: ranks share a GPU (its copies between them then wait behind the reduce)"
    edit_csv(csv_only, lambda rows: rows + [dict(rows[0], algo="twoshot_ce", time_us_mean="", time_us_max="",
                                                  time_us_p50="", time_us_p99="", algbw_gbs="", busbw_gbs="",
                                                  wrong="", note=note)])
    rc, out, _ = run(sys.executable, VERDICT, os.path.join(DATA, "reference"), csv_only)
    check(rc == 0 and shared in out and "a row's note says so (twoshot_ce" in out,
          "shared GPU, CSV only: NOT COMPARABLE from the note")
    # a shared-GPU run is no reference either
    rc, out, _ = run(sys.executable, VERDICT, os.path.join(DATA, "shared-gpu"), os.path.join(DATA, "normal"))
    check(rc == 0 and "**NO VERDICT**: ranks share a GPU (correctness only) in the reference" in out and
          no_rows_judged(out), "shared-GPU reference: refused")


def find_tests(work):
    """--find in a reference tree laid out as results/reference/: the matching run chosen and named
    with why, the others refused with their reasons; returns the tree."""
    root = os.path.join(work, "reference")
    for d, name in (("reference", "h200x2/allreduce"), ("other-gpu", "a100x2/allreduce"),
                    ("ranks4", "h200x4/allreduce"), ("shared-gpu", "h200x2/allreduce-shared")):
        shutil.copytree(os.path.join(DATA, d), os.path.join(root, *name.split("/")))
    rc, out, _ = run(sys.executable, VERDICT, "--find", root, os.path.join(DATA, "slow"))
    want = os.path.join(root, "h200x2", "allreduce")
    check(rc == 0 and f"## Verdict: allreduce against {want}" in out and "**SLOW**" in out,
          "--find picks h200x2/allreduce, the one like the run")
    check(f"Reference `{want}` (found automatically), chosen because it is the same family (allreduce), GPU model "
          "(NVIDIA H200), rank count (2) and node count (1), its ranks each have a GPU of their own, and it shares "
          "the most measured rows with this run (40)" in out, "--find: the reference named with why it was chosen")
    for name, why in (("a100x2/allreduce", "different GPU model: NVIDIA A100-SXM4-80GB in the reference"),
                      ("h200x4/allreduce", "different rank count: 4 in the reference, 2 in this run"),
                      ("h200x2/allreduce-shared", "ranks share a GPU (correctness only) in the reference: "
                                                  "results.json records gpu_shared: true")):
        check(f"- `{os.path.join(root, *name.split('/'))}`: {why}" in out, f"--find: {name} refused: {why}")
    rc, out, _ = run(sys.executable, VERDICT, "--find", root, os.path.join(DATA, "ranks4"))
    check(rc == 0 and f"against {os.path.join(root, 'h200x4', 'allreduce')}" in out and
          f"- `{want}`: different rank count: 2 in the reference, 4 in this run" in out,
          "--find for a 4-rank run: h200x4/allreduce, the 2-rank one refused with its reason")
    rc, out, _ = run(sys.executable, VERDICT, "--find", root, os.path.join(DATA, "shared-gpu"))
    check(rc == 0 and "**NOT COMPARABLE: ranks share a GPU (correctness only)**" in out and
          no_rows_judged(out) and "become the reference" not in out,
          "--find for a shared-GPU run: NOT COMPARABLE, never offered as a reference")
    # a run inside the tree, named by its CSV: never its own reference (the folder is the run)
    inside = os.path.join(root, "h200x2", "allreduce-copy")
    shutil.copytree(os.path.join(DATA, "slow"), inside)
    rc, out, _ = run(sys.executable, VERDICT, "--find", root, os.path.join(inside, "results.csv"))
    check(rc == 0 and f"against {want}" in out and f"against {inside}" not in out and "**SLOW**" in out,
          "--find ROOT ROOT/x/results.csv: x is not its own reference")
    shutil.rmtree(inside)
    # the repository's own reference tree: every run loads, the 2 x H200 all-reduce one is chosen
    real = os.path.normpath(os.path.join(ROOT, "results", "reference"))
    rc, out, err = run(sys.executable, VERDICT, "--find", real, os.path.join(DATA, "normal"))
    check(rc == 0 and "against results/reference/h200x2/allreduce" in out and "**OK**" in out,
          f"--find in results/reference: h200x2/allreduce ({rc} {err.strip()[:200]})")
    return root


def main():
    work = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    # the committed fixtures are what the generator writes
    regen = os.path.join(work, "regen")
    rc, _, err = run(sys.executable, os.path.join(HERE, "make_verdict_fixtures.py"), regen)
    check(rc == 0, "make_verdict_fixtures.py runs")
    for d in ("reference", "normal", "slow", "other-gpu", "ranks4", "shared-gpu"):
        for f in ("results.csv", "results.json", "link_gbs"):
            with open(os.path.join(regen, d, f)) as a, open(os.path.join(DATA, d, f)) as b:
                check(a.read() == b.read(), f"fixture {d}/{f} is current")

    out = verdict_of("normal")
    check("**OK**: 8 variants; auto 8 GiB " in out.split("\n")[2], "normal: overall OK, the opening line")
    check("SLOW" not in out and "FAST" not in out, "normal: no row SLOW or FAST (±3 % is inside the tolerance)")
    judged = lambda algo: sum(1 for ln in out.splitlines() if ln.startswith(f"| {algo} | ") and ln.endswith("**OK** |"))
    check(judged("nccl") == 4 and judged("auto") == 4, "normal: 4 variants of nccl and of auto")
    check("@ 4 GiB–8 GiB" in out and "@ 8 B–16 B" in out, "normal: busbw at the largest, latency at the smallest sizes")

    out = verdict_of("slow")
    check(out.split("\n")[2].startswith("**SLOW**: 8 variants, 8 SLOW ("), "slow: overall SLOW, the opening line")
    check("(0.60) @ 4 GiB–8 GiB **SLOW**" in out, "slow: busbw ratio 0.60 SLOW")
    check("(1.60) @ 8 B–16 B **SLOW**" in out, "slow: latency ratio 1.60 SLOW")
    check("ran unbound" in out, "slow: cause: unbound ranks (NUMA)")
    check("fewer NVLinks than the reference: 239 GB/s per GPU vs 478" in out, "slow: cause: fewer NVLinks")
    check("NCCL version differs: 2.21.5 here, 2.28.3 in the reference" in out, "slow: cause: NCCL version")
    check("nothing differs" not in out, "slow: no 'nothing differs' line")

    refused_runs(work)
    root = find_tests(work)
    read_once(root)
    only_other = os.path.join(work, "results-a100")
    shutil.copytree(os.path.join(DATA, "other-gpu"), os.path.join(only_other, "a100x2", "allreduce"))
    rc, out, _ = run(sys.executable, VERDICT, "--find", only_other, os.path.join(DATA, "normal"))
    check(rc == 0 and "**NO REFERENCE** for allreduce on NVIDIA H200 × 2 ranks" in out, "--find: no H200 reference")
    check("this run can become the reference: copy it to results/reference/" in out,
          "--find: says how the run can become the reference")
    check("different GPU model: NVIDIA A100-SXM4-80GB in the reference, NVIDIA H200 in this run" in out,
          "--find: names the refused A100 run and why")
    # a run with no correct measured row (here every row marked wrong) must not be offered as a reference
    broken = os.path.join(work, "broken")
    shutil.copytree(os.path.join(DATA, "normal"), broken)
    os.remove(os.path.join(broken, "results.json"))
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
    check(rc == 0 and "**NO VERDICT**" in out and "become the reference" not in out,
          "--find: a run with every row wrong gets no verdict and no suggestion to make it a reference")
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

    # a run named by a CSV of another name in its folder: judged from that CSV (its results.json
    # beside it), the same verdict as the folder's results.csv
    other = os.path.join(work, "other-name")
    shutil.copytree(os.path.join(DATA, "slow"), other)
    os.rename(os.path.join(other, "results.csv"), os.path.join(other, "other.csv"))
    rc, out, err = run(sys.executable, VERDICT, os.path.join(DATA, "reference"), os.path.join(other, "other.csv"))
    check(rc == 0 and "**SLOW**" in out and "(0.60) @ 4 GiB–8 GiB **SLOW**" in out,
          f"a run given as DIR/other.csv: judged (SLOW), not refused for a missing results.csv ({rc} {err.strip()[:200]})")

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
    same = os.path.join(work, "ringattn-same")
    shutil.copytree(ra, same)
    rc, out, err = run(sys.executable, VERDICT, ra, same)
    check(rc == 0 and "**OK**" in out, f"ringattn against itself: OK ({rc} {err.strip()})")
    check("| ring | bfloat16 causal" in out and "| ring | bfloat16 non-causal" in out,
          "ringattn: causal and non-causal verdict lines apart")
    check("@ S = " in out and " B " not in out.split("| ring |")[1].split("\n")[0],
          "ringattn: points named as sequence lengths")
    # the pass: a backward run is never judged against forward rows (a reference from before
    # --pass, with no pass column, holds forward rows); against backward rows it is
    bwd = os.path.join(work, "ringattn-bwd")
    shutil.copytree(ra, bwd)
    edit_csv(bwd, lambda rows: [dict(r, **{"pass": "bwd"}) for r in rows])
    rc, out, err = run(sys.executable, VERDICT, ra, bwd)
    check(rc == 0 and no_rows_judged(out), f"ringattn bwd run against forward rows: nothing judged ({rc} {err.strip()})")
    bwd2 = os.path.join(work, "ringattn-bwd2")
    shutil.copytree(bwd, bwd2)
    rc, out, err = run(sys.executable, VERDICT, bwd, bwd2)
    check(rc == 0 and "**OK**" in out and "| ring | bfloat16 bwd causal" in out,
          f"ringattn bwd run against bwd rows: OK, the pass named ({rc} {err.strip()})")
    fwd = os.path.join(work, "ringattn-fwd")
    shutil.copytree(ra, fwd)
    edit_csv(fwd, lambda rows: [dict(r, **{"pass": "fwd"}) for r in rows])
    rc, out, err = run(sys.executable, VERDICT, ra, fwd)
    check(rc == 0 and "**OK**" in out and "| ring | bfloat16 causal" in out,
          f"ringattn fwd rows against a reference without a pass column: the forward, OK ({rc} {err.strip()})")

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
