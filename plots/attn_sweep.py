"""Ring attention's batch x sequence sweep (issue 45; `collbench ringattn --batch LIST --seq
LIST`): for each scheme a run measured at two or more batch sizes and two or more sequence
lengths, a heatmap of TFLOP/s per GPU over batch x sequence (attn_sweep.gp, called from
plots/prepare.py) and, in summary.md (plots/summary), the grid as a table with its knee.

A sweep is one algorithm (single, each scheme, each block kernel) in one form: dtype, mode,
pass, causal, heads, K/V heads, head dim, ranks, layout and, for the rows that say it, U x R.
The plateau is the sweep's best cell; the knee is the smallest batch x sequence (B·S, the
tokens of one step) whose TFLOP/s reach KNEE_FRACTION of it: past it a bigger shape buys at
most 10 % more throughput. Ties go to the smaller B·S, then the shorter sequence. Rows with wrong results are left out of the
plateau and the knee (and marked in the table); cells whose row did not run stay blank, and the
summary says why (a shape that does not fit in memory is such a row). One rank (P = 1): only
single and single_cudnn mean anything, as in the ringattn charts (attn.py)."""
import os

import attn
import groups as G
import outfile

KNEE_FRACTION = 0.9
FORM = ("dtype", "mode", "pass", "causal", "heads", "kv_heads", "head_dim", "ranks", "layout")


def _key(r):
    return (r["algo"],) + tuple(r[c] for c in FORM)


def sweeps(rows):
    """[(key, ur, {(batch, seq): row}, [skipped rows])] of the ringattn sweeps with >= 2 batch
    sizes and >= 2 sequence lengths among their measured rows; ur = (U, R) of the measured rows
    (None where the CSV has no such columns). A skipped row (it has no U x R) belongs to every
    sweep of its key."""
    measured, skipped = {}, {}
    for r in rows:
        if r["family"] != "ringattn" or r["batch"] is None or r["seq"] is None:
            continue
        if r["ranks"] == "1" and not attn.is_single(r["algo"]):
            continue
        if r["skipped"]:
            skipped.setdefault(_key(r), []).append(r)
        elif r["tflops"] is not None:
            cells = measured.setdefault((_key(r), (r["ulysses"], r["ring"])), {})
            cells.setdefault((r["batch"], r["seq"]), r)  # a repeated cell: the first row
    out = []
    for (key, ur), cells in measured.items():
        if len({b for b, _ in cells}) >= 2 and len({s for _, s in cells}) >= 2:
            out.append((key, None if ur == (None, None) else ur, cells, skipped.get(key, [])))
    order = {a: i for i, a in enumerate(attn.ORDER)}
    return sorted(out, key=lambda t: (tuple("" if v is None else str(v) for v in t[0][1:]),
                                      order.get(t[0][0], len(order)), t[0][0], t[1] or (0, 0)))


def knee(cells, fraction=KNEE_FRACTION):
    """{(batch, seq): TFLOP/s} -> (knee (batch, seq), its TFLOP/s, plateau (batch, seq), its
    TFLOP/s), or None without a positive cell."""
    good = {k: v for k, v in cells.items() if v is not None and v > 0}
    if not good:
        return None
    top = max(good, key=lambda k: (good[k], -k[0] * k[1], -k[1]))
    reach = [k for k, v in good.items() if v >= fraction * good[top]]
    k = min(reach, key=lambda k: (k[0] * k[1], k[1], k[0]))
    return k, good[k], top, good[top]


def tflops_of(cells):
    """{(batch, seq): TFLOP/s} of a sweep's correct cells."""
    return {k: r["tflops"] for k, r in cells.items() if not r["wrong"]}


def stem(key, ur):
    """The chart's file stem: ringattn-sweep-ALGO-[bwd-]causal-DTYPE[-mode][-layout][-uUrR] (U x R
    of the Ulysses rows)."""
    algo, dtype, mode, pas, causal, _, _, _, _, layout = key
    parts = ["ringattn", "sweep", algo] + ([G.PASS_PART[pas]] if pas in G.PASS_PART else []) + [
        "causal" if causal else "noncausal", dtype] + ([mode] if mode != "eager" else []) + (
        [layout] if layout else []) + ([f"u{ur[0]}r{ur[1]}"] if ur and "ulysses" in algo else [])
    return "-".join(G._safe(p) for p in parts)


def title(key, ur):
    """('ringattn · ring · causal · bfloat16 · eager — TFLOP/s per GPU over batch × sequence',
    '32 heads, 8 K/V heads, head dim 128 · 8 ranks · zigzag · U=1×R=8')."""
    algo, dtype, mode, pas, causal, heads, kv, d, ranks, layout = key
    head = " · ".join(["ringattn", algo, G.PASS_PART.get(pas, "fwd"), "causal" if causal else "non-causal",
                       dtype, mode]) + " — TFLOP/s per GPU over batch × sequence"
    ctx = [f"{heads} heads, {kv} K/V heads, head dim {d}"]
    if ranks:
        ctx.append(f"{ranks} rank" + ("" if ranks == "1" else "s"))
    if layout and (not ur or ur[1] != 1):
        ctx.append(layout)
    if ur and "ulysses" in algo:
        ctx.append(f"U={ur[0]}×R={ur[1]}")
    return head, " · ".join(ctx)


