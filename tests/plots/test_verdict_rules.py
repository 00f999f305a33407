#!/usr/bin/env python3
"""The verdict's rules (plots/verdict.py, plots/judge.py, plots/plot --against) on fixture runs
made from the committed references, one case per rule:

  cold       a first row's mean holds a cold iteration: judged by p50, so a copy of h200x2/alltoall
             whose first row is normal is OK, not FAST (its mean was 34.3 µs against p50 9.2), and
             a copy with a cold first row everywhere is OK, not SLOW
  slower     a copy of h200x2/allreduce 20 % slower everywhere: SLOW, busbw 0.80, the opening line
             first ("**SLOW**: 28 variants, 28 SLOW (...); auto 8 GiB ..."), the tables folded
  ringattn   a copy of h200x1/ringattn with 20 % lower TFLOP/s: SLOW by TFLOP/s per GPU (single and
             single_cudnn only at P = 1), never by busbw or latency; the cause named
  moe        a copy of h200x2/moe-deepseek-v3 20 % slower: SLOW by the round trip's remote GB/s,
             with its share of copy_ce; no busbw
  capped     oneshot_ll (offered up to 4 MiB) and oneshot (32 MiB) are not "far below" at their
             largest size; the opening line of the reference's own verdict is one line:
             "auto 8 GiB 379 GB/s = 79 % of NVLink"
  failon     plots/plot --fail-on slow --against: exit 6 on SLOW, 0 on OK; an unknown word or
             --fail-on without a verdict: exit 2 with one line, nothing written
  itself     a committed reference judged against itself (auto, and by its own path) says so and
             leaves `git status` clean
  redraw     plots/plot RUN after plots/plot --against: the verdict section stays, word for word

usage: test_verdict_rules.py CASE WORKDIR"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
from reference_copies import REF, ROOT, copy_run, expect, main  # noqa: E402
PLOT = os.path.join(ROOT, "plots", "plot")
VERDICT = os.path.join(ROOT, "plots", "verdict.py")


def run(args, **kw):
    p = subprocess.run(args, capture_output=True, text=True, timeout=280, **kw)
    expect("Traceback" not in p.stderr, f"{args}: traceback\n{p.stderr}")
    return p


def slower(k):
    """An edit making a row k times slower: times x k, throughputs / k."""
    def edit(r):
        for c in ("time_us_mean", "time_us_max", "time_us_p50", "time_us_p99", "compute_us", "comm_us"):
            if r.get(c):
                r[c] = f"{float(r[c]) * k:.4f}"
        for c in ("algbw_gbs", "busbw_gbs", "remote_gbs", "tflops"):
            if r.get(c):
                r[c] = f"{float(r[c]) / k:.4f}"
    return edit


def verdict(run_dir, *extra):
    p = run([sys.executable, VERDICT, *extra, "--find", REF, run_dir])
    expect(p.returncode == 0, f"verdict.py {run_dir}: exit {p.returncode}\n{p.stderr}")
    return p.stdout


def opening(out):
    """The line after the '## Verdict' heading: the verdict opens with it."""
    lines = out.splitlines()
    expect(lines[0].startswith("## Verdict") and lines[1] == "", f"no verdict heading:\n{out[:400]}")
    return lines[2]


def table(out):
    """The per-variant table's rows (inside the first <details>)."""
    body = out.split("<details><summary>", 1)[1].split("</details>", 1)[0]
    return [ln for ln in body.splitlines() if ln.startswith("| ") and not ln.startswith("| algo |")]


