#!/usr/bin/env python3
"""CPU test of the context-parallel section of plots/summary (plots/cp_schemes.py, issue 45) on a
SYNTHETIC run of 8 ranks, S = 16K, causal: ring and nccl_ring (zigzag), ulysses at U = 8 and as
the U = 2 x R = 4 hybrid, nccl_ulysses refused at U = 4 (heads), rows that ran in another
--ulysses group (not refusals), single (not a scheme), and a non-causal shape of its own:
  - the section names each shape, lists its schemes fastest first with their factorisation and
    layout (the ulysses, ring and layout columns), the ratio to the fastest and the bytes per GPU
    from the size column;
  - "Fastest" names the winner and by how much it beats the runner-up;
  - a refusal is listed with its reason and row count; the rows that ran elsewhere and single
    are not; a run without ringattn rows, or of the ring schemes alone in one layout, has no
    such section; a layout column the program never writes is refused in one line.
usage: test_cp_schemes.py WORKDIR"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SUMMARY = os.path.join(ROOT, "plots", "summary")
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import make_fixtures as F  # noqa: E402


COLUMNS = F.ATTN_COLUMNS + ["pass", "layout", "ulysses", "ring"]


def row(algo, t, b, note, causal=1, skipped=False, ur=(1, 8), layout=None):
    """ur: the row's U x R (empty on a skipped row); layout: the group's (the causal default)."""
    r = F.attn_row("ring" if algo != "single" else "single", "bfloat16", 16384, causal, 128,
                   note="x" if skipped else None)
    r.update(algo=algo, note=note, bytes=b, count=b // 2, layout=layout or ("zigzag" if causal else "contiguous"))
    if not skipped:
        r.update(time_us_mean=f"{t:.3f}", time_us_max=f"{t:.3f}", time_us_p50=f"{t:.3f}", time_us_p99=f"{t:.3f}",
                 ulysses=ur[0], ring=ur[1])
    return r


def main(argv):
    work = argv[1]
    os.makedirs(work, exist_ok=True)
    rows = [
        row("single", 5000.0, 0, "one GPU, whole sequence", ur=(1, 1)),
        row("ring", 1000.0, 7340032, "zigzag; copy-engine transfers overlapped"),
        row("nccl_ring", 1100.0, 7340032, "zigzag; ncclSend/ncclRecv on a second stream"),
        row("ulysses", 800.0, 18350080,
            "4 heads, 1 kv head per rank, replicated on 2 (kv-heads < U); natural order; peer all-to-all",
            ur=(8, 1)),  # (the columns name U x R, not the note)
        row("ulysses", 900.0, 9437184, "U=2 x R=4, peer ring; 16 heads, 4 kv heads per rank; zigzag; peer all-to-all",
            ur=(2, 4)),
        row("nccl_ulysses", 0, 0, "not supported: 32 heads do not split over U=3 ranks", skipped=True),
        row("nccl_ulysses", 0, 0, "not supported: 32 heads do not split over U=3 ranks", skipped=True),
        row("ring", 0, 0, "not supported: no Ulysses degree (measured in the run's first --ulysses group)",
            skipped=True),
        row("ring", 2000.0, 7340032, "contiguous; copy-engine transfers overlapped", causal=0),
    ]
    path = os.path.join(work, "results.csv")
    with open(path, "w") as f:
        f.write(F.csv_text(rows, COLUMNS))
    out = subprocess.run([sys.executable, SUMMARY, "--quiet", path], capture_output=True, text=True)
    problems = []
    if out.returncode != 0:
        problems.append(f"plots/summary exited {out.returncode}: {out.stderr.strip()}")
    text = out.stdout
    start = text.find("## Context-parallel schemes")
    sec = "" if start < 0 else text[start:]
    end = sec.find("\n## ", 1)  # up to the next section (the skipped rows)
    sec = sec if end < 0 else sec[:end]
    want = [
        "### S = 16K, batch 1, 32 heads, 8 kv-heads, D 128, 8 ranks, causal, fwd, bfloat16, eager",
        "| ulysses U=8×R=1 | 800.0 | 1.00 | 18.35 | 0 |",
        "| ulysses U=2×R=4 (zigzag) | 900.0 | 1.12 | 9.44 | 0 |",
        "| ring (zigzag) | 1000.0 | 1.25 | 7.34 | 0 |",
        "| nccl_ring (zigzag) | 1100.0 | 1.38 | 7.34 | 0 |",
        "Fastest: ulysses U=8×R=1, 1.12× faster than ulysses U=2×R=4 (zigzag).",
        "Could not run: nccl_ulysses (2 rows): not supported: 32 heads do not split over U=3 ranks.",
        "### S = 16K, batch 1, 32 heads, 8 kv-heads, D 128, 8 ranks, non-causal, fwd, bfloat16, eager",
        "| ring (contiguous) | 2000.0 | 1.00 | 7.34 | 0 |",
    ]
    for w in want:
        if w not in sec:
            problems.append(f"the section lacks {w!r}")
    order = [sec.find(w) for w in want[1:5]]
    if -1 not in order and order != sorted(order):
        problems.append("schemes are not listed fastest first")
    for bad in ("no Ulysses degree", "| single"):
        if bad in sec:
            problems.append(f"the section lists {bad!r}")
    # no ringattn rows: no section
    path2 = os.path.join(work, "allreduce.csv")
    with open(path2, "w") as f:
        f.write(F.csv_text(F.allreduce()))
    out2 = subprocess.run([sys.executable, SUMMARY, "--quiet", path2], capture_output=True, text=True)
    if out2.returncode != 0 or "Context-parallel" in out2.stdout:
        problems.append(f"an allreduce run: exit {out2.returncode}, section present: {'Context-parallel' in out2.stdout}")
    # the ring schemes alone, one layout each: the ringattn section says it all, no section
    path3 = os.path.join(work, "rings.csv")
    with open(path3, "w") as f:
        f.write(F.csv_text(rows[1:3], COLUMNS))
    out3 = subprocess.run([sys.executable, SUMMARY, "--quiet", path3], capture_output=True, text=True)
    if out3.returncode != 0 or "Context-parallel" in out3.stdout:
        problems.append(f"a ring-only run: exit {out3.returncode}, section present: {'Context-parallel' in out3.stdout}")
    # the stripe layout (ring-flash-attn's) is read like the others
    path5 = os.path.join(work, "stripe.csv")
    with open(path5, "w") as f:
        f.write(F.csv_text([dict(r, layout="stripe") for r in rows[1:3]], COLUMNS))
    out5 = subprocess.run([sys.executable, SUMMARY, "--quiet", path5], capture_output=True, text=True)
    if out5.returncode != 0 or "stripe" not in out5.stdout:
        problems.append(f"a stripe run: exit {out5.returncode}, 'stripe' in the summary: {'stripe' in out5.stdout}, "
                        f"stderr {out5.stderr.strip()!r}")
    # a layout the program never writes: one line naming the column, no traceback
    for name in ("striped", "Stripe"):
        bad = dict(rows[1], layout=name)
        path4 = os.path.join(work, "bad-layout.csv")
        with open(path4, "w") as f:
            f.write(F.csv_text([bad], COLUMNS))
        out4 = subprocess.run([sys.executable, SUMMARY, "--quiet", path4], capture_output=True, text=True)
        if out4.returncode == 0 or "column layout is" not in out4.stderr or "Traceback" in out4.stderr:
            problems.append(f"a layout {name!r}: exit {out4.returncode}, stderr {out4.stderr.strip()!r}")
    for p in problems:
        print("FAIL", p)
    if problems:
        print(sec)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
