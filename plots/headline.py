"""The run's headline figure, the second half of the verdict's opening line ("OK: 28 variants;
auto 8 GiB 379 GB/s = 79 % of NVLink"): per family the number it exists for, of the algorithm a
user would run.

  collectives  busbw of `auto` (groups.HEADLINE; without it the fastest algorithm there) at its
               largest size, the fastest variant, with its share of the limit that bounds it
               (plots/limits.py); one rank: its time there (busbw is 0 by definition)
  moe          the round trip of the fastest custom algorithm (remote GB/s) at the most tokens,
               with its share of copy_ce measured in the same run
  ringattn     TFLOP/s per GPU of the fastest distributed scheme at the longest S, with overlap
               and r/single; one rank: the block kernels (single, single_cudnn)"""
import attn
import groups as G
import limits


def _best(rows, value):
    return max(rows, key=value) if rows else None


def classic(rows, hw):
    rows = [r for r in rows if r["busbw"] is not None and r["bytes"]]
    if not rows:
        return ""
    algos = {r["algo"] for r in rows}
    top = max(r["bytes"] for r in rows)
    if G.HEADLINE in algos:
        algo = G.HEADLINE
    else:
        algo = _best([r for r in rows if r["bytes"] == top], lambda r: r["busbw"])["algo"]
    mine = [r for r in rows if r["algo"] == algo]
    at = max(r["bytes"] for r in mine)
    r = _best([r for r in mine if r["bytes"] == at], lambda r: r["busbw"])
    if hw.ranks <= 1:
        return f"{algo} {limits.fmt_size(at)} {r['time']:.1f} µs (one rank: no busbw)"
    s = hw.share(r)
    return f"{algo} {limits.fmt_size(at)} {r['busbw']:.0f} GB/s" + (f" = {100 * s[0]:.0f} % of {s[1]}" if s else "")


def moe(rows, hw):
    rows = [r for r in rows if r["phase"] == "roundtrip" and r.get("remote_gbs")]
    if not rows:
        return ""
    top = max(r["tokens"] for r in rows)
    at = [r for r in rows if r["tokens"] == top]
    own = [r for r in at if r["algo"] != "copy_ce" and not G.is_nccl(r["algo"])] or \
          [r for r in at if r["algo"] != "copy_ce"]
    r = _best(own, lambda r: r["remote_gbs"])
    if r is None:
        return ""
    yard = [y for y in at if y["algo"] == "copy_ce" and (y["dtype"], y["mode"]) == (r["dtype"], r["mode"])]
    s = hw.moe_share(r, yard[0] if yard else None)
    text = f"{r['algo']} {top} tokens round trip {r['time']:.0f} µs, {r['remote_gbs']:.0f} GB/s remote"
    return text + (f" = {100 * s[0]:.0f} % of {s[1]}" if s else "")


def ringattn(rows, hw):
    rows = [r for r in rows if r["tflops"]]
    if not rows:
        return ""
    dist = [r for r in rows if not attn.is_single(r["algo"])] if hw.ranks > 1 else []
    pool = dist or [r for r in rows if attn.is_single(r["algo"])] or rows
    top = max(r["seq"] for r in pool)
    r = _best([r for r in pool if r["seq"] == top], lambda r: r["tflops"])
    text = f"{r['algo']} S = {attn.human_seq(top)} {r['tflops']:.0f} TFLOP/s per GPU"
    extra = [f"overlap {r['overlap_eff']:.2f}" if r["overlap_eff"] is not None else "",
             f"r/single {r['ring_over_single']:.2f}" if r["ring_over_single"] is not None else ""]
    extra = [e for e in extra if e]
    return text + (f" ({', '.join(extra)})" if extra else "")


def headline(side, hw):
    """The figure for side (verdict.py's Side) with hw (limits.Hardware); "" without one."""
    rows = [r for r in side.run.measured if r["wrong"] == 0]
    if not rows:
        return ""
    family = rows[0]["family"]
    fn = {"moe": moe, "ringattn": ringattn}.get(family, classic)
    return fn([r for r in rows if r["family"] == family], hw)
