#!/usr/bin/env python3
"""CPU test of ring attention's batch x sequence sweep in plots/ (plots/attn_sweep.py, issue 45),
on a SYNTHETIC run: a model kernel reaching 400 x / (x + 16K) TFLOP/s on x = B·S tokens, ring and
single at B = 1, 2, 4, 8 and S = 4K..32K on 8 ranks, one cell that did not fit in memory, one
wrong cell, and a sweep of one batch (no section).
  knee     the knee's rule on grids: the smallest B·S reaching 90 % of the plateau (the best
           cell), the shorter sequence on a tie, exactly 90 % counts, wrong cells left out, no
           positive cell no knee
  plot     plots/plot with real gnuplot: one heatmap per scheme (PNG and SVG, the SVG titled
           with its chart's headline, the knee framed in the key), none for a run of one batch;
           summary.md's "Batch × sequence" section: the grid with the knee in bold, the knee and
           plateau sentence, the cell that did not run and why, the wrong cell marked
usage: test_attn_sweep.py CASE WORKDIR"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "plots"))
import attn_sweep  # noqa: E402
import make_fixtures as F  # noqa: E402

COLUMNS = F.ATTN_COLUMNS + ["pass", "layout", "ulysses", "ring"]
problems = []


def check(cond, msg):
    if not cond:
        problems.append(msg)


def case_knee():
    model = lambda b, s: 400.0 * b * s / (b * s + 16384)
    grid = {(b, s): model(b, s) for b in (1, 2, 4, 8) for s in (4096, 8192, 16384, 32768)}
    k = attn_sweep.knee(grid)
    # plateau 8 x 32K = 376.5; 90 % = 338.8 is first reached at B·S = 128K: 4 x 32K and 8 x 16K
    check(k is not None and k[2] == (8, 32768), f"plateau cell {k and k[2]}")
    check(k is not None and k[0] == (8, 16384), f"knee {k and k[0]}, expected (8, 16384): the shorter S on a tie")
    check(k is not None and abs(k[1] - model(8, 16384)) < 1e-9 and k[1] >= 0.9 * k[3], f"knee value {k}")
    exact = {(1, 1024): 90.0, (1, 2048): 100.0, (2, 512): 80.0}
    check(attn_sweep.knee(exact)[0] == (1, 1024), "exactly 90 % of the plateau counts")
    check(attn_sweep.knee({(1, 1024): 0.0, (2, 1024): None}) is None, "no positive cell: no knee")
    rows = {(1, 1024): {"tflops": 50.0, "wrong": 0}, (2, 1024): {"tflops": 500.0, "wrong": 3},
            (4, 1024): {"tflops": 60.0, "wrong": 0}}
    k = attn_sweep.knee(attn_sweep.tflops_of(rows))
    check(k is not None and k[2] == (4, 1024) and k[0] == (4, 1024), f"a wrong cell is not the plateau: {k}")


def sweep_rows(batches, algos=("single", "ring"), ranks=8):
    rows = []
    for algo in algos:
        for b in batches:
            for s in (4096, 8192, 16384, 32768):
                r = F.attn_row("single" if algo == "single" else "ring", "bfloat16", s, 1, 128)
                x = b * s
                tf = 400.0 * x / (x + 16384) * (1.0 if algo == "single" else 0.8)
                t = 1000.0 * b * s / x
                r.update(algo=algo, batch=b, ranks=ranks, layout="zigzag", ulysses=1, ring=1 if algo == "single" else 8,
                         tflops=f"{tf:.4f}", time_us_mean=f"{t:.3f}", time_us_p50=f"{t:.3f}", **{"pass": "fwd"})
                if (algo, b, s) == ("ring", 8, 32768):
                    r.update(note="rank 0: out of memory (150.00 GiB)", time_us_mean="", time_us_max="",
                             time_us_p50="", time_us_p99="", algbw_gbs="", busbw_gbs="", wrong="", tflops="",
                             ulysses="", ring="")
                if (algo, b, s) == ("ring", 2, 8192):
                    r.update(wrong=5)
                rows.append(r)
    return rows


def plot(work, name, rows):
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "results.csv"), "w", encoding="utf-8") as f:
        f.write(F.csv_text(rows, COLUMNS))
    p = subprocess.run([os.path.join(ROOT, "plots", "plot"), d], capture_output=True, text=True, timeout=280)
    check(p.returncode == 0 and "Traceback" not in p.stderr, f"plots/plot {name}: exit {p.returncode}\n{p.stderr}")
    with open(os.path.join(d, "summary.md"), encoding="utf-8") as f:
        return d, f.read()


def case_plot(work):
    d, text = plot(work, "sweep", sweep_rows((1, 2, 4, 8)))
    for algo in ("single", "ring"):
        stem = f"ringattn-sweep-{algo}-causal-bfloat16-zigzag"
        for ext in ("png", "svg"):
            check(os.path.isfile(os.path.join(d, f"{stem}.{ext}")), f"no {stem}.{ext}")
        svg = os.path.join(d, stem + ".svg")
        if os.path.isfile(svg):
            s = open(svg, encoding="utf-8").read()
            title = re.search(r"<title>([^<]*)</title>", s)
            check(title and title.group(1).startswith(f"ringattn_{algo}_fwd_causal_bfloat16_eager_TFLOP_s"),
                  f"{stem}.svg title {title and title.group(1)!r}")
            check("knee: B " in s, f"{stem}.svg: the knee's frame is not in the key")
    sec = text[text.find("## Batch × sequence"):] if "## Batch × sequence" in text else ""
    check(bool(sec), "summary.md has no 'Batch × sequence' section")
    want = [
        "### ringattn · single · fwd · causal · bfloat16 · eager",
        "| batch \\ S | 4K | 8K | 16K | 32K |",
        "| 8 | 266.7 | 320.0 | **355.6** | 376.5 |",
        "Knee: B 8 × S 16K (131072 tokens) reaches 355.6 TFLOP/s per GPU, 94 % of the plateau 376.5 "
        "(B 8 × S 32K). Heatmap: `ringattn-sweep-single-causal-bfloat16-zigzag.png`.",
        "### ringattn · ring · fwd · causal · bfloat16 · eager",
        "32 heads, 8 K/V heads, head dim 128 · 8 ranks · zigzag.",
        "| 2 | 106.7 | 160.0 (WRONG) | 213.3 | 256.0 |",
        "| 8 | 213.3 | **256.0** | 284.4 | – |",
        # 256.0 of 284.4 is exactly 90 %; of B·S = 64K (2 x 32K, 4 x 16K, 8 x 8K) the shorter S; the
        # plateau's tie (4 x 32K, 8 x 16K) likewise
        "Knee: B 8 × S 8K (65536 tokens) reaches 256.0 TFLOP/s per GPU, 90 % of the plateau 284.4 (B 8 × S 16K). "
        "Heatmap: `ringattn-sweep-ring-causal-bfloat16-zigzag.png`.",
        "Did not run: B 8 × S 32K: rank 0: out of memory (150.00 GiB).",
    ]
    for w in want:
        check(w in sec, f"the section lacks {w!r}")
    # one batch size: no sweep, no heatmap, no section
    d1, text1 = plot(work, "one-batch", sweep_rows((4,)))
    check("Batch × sequence" not in text1, "a run of one batch has a 'Batch × sequence' section")
    check(not [f for f in os.listdir(d1) if "-sweep-" in f], "a run of one batch has heatmaps")
    if problems:
        print(sec)


def main(argv):
    if len(argv) != 3 or argv[1] not in ("knee", "plot"):
        print(__doc__, file=sys.stderr)
        return 2
    os.makedirs(argv[2], exist_ok=True)
    case_knee() if argv[1] == "knee" else case_plot(argv[2])
    for p in problems:
        print("FAIL", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