def case_cold(work):
    def warm_first(r):
        if (r["algo"], r["dtype"], r["mode"], r["bytes"]) == ("nccl", "float", "eager", "8"):
            r["time_us_mean"] = "10.5"  # the reference's 34.3 held a cold first iteration
    out = verdict(copy_run("h200x2/alltoall", work, "warm", edit=warm_first))
    expect("FAST" not in out, "normal first row: FAST somewhere:\n" + "\n".join(ln for ln in out.splitlines() if "FAST" in ln))
    expect(opening(out).startswith("**OK**: 12 variants"), f"normal first row: {opening(out)}")

    def cold_first(r):
        if r["bytes"] == "8":
            r["time_us_mean"] = f"{float(r['time_us_mean']) * 3.5:.3f}"
    out = verdict(copy_run("h200x2/alltoall", work, "cold", edit=cold_first))
    expect(opening(out).startswith("**OK**"), f"cold first row in the run: {opening(out)}")
    expect("p50 latency at the smallest sizes" in out, "latency not named as p50")


def case_slower(work):
    out = verdict(copy_run("h200x2/allreduce", work, "slower", edit=slower(1.25)))
    head = opening(out)
    expect(head.startswith("**SLOW**: 28 variants, 28 SLOW (") and "; auto 8 GiB 303 GB/s = 63 % of NVLink" in head,
           f"opening line: {head}")
    rows = table(out)
    expect(len(rows) == 28 and all("GB/s (0.80) @ " in r for r in rows), "busbw 0.80 in every row:\n" + "\n".join(rows[:4]))
    expect("Likely causes" in out.split("<details>")[0], "causes not before the folded tables")


def case_ringattn(work):
    out = verdict(copy_run("h200x1/ringattn", work, "ringattn", edit=slower(1.25)))
    head = opening(out)
    expect(head.startswith("**SLOW**: 4 variants, 4 SLOW") and "TFLOP/s per GPU" in head, f"opening line: {head}")
    rows = table(out)
    expect(len(rows) == 4 and all(r.startswith(("| single |", "| single_cudnn |")) for r in rows),
           "P = 1: rows other than single and single_cudnn:\n" + "\n".join(rows))
    expect(all("TFLOP/s (0.80)" in r for r in rows), "TFLOP/s 0.80 not in every row:\n" + "\n".join(rows))
    verdict_part = out.split("### Against the hardware")[0]
    expect("busbw" not in verdict_part and "latency" not in verdict_part, "ringattn judged by busbw or latency")
    expect("the single (P = 1) rows are slower" in out, "cause not named")


def case_moe(work):
    out = verdict(copy_run("h200x2/moe-deepseek-v3", work, "moe", edit=slower(1.25)))
    expect(opening(out).startswith("**SLOW**: 14 variants"), f"opening line: {opening(out)}")
    expect("round trip remote GB/s at the most tokens" in out and "share of copy_ce (same run)" in out,
           "moe not judged by remote GB/s and its share of copy_ce")
    expect("(0.80) @ 4096 tokens–8192 tokens **SLOW**" in out, "remote GB/s 0.80 at the most tokens")
    expect("busbw" not in out, "moe judged by busbw")


def case_capped(work):
    p = run([PLOT, "--against", "auto", os.path.join(REF, "h200x2", "allreduce")])
    expect(p.returncode == 0, f"exit {p.returncode}: {p.stderr}")
    expect(opening(p.stdout).endswith("; auto 8 GiB 379 GB/s = 79 % of NVLink"), f"opening: {opening(p.stdout)}")
    expect("far below" not in p.stdout, "a capped algorithm flagged far below")
    full = verdict(copy_run("h200x2/allreduce", work, "capped"))
    expect("| oneshot_ll | float | eager | 4 MiB | 103 | 21 % | offered up to 4 MiB: not judged against the link |"
           in full and "far below" not in full, "oneshot_ll at 4 MiB")