def charts(w, rows, gp_str, svg_name):
    """One heatmap per sweep into prepare.py's Writer w (its work and output folders, size and
    manifest); gp_str and svg_name are prepare.py's (gnuplot strings, the SVG's title)."""
    for key, ur, cells, _ in sweeps(rows):
        batches = sorted({b for b, _ in cells})
        seqs = sorted({s for _, s in cells})
        good = tflops_of(cells)
        found = knee(good)
        name = G._short(stem(key, ur))
        dat = os.path.join(w.work, name + ".dat")
        lines = []
        for j, b in enumerate(batches):
            for i, s in enumerate(seqs):
                r = cells.get((b, s))
                if r is None:
                    lines.append(f"{i} {j} NaN \"–\"")
                else:
                    lines.append(f"{i} {j} {r['tflops']:.6g} \"{r['tflops']:.0f}{' WRONG' if r['wrong'] else ''}\"")
        kx, ky = (seqs.index(found[0][1]), batches.index(found[0][0])) if found else (-9, -9)
        outfile.write_new(dat, "\n".join(lines) + f"\n\n\n{kx} {ky}\n")
        head, ctx = title(key, ur)
        knee_text = (f"knee: B {found[0][0]} × S {attn.human_seq(found[0][1])}, {found[1]:.0f} TFLOP/s "
                     f"= {100 * found[1] / found[3]:.0f} % of the plateau {found[3]:.0f}") if found else "no knee"
        arr = lambda var, vals: f"array {var}[{len(vals)}] = [{', '.join(vals)}]\n"
        v = (f"# {name}: generated by plots/attn_sweep.py\n"
             f"outbase = {gp_str(os.path.join(w.outdir, name))}\n"
             f"datafile = {gp_str(dat)}\n"
             f"W = {w.width}\nH = {w.height}\n"
             f"charttitle = {gp_str(head)} . \"\\n\" . {gp_str(ctx)}\n"
             f"svgname = {gp_str(svg_name(head))}\n"
             f"nx = {len(seqs)}\nny = {len(batches)}\n"
             + arr("xlab", [gp_str(attn.human_seq(s)) for s in seqs])
             + arr("ylab", [gp_str(b) for b in batches])
             + f"zmax = {max([r['tflops'] for r in cells.values()] + [1e-9]):.6g}\n"
             + f"kneetitle = {gp_str(knee_text)}\n")
        vars_path = os.path.join(w.work, name + ".vars.gp")
        outfile.write_new(vars_path, v)
        w.manifest.append(f"attn_sweep.gp\t{vars_path}\t{os.path.join(w.outdir, name)}")


def section(rows):
    """The summary's lines: per sweep the grid (TFLOP/s per GPU, batch down, sequence across,
    the knee in bold), the knee and the plateau in a sentence, and the cells that did not run
    with why ([] when the run has no sweep)."""
    found_any = sweeps(rows)
    if not found_any:
        return []
    out = ["## Batch × sequence", "",
           "TFLOP/s per GPU of each scheme over batch × sequence; the knee (bold) is the smallest B·S "
           f"reaching {100 * KNEE_FRACTION:.0f} % of the plateau (the best cell): past it a bigger shape buys "
           f"at most {100 - 100 * KNEE_FRACTION:.0f} % more. Each sweep's heatmap is the chart named below.", ""]
    for key, ur, cells, refused in found_any:
        head, ctx = title(key, ur)
        batches = sorted({b for b, _ in cells} | {r["batch"] for r in refused})
        seqs = sorted({s for _, s in cells} | {r["seq"] for r in refused})
        found = knee(tflops_of(cells))
        out += [f"### {_md(head.split(' — ')[0])}", "", f"{_md(ctx)}.", "",
                "| batch \\ S | " + " | ".join(attn.human_seq(s) for s in seqs) + " |",
                "|---|" + "---|" * len(seqs)]
        for b in batches:
            cols = []
            for s in seqs:
                r = cells.get((b, s))
                text = "–" if r is None else f"{r['tflops']:.1f}" + (" (WRONG)" if r["wrong"] else "")
                cols.append(f"**{text}**" if found and found[0] == (b, s) else text)
            out.append(f"| {b} | " + " | ".join(cols) + " |")
        if found:
            (kb, ks), kv, (pb, ps), pv = found
            out += ["", f"Knee: B {kb} × S {attn.human_seq(ks)} ({kb * ks} tokens) reaches {kv:.1f} TFLOP/s "
                        f"per GPU, {100 * kv / pv:.0f} % of the plateau {pv:.1f} (B {pb} × S {attn.human_seq(ps)}). "
                        f"Heatmap: `{G._short(stem(key, ur))}.png`."]
        else:
            out += ["", "No knee: no cell ran with correct results."]
        missed = sorted({(r["batch"], r["seq"], r["note"] or "(no reason given)") for r in refused
                         if (r["batch"], r["seq"]) not in cells})
        for b, s, note in missed:
            out.append(f"Did not run: B {b} × S {attn.human_seq(s)}: {_md(note)}.")
        out.append("")
    return out


def _md(s):
    return str(s).replace("|", "\\|").replace("\n", " ")
