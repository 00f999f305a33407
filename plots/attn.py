"""Ring attention (family ringattn): the data behind its charts and its summary section.

A ringattn group (groups.py: one dtype, causal form, mode and shape) sweeps the total sequence
length S. Per algorithm it has TFLOP/s per GPU, overlap efficiency (compute / wall time; single
has none: it runs alone on one GPU) and ring_over_single (time / (P x the local kernel on one
S/P block)). This file turns those into chart lines (prepare.py writes them for tflops.gp and
overlap.gp) and into the facts the summary prints: a seq x algorithm table, the fastest
distributed scheme at each S and where ring overtakes nccl_allgather.
Block kernels: every scheme may also run with cuDNN's fused attention as its block kernel, as
NAME_cudnn (collectives/attn_block.h). kernel_ratios gives collbench's kernel as a ratio of
cuDNN's per shape (TFLOP/s of the two rows of one scheme at one S, same run), and
kernel_charts one chart per shape of single against single_cudnn, causal and not.
Colours: single black (the P = 1 reference), ring red, nccl_ring blue, nccl_allgather orange;
a _cudnn row takes its scheme's colour with open points and a dotted line (NCCL forms dashed).
"""
import groups as G

COLOURS = {"single": "#000000", "ring": "#d62728", "nccl_ring": "#1f77b4",
           "nccl_allgather": "#ff7f0e"}
SPARE_COLOURS = ("#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")
SCHEMES = ("single", "ring", "nccl_ring", "nccl_allgather")
CUDNN = "_cudnn"  # collectives/attn_block.h CB_ATTN_CUDNN_SUFFIX
ORDER = tuple(n for s in SCHEMES for n in (s, s + CUDNN))
POINT_TYPES = (7, 5, 9, 11, 13, 15, 4, 6)
OPEN_POINT = {7: 6, 5: 4, 9: 8, 11: 10, 13: 12, 15: 14}  # gnuplot: filled -> open symbol
DOTTED = 3  # gnuplot dash type of a cuDNN row's line
SHAPE_WORDS = (("batch", "batch {}", "B {}"), ("heads", "{} heads", "H {}"),
               ("kv_heads", "{} K/V heads", "KV {}"), ("head_dim", "head dim {}", "D {}"))


def is_cudnn(algo):
    return algo.endswith(CUDNN) and len(algo) > len(CUDNN)


def scheme_of(algo):
    """'ring' for ring and ring_cudnn: the scheme whatever its block kernel."""
    return algo[:-len(CUDNN)] if is_cudnn(algo) else algo


def is_single(algo):
    """The P = 1 reference with either block kernel (no communication, no overlap)."""
    return scheme_of(algo) == "single"


def algos(group):
    """single, single_cudnn, ring, ring_cudnn, ... first (those present), then others by name."""
    have = {r["algo"] for r in group.rows}
    return [a for a in ORDER if a in have] + sorted(have - set(ORDER))


def styles(group):
    """{algo: (colour, dash type, point type)}: NCCL forms dashed (dash type 2); a cuDNN row its
    scheme's colour and point, open, dotted."""
    names = algos(group)
    plain = [a for a in names if not (is_cudnn(a) and scheme_of(a) in names)]
    spare = [a for a in plain if a not in COLOURS]
    out = {a: (COLOURS.get(a) or SPARE_COLOURS[spare.index(a) % len(SPARE_COLOURS)],
               2 if G.is_nccl(a) else 1, POINT_TYPES[i % len(POINT_TYPES)])
           for i, a in enumerate(plain)}
    for a in names:
        if a not in out:
            c, _, pt = out[scheme_of(a)]
            out[a] = (c, DOTTED, OPEN_POINT.get(pt, pt))
    return out


def human_seq(s):
    """8K, 16K, 1M for multiples of 1024 (binary K/M, as sequence lengths are quoted); 1000."""
    for shift, unit in ((20, "M"), (10, "K")):
        if s >= 1 << shift and s % (1 << shift) == 0:
            return f"{s >> shift}{unit}"
    return str(s)