def case_failon(work):
    slow = copy_run("h200x2/allreduce", work, "slow", edit=slower(1.25))
    ok = copy_run("h200x2/allreduce", work, "ok")
    p = run([PLOT, "--fail-on", "slow", "--against", "auto", slow])
    expect(p.returncode == 6 and "**SLOW**" in p.stdout, f"SLOW: exit {p.returncode}, expected 6\n{p.stderr}")
    p = run([PLOT, "--against", "auto", slow])
    expect(p.returncode == 0, f"SLOW without --fail-on: exit {p.returncode}")
    p = run([PLOT, "--fail-on", "slow", "--against", "auto", ok])
    expect(p.returncode == 0 and "**OK**" in p.stdout, f"OK: exit {p.returncode}\n{p.stderr}")
    fresh = copy_run("h200x2/allreduce", work, "fresh")
    for args, want in ((["--fail-on", "slwo", "--against", "auto", fresh], "--fail-on 'slwo': unknown (known: slow)"),
                       (["--fail-on", "x" * 100000, "--against", "auto", fresh], "unknown (known: slow)"),
                       (["--fail-on", "slow\nOK", "--against", "auto", fresh], "unknown (known: slow)"),
                       (["--fail-on", "slow", fresh], "--fail-on goes with --against or --nccl-tests"),
                       (["--against", "auto", fresh, "--fail-on"], "--fail-on needs a value")):
        p = run([PLOT, *args])
        lines = p.stderr.strip().splitlines()
        expect(p.returncode == 2 and len(lines) == 1 and want in lines[0] and len(lines[0]) < 300,
               f"{args[:2]}: exit {p.returncode}, stderr {p.stderr[:300]!r}")
        expect(sorted(os.listdir(fresh)) == ["link_gbs", "results.csv", "results.json"], f"{args[:2]}: wrote into the run")
    p = run([sys.executable, VERDICT, "--fail-on", "fast", os.path.join(REF, "h200x2", "allreduce"), fresh])
    expect(p.returncode == 2 and "unknown (known: slow)" in p.stderr, f"verdict.py --fail-on fast: {p.returncode}")


def git_status():
    p = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--", "results"], capture_output=True, text=True)
    return p.returncode, p.stdout


def case_itself(work):
    rc, before = git_status()
    if rc != 0:
        print("skipped: not a git checkout")
        return
    ref = os.path.join(REF, "h200x2", "allreduce")
    p = run([PLOT, "--against", "auto", ref])
    expect(p.returncode == 0 and opening(p.stdout).startswith(
        "**REFERENCE**: this run is the committed reference `results/reference/h200x2/allreduce`"),
        f"auto: {p.returncode} {p.stdout[:300]} {p.stderr}")
    expect("tracked by git (a committed run): not rewritten" in p.stderr, f"auto: {p.stderr}")
    p = run([PLOT, "--against", ref, ref])
    expect(p.returncode == 0 and opening(p.stdout).startswith("**SAME RUN**"), f"itself: {p.stdout[:300]}")
    expect("/work/" not in p.stdout and ROOT not in p.stdout, "absolute paths in a committed run's verdict")
    expect(git_status() == (0, before), f"git status changed:\n{git_status()[1]}")


def case_redraw(work):
    d = copy_run("h200x2/alltoall", work, "redraw", edit=lambda r: None)
    p = run([PLOT, "--against", "auto", d])
    expect(p.returncode == 0, f"--against: {p.stderr}")
    with open(os.path.join(d, "summary.md")) as f:
        before = f.read()
    section = before[before.index("## Verdict"):]
    expect(section.startswith("## Verdict: alltoall against results/reference/h200x2/alltoall\n\n**OK**"), section[:200])
    p = run([PLOT, d])
    expect(p.returncode == 0, f"plots/plot: {p.stderr}")
    with open(os.path.join(d, "summary.md")) as f:
        after = f.read()
    expect(after.startswith("# collbench summary: redraw"), "the summary was not redrawn")
    expect(after.endswith(section) and after.count("## Verdict") == 1, "the verdict was not kept as it was")


CASES = {"cold": case_cold, "slower": case_slower, "ringattn": case_ringattn, "moe": case_moe,
         "capped": case_capped, "failon": case_failon, "itself": case_itself, "redraw": case_redraw}


if __name__ == "__main__":
    sys.exit(main(CASES, __doc__))
