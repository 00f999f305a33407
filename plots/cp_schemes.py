"""The context-parallel comparison of a ringattn run (issue 45), a section of plots/summary: for
each shape (S, batch, heads, kv-heads, head dim, ranks, causal, pass, dtype, mode) every
distributed scheme measured at it side by side, the fastest first, how many times slower each
other one is, the bytes each moves per GPU (the size column; docs/algorithms.md has the formulas,
so the reader sees why one won), and which could not run and why.

A Ulysses row (ulysses, nccl_ulysses and their _cudnn forms) is named with its factorisation
from its ulysses and ring columns ("ulysses U=2×R=4"), every row with its layout column where a
ring spans more than one rank ("ring (contiguous)"), so every factorisation and layout of one
shape compares in one table.
single (the P = 1 reference) is left out, as are the rows that ran in another group of the run
(a row without a Ulysses degree outside the first --ulysses group says so instead of running).
A run of the ring schemes alone, one layout each, gets no section: the ringattn section above
already names the fastest at each length."""
import re

ELSEWHERE = "no Ulysses degree"
SHAPE = ("seq", "batch", "heads", "kv_heads", "head_dim", "ranks", "causal", "pass", "dtype", "mode")


def label(r):
    """The scheme a row measured: its algorithm, factorisation and layout."""
    name = r["algo"]
    u, ring = r.get("ulysses"), r.get("ring")
    if "ulysses" in name and u is not None and ring is not None:
        name += f" U={u}×R={ring}"
    if r.get("layout") and ring != 1:  # one group (or one GPU): the layout does not apply
        name += f" ({r['layout']})"
    return name


def _cell(s):
    return re.sub(r"[\x00-\x1f\x7f]", " ", str(s)).replace("|", "\\|")


def _shape_title(k):
    s, b, h, kv, d, ranks, causal, pas, dtype, mode = k
    seq = f"{s // 1024}K" if s and s % 1024 == 0 else str(s)
    return (f"S = {seq}, batch {b}, {h} heads, {kv} kv-heads, D {d}, {ranks or '?'} ranks, "
            f"{'causal' if causal else 'non-causal'}, {pas}, {dtype}, {mode}")


def section(rows):
    """The markdown lines of the section ([] when the run has no distributed ringattn row)."""
    shapes = {}
    for r in rows:
        if r["family"] != "ringattn" or r["algo"].startswith("single") or r["seq"] is None:
            continue
        if r["skipped"] and ELSEWHERE in r["note"]:
            continue
        shapes.setdefault(tuple(r.get(c) for c in SHAPE), []).append(r)
    if not any("ulysses" in r["algo"] or len({x["algo"] for x in v}) < len(v) for v in shapes.values() for r in v):
        return []  # the ring schemes alone, one layout each
    out = []
    for k in sorted(shapes, key=lambda k: tuple("" if v is None else v for v in k)):
        ran = sorted((r for r in shapes[k] if not r["skipped"]), key=lambda r: r["time"])
        refused = {}
        for r in shapes[k]:
            if r["skipped"]:
                refused.setdefault((r["algo"], r["note"] or "(no reason given)"), 0)
                refused[(r["algo"], r["note"] or "(no reason given)")] += 1
        if not ran and not refused:
            continue
        out += [f"### {_cell(_shape_title(k))}", ""]
        if ran:
            out += ["| scheme | time µs | × the fastest | MB per GPU | wrong |", "|---|---|---|---|---|"]
            for r in ran:
                mb = "–" if r["bytes"] is None else f"{r['bytes'] / 1e6:.2f}"
                out.append(f"| {_cell(label(r))} | {r['time']:.1f} | {r['time'] / ran[0]['time']:.2f} | {mb} | "
                           f"{r['wrong']} |")
            good = [r for r in ran if not r["wrong"]]
            if good:
                line = f"Fastest: {_cell(label(good[0]))}"
                if len(good) > 1:
                    line += f", {good[1]['time'] / good[0]['time']:.2f}× faster than {_cell(label(good[1]))}"
                out += ["", line + "."]
            if len(good) < len(ran):
                out += ["", f"{len(ran) - len(good)} row(s) with wrong results are not ranked."]
        for (algo, note), n in sorted(refused.items()):
            out += ["", f"Could not run: {_cell(algo)}" + (f" ({n} rows)" if n > 1 else "") + f": {_cell(note)}."]
        out.append("")
    if not out:
        return []
    return ["## Context-parallel schemes", "",
            "Each shape's distributed schemes, fastest first; MB per GPU is what one rank receives in "
            "the pass (docs/algorithms.md: communication volume per GPU).", ""] + out
