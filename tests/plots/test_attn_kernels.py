#!/usr/bin/env python3
"""CPU tests of the block-kernel comparison in plots/ (issue 30 item 4) on a SYNTHETIC fixture:
ringattn rows of single and ring with collbench's block kernel and with cuDNN's (single_cudnn,
ring_cudnn), bf16, D 128, causal and not, S = 4K..32K, the cuDNN rows 1 / 0.55 (single) and
1 / 0.8 (ring) times as fast as the made-up model of make_fixtures.attn_row.
  fixture  data/synthetic-ringattn-kernels/results.csv is what fixture() writes
           (test_attn_kernels.py fixture --write regenerates it)
  render   plots/plot: the kernels chart (TFLOP/s vs S, both kernels, causal and not) beside the
           per-group charts, valid images, the cuDNN rows drawn in their scheme's colour
  summary  plots/summary: collbench's kernel as a ratio of cuDNN's per S and scheme, and the
           single vs single_cudnn line; single_cudnn kept out of "fastest"
  passes   the fixture's rows as the forward and again as --pass bwd in one CSV: the backward
           rows get groups, headings and charts of their own (ringattn-bwd-...), none mixed
           with the forward's (a mix would chart two rows per point)
usage: test_attn_kernels.py CASE WORKDIR [--write]
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PLOT = os.path.join(ROOT, "plots", "plot")
SUMMARY = os.path.join(ROOT, "plots", "summary")
FIXTURE = os.path.join(HERE, "data", "synthetic-ringattn-kernels", "results.csv")
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import imagecheck  # noqa: E402
import make_fixtures as F  # noqa: E402

SPEED = {"single": 0.55, "ring": 0.8}  # collbench's time / cuDNN's = collbench / cuDNN TFLOP/s
NOTE = "block kernel cuDNN 9.19.0 (headers 9.19.0)"


def cudnn_row(r):
    """The cuDNN form of a collbench row: the same shape, time x SPEED, TFLOP/s / SPEED."""
    f = SPEED[r["algo"]]
    c = dict(r, algo=r["algo"] + "_cudnn", note=r["note"] + "; " + NOTE)
    for col in ("time_us_mean", "time_us_max", "time_us_p50", "time_us_p99"):
        c[col] = f"{float(r[col]) * f:.3f}"
    c["tflops"] = f"{float(r['tflops']) / f:.4f}"
    return c


def fixture():
    rows = []
    for causal in (0, 1):
        for seq in (4096 << k for k in range(4)):
            for algo in ("single", "ring"):
                r = F.attn_row(algo, "bfloat16", seq, causal, 128)
                rows += [r, cudnn_row(r)]
    return F.csv_text(rows, F.ATTN_COLUMNS)


def expect(cond, msg):
    if not cond:
        raise AssertionError(msg)


def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    expect("Traceback" not in p.stderr, f"{args}: traceback:\n{p.stderr}")
    return p


def case_fixture(work):
    with open(FIXTURE) as f:
        expect(f.read() == fixture(), f"{FIXTURE} is stale: run test_attn_kernels.py fixture . --write")


def case_render(work):
    run_dir = os.path.join(work, "run")
    os.makedirs(run_dir)
    shutil.copy(FIXTURE, run_dir)
    p = run([PLOT, run_dir])
    expect(p.returncode == 0, f"plots/plot: exit {p.returncode}\n{p.stderr}")
    charts = sorted({os.path.splitext(f)[0] for f in os.listdir(run_dir) if f.endswith((".png", ".svg"))})
    want = sorted(["ringattn-bfloat16-kernels"] + [f"ringattn-{c}-bfloat16-{k}" for c in ("causal", "noncausal")
                                                   for k in ("tflops", "overlap")])
    expect(charts == want, f"charts {charts}, expected {want}")
    for stem in want:
        for ext in ("png", "svg"):
            try:
                imagecheck.check(os.path.join(run_dir, f"{stem}.{ext}"), 1000, 600)
            except imagecheck.BadImage as e:
                raise AssertionError(f"{stem}.{ext}: {e}")
    with open(os.path.join(run_dir, "ringattn-bfloat16-kernels.svg")) as f:
        svg = f.read()
    for text in ("collbench non-causal", "cuDNN non-causal", "collbench causal", "cuDNN causal",
                 "block kernels on one GPU: collbench vs cuDNN", ">32K<", "B 1, H 32, KV 8, D 128"):
        expect(text in svg, f"kernels chart lacks '{text}'")
    expect(">ring<" not in svg and "ring_cudnn" not in svg, "kernels chart draws a ring row (single rows only)")
    with open(os.path.join(run_dir, "ringattn-causal-bfloat16-tflops.svg")) as f:
        svg = f.read()
    for text in ("single_cudnn", "ring_cudnn", ">single<", ">ring<"):
        expect(text in svg, f"TFLOP/s chart lacks '{text}'")
    with open(os.path.join(run_dir, "ringattn-causal-bfloat16-overlap.svg")) as f:
        svg = f.read()
    expect("single_cudnn" not in svg and "ring_cudnn" in svg, "overlap chart: single_cudnn drawn or ring_cudnn missing")


def case_summary(work):
    p = run([SUMMARY, FIXTURE])
    expect(p.returncode == 0, f"plots/summary: exit {p.returncode}\n{p.stderr}")
    out = p.stdout
    for text in ("Block kernel: collbench's as a ratio of cuDNN's (TFLOP/s per GPU, same run; < 1: cuDNN is faster):",
                 "| S | scheme | collbench TFLOP/s | cuDNN TFLOP/s | collbench / cuDNN |",
                 "| 4K | single | ", "| 32K | ring | ",
                 "collbench's block kernel alone (single vs single_cudnn) runs at 0.55× cuDNN's TFLOP/s over S = 4K–32K.",
                 "| 16K | single_cudnn | "):
        expect(text in out, f"summary lacks: {text}\n{out}")
    ratios = [ln for ln in out.splitlines() if ln.startswith("| ") and ln.rstrip().endswith("× |")]
    expect(len(ratios) == 16, f"{len(ratios)} ratio rows, expected 16 (2 forms x 4 S x 2 schemes)")
    for ln in ratios:
        scheme = ln.split("|")[2].strip()
        expect(ln.rstrip().endswith(f"{SPEED[scheme]:.2f}× |"), f"ratio row {ln!r}: expected {SPEED[scheme]:.2f}×")
    head = "Fastest (lowest time, single excluded): "
    for ln in out.splitlines():
        if ln.startswith(head):
            expect("single" not in ln[len(head):], f"fastest names a single row: {ln}")


def case_passes(work):
    with open(FIXTURE) as f:
        lines = f.read().splitlines()
    rows = [ln + ",fwd" for ln in lines[1:]] + [ln + ",bwd" for ln in lines[1:]]
    run_dir = os.path.join(work, "run")
    os.makedirs(run_dir)
    with open(os.path.join(run_dir, "results.csv"), "w") as f:
        f.write("\n".join([lines[0] + ",pass"] + rows) + "\n")
    p = run([SUMMARY, os.path.join(run_dir, "results.csv")])
    expect(p.returncode == 0, f"plots/summary: exit {p.returncode}\n{p.stderr}")
    heads = [ln for ln in p.stdout.splitlines() if ln.startswith("## ringattn")]
    for form in ("causal", "noncausal"):
        for title in (f"## ringattn · {form} · bfloat16 · eager", f"## ringattn · bwd · {form} · bfloat16 · eager"):
            expect(sum(h.startswith(title + " ") for h in heads) == 1, f"summary headings {heads}: want one {title!r}")
    expect(len(heads) == 4, f"summary headings {heads}: want 4 (2 passes x 2 causal forms)")
    p = run([PLOT, run_dir])
    expect(p.returncode == 0, f"plots/plot: exit {p.returncode}\n{p.stderr}")
    expect("two rows for" not in p.stderr, f"plots/plot mixed the passes:\n{p.stderr}")
    charts = {os.path.splitext(f)[0] for f in os.listdir(run_dir) if f.endswith(".svg")}
    for stem in ("ringattn-bfloat16-kernels", "ringattn-bwd-bfloat16-kernels", "ringattn-causal-bfloat16-tflops",
                 "ringattn-bwd-causal-bfloat16-tflops", "ringattn-bwd-noncausal-bfloat16-overlap"):
        expect(stem in charts, f"charts {sorted(charts)} lack {stem}")
    with open(os.path.join(run_dir, "ringattn-bwd-bfloat16-kernels.svg")) as f:
        expect("ringattn · bwd · bfloat16" in f.read(), "the backward's kernels chart does not say bwd in its title")


CASES = {"fixture": case_fixture, "render": case_render, "summary": case_summary, "passes": case_passes}


def main(argv):
    if len(argv) >= 3 and argv[1] == "fixture" and argv[3:] == ["--write"]:
        os.makedirs(os.path.dirname(FIXTURE), exist_ok=True)
        with open(FIXTURE, "w") as f:
            f.write(fixture())
        return 0
    if len(argv) != 3 or argv[1] not in CASES:
        print(f"usage: test_attn_kernels.py CASE WORKDIR [--write]   (CASE: {', '.join(CASES)})", file=sys.stderr)
        return 2
    work = os.path.abspath(argv[2])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        CASES[argv[1]](work)
    except AssertionError as e:
        print(f"FAIL plot_attn_kernels_{argv[1]}: {e}", file=sys.stderr)
        return 1
    print(f"ok plot_attn_kernels_{argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