def shape_text(group, short=False):
    """'batch 1, 32 heads, 8 K/V heads, head dim 128' (short: 'B 1, H 32, KV 8, D 128' for
    chart titles): the shape columns with one value."""
    bits = []
    for col, long_fmt, short_fmt in SHAPE_WORDS:
        vals = {r[col] for r in group.rows if r[col] is not None}
        if len(vals) == 1:
            bits.append((short_fmt if short else long_fmt).format(vals.pop()))
    return ", ".join(bits)


def by_algo(group, warnings=None):
    """{algo: {seq: row}} from groups.series (one row per seq; duplicates warned there)."""
    s = G.series(group, warnings)
    return {a: {G.xkey(r): r for r in s[(a, ph)]} for a in algos(group)
            for (algo, ph) in s if algo == a}


def one_rank(group):
    """P = 1: every scheme runs its block kernel alone on the whole sequence, as single does, so
    only single and single_cudnn mean anything (the charts and the summary show those)."""
    return {r["ranks"] for r in group.rows} == {"1"}


def shown_algos(group, pts):
    """pts ({algo: ...}) without the schemes that mean nothing at P = 1."""
    return {a: p for a, p in pts.items() if not one_rank(group) or is_single(a)}


def chart_specs(group, warnings, tag):
    """[(script, stem suffix, what, lines, extra keys)] for prepare.py's Writer.chart; lines as
    there: (title, colour, dash type, point type, [(seq, y)]). tag(rows) marks wrong rows. One
    rank: the TFLOP/s of single and single_cudnn only, and no overlap chart (nothing to hide)."""
    st = styles(group)
    tf, ov = [], []
    for algo, pts in shown_algos(group, by_algo(group, warnings)).items():
        rows = [pts[s] for s in sorted(pts)]
        c, dt, pt = st[algo]
        label = algo + tag(rows)
        tf.append((label, c, dt, pt, [(r["seq"], r["tflops"]) for r in rows if r["tflops"] is not None]))
        if not is_single(algo):
            ov.append((label, c, dt, pt,
                       [(r["seq"], r["overlap_eff"]) for r in rows if r["overlap_eff"] is not None]))
    return [("tflops.gp", "-tflops", "TFLOP/s per GPU", tf, None)] + ([] if one_rank(group) else [
            ("overlap.gp", "-overlap", "overlap efficiency", ov, {"basetitle": "1.0 = communication fully hidden"})])


def compare_lines(group, names, warnings, tag):
    """TFLOP/s lines of two runs (rows carry 'run'): colour = algorithm, run A solid, B dashed."""
    st = styles(group)
    lines = []
    for run_i, name in enumerate(names):
        sub = G.Group(group.key, [r for r in group.rows if r["run"] == name])
        if not sub.rows:
            continue
        for algo, pts in by_algo(sub, warnings).items():
            rows = [pts[s] for s in sorted(pts)]
            lines.append((f"{name}: {algo}" + tag(rows), st[algo][0], 1 + run_i, st[algo][2],
                          [(r["seq"], r["tflops"]) for r in rows if r["tflops"] is not None]))
    return lines


def table(group):
    """[(seq, algo, row)] sorted by seq, then algorithm order: the summary's table rows (one
    rank: single and single_cudnn)."""
    pts = shown_algos(group, by_algo(group))
    order = {a: i for i, a in enumerate(algos(group))}
    return sorted(((s, a, r) for a, rows in pts.items() for s, r in rows.items()),
                  key=lambda t: (t[0], order[t[1]]))


def fastest(group):
    """[(seq, algo, row)]: the distributed scheme (single and single_cudnn excluded) with the
    lowest time at each seq."""
    best = {}
    for s, a, r in table(group):
        if not is_single(a) and (s not in best or r["time"] < best[s][1]["time"]):
            best[s] = (a, r)
    return [(s, a, r) for s, (a, r) in sorted(best.items())]


def crossover(group, fast="ring", slow="nccl_allgather"):
    """One sentence: where FAST overtakes SLOW (lower time) over the seqs both measured."""
    pts = by_algo(group)
    a, b = pts.get(fast, {}), pts.get(slow, {})
    common = sorted(set(a) & set(b))
    if not common:
        return f"No crossover: no sequence length has both {fast} and {slow} rows."
    wins = [a[s]["time"] < b[s]["time"] for s in common]
    span = human_seq(common[0]) + ("" if len(common) == 1 else "–" + human_seq(common[-1]))
    if all(wins):
        return f"{fast} is faster than {slow} at every measured S ({span}): no crossover in range."
    if not any(wins):
        return f"{fast} never overtakes {slow} in the measured range ({span})."
    flips = [i for i in range(1, len(wins)) if wins[i] != wins[i - 1]]
    if len(flips) == 1:
        lo, hi = human_seq(common[flips[0] - 1]), human_seq(common[flips[0]])
        if wins[-1]:
            return (f"{fast} overtakes {slow} between S = {lo} and {hi}: slower up to {lo}, "
                    f"faster from {hi} on.")
        return (f"{fast} is faster than {slow} up to S = {lo}; {slow} is faster from {hi} on "
                "(no crossover in ring's favour).")
    faster = ", ".join(human_seq(s) for s, w in zip(common, wins) if w)
    return f"{fast} is faster than {slow} at S = {faster} only (no single crossover)."


def _tflops(r):
    return r["tflops"] if r["tflops"] is not None and r["tflops"] > 0 else None


def kernel_ratios(group):
    """[(seq, scheme, collbench row, cuDNN row, ratio)]: every scheme with both block kernels at
    a seq, ratio = collbench's TFLOP/s / cuDNN's (the same FLOPs: = cuDNN's time / collbench's),
    sorted by scheme order, then seq. No rows of one of the two: no ratio."""
    pts = shown_algos(group, by_algo(group))
    out = []
    for scheme in [a for a in algos(group) if not is_cudnn(a)]:
        ours, theirs = pts.get(scheme, {}), pts.get(scheme + CUDNN, {})
        for s in sorted(set(ours) & set(theirs)):
            a, b = _tflops(ours[s]), _tflops(theirs[s])
            if a is not None and b is not None:
                out.append((s, scheme, ours[s], theirs[s], a / b))
    return out


def ratio_span(ratios):
    """'0.51×' or '0.51–0.58×' over a list of ratios."""
    lo, hi = min(ratios), max(ratios)
    return f"{lo:.2f}×" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}–{hi:.2f}×"


def kernel_charts(groups, warnings, tag):
    """[(group, lines)]: per shape (dtype, mode, attention shape; causal and non-causal together)
    with both single and single_cudnn rows, one TFLOP/s line per block kernel (colour) and causal
    form (causal: solid, filled points; non-causal: dashed, open points), lines as chart_specs. group is the causal forms' rows together (its stem and title leave
    causal out)."""
    merged = {}
    for g in groups:
        if g.family != "ringattn":
            continue
        key = (g.family, g.config[:-1], g.dtype, g.op, g.inplace, g.mode)
        merged.setdefault(key, []).append(g)
    out = []
    for key, gs in merged.items():
        lines = []
        for g in sorted(gs, key=lambda g: g.config[-1] != "noncausal"):
            pts = by_algo(g, warnings)
            if "single" not in pts or "single" + CUDNN not in pts:
                continue
            form = "non-causal" if g.config[-1] == "noncausal" else "causal"
            for algo, name, colour in (("single", "collbench", "#000000"),
                                       ("single" + CUDNN, "cuDNN", "#2ca02c")):
                rows = [pts[algo][s] for s in sorted(pts[algo])]
                pt = 7 if name == "collbench" else 5
                lines.append((f"{name} {form}" + tag(rows), colour, 1 if form == "causal" else 2,
                              pt if form == "causal" else OPEN_POINT[pt],
                              [(r["seq"], r["tflops"]) for r in rows if r["tflops"] is not None]))
        if lines:
            out.append((G.Group(key, [r for g in gs for r in g.rows]), lines))
    return out
