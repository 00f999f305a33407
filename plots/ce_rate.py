"""The per-direction peer-copy rate a run's copy-engine rows imply (issue 33): the measurement the
verdict sets beside the recorded NVLink (or PCIe) figure, to cross-check it (plots/limits.py).

Per GPU and direction, from the correct rows at the largest size each source measured, the
fastest of them (a link carries at least what one copy moved over it):
  moe copy_ce      bytes / time_us_mean. copy_ce's bytes column is what one rank copies to its
                   n-1 peers, (n-1) x per_peer (collectives/moe_copy_ce.c, bytes()), and each peer
                   copies per_peer into it, so each direction of a GPU carries `bytes` in the
                   row's time (its remote_gbs). Phases dispatch, combine and roundtrip only: a
                   roundtrip_loaded row runs beside a compute kernel. Largest size: tokens.
  ringattn ring,   (P-1) x kv_bytes / comm_us with kv_bytes = 2 (K and V) x batch x (seq / P) x
  ring_cudnn       kv_heads x head_dim x element size: comm_us times the forward's P-1 block
                   copies alone, each rank to the next while the previous one copies into it
                   (collectives/ringattn_ring.c, ring_comm_only), max over ranks. Forward rows
                   only: a backward's comm_us also carries the fp32 dK/dV sums. Largest: seq.
  allreduce        busbw = 2(n-1)/n x bytes / time_us_mean: the reduce-scatter's (n-1)/n x
  twoshot_ce       bytes leave each GPU on the copy engines, the all-gather's (n-1)/n x bytes by
                   SM stores, pipelined chunk by chunk; the link's rate with half of it on the
                   copy engines (and a reduction in the way: a lower bound). Largest: bytes.
With more than two ranks one peer's share of a GPU's links may carry less than all of them (a
ring's single peer off NVSwitch): the rate is a lower bound on the GPU's per-direction figure,
never above it. The caller decides whether a run may claim a link at all (one node, two or more
ranks, each on a GPU of its own)."""
import attn
import groups as G

ELEM_BYTES = {"float": 4, "half": 2, "bfloat16": 2}
MOE_PHASES = ("dispatch", "combine", "roundtrip")


# Each source: (GB/s per direction, the row's size, what the row is) for a row it reads, else None.
def _copy_ce(r, ranks):
    if r["family"] != "moe" or r["algo"] != "copy_ce" or r["phase"] not in MOE_PHASES or not r["bytes"]:
        return None
    return r["bytes"] / r["time"] / 1e3, r["tokens"], f"{r['tokens']} tokens {r['phase']}"


def _ring(r, ranks):
    if r["family"] != "ringattn" or r["algo"] not in ("ring", "ring_cudnn") or r["pass"] != "fwd":
        return None  # the forward's rows only (cbcsv reads an empty pass as fwd)
    shape = [r[k] for k in G.ATTN_SHAPE]
    if not r["comm_us"] or r["dtype"] not in ELEM_BYTES or None in shape or ranks < 2:
        return None
    batch, _, kv_heads, head_dim = shape
    kv_bytes = 2 * batch * (r["seq"] // ranks) * kv_heads * head_dim * ELEM_BYTES[r["dtype"]]
    causal = "causal" if r["causal"] else "non-causal"
    what = f"S = {attn.human_seq(r['seq'])} {causal}, K/V copies alone"
    return (ranks - 1) * kv_bytes / r["comm_us"] / 1e3, r["seq"], what


def _twoshot_ce(r, ranks):
    if r["family"] != "allreduce" or r["algo"] != "twoshot_ce" or not r["busbw"]:
        return None
    what = f"{G.human_bytes(r['bytes'])}: reduce-scatter on the copy engines, all-gather by SM stores"
    return r["busbw"], r["bytes"], what


SOURCES = (_copy_ce, _ring, _twoshot_ce)


def measure(run, ranks):
    """{"gbs", "what"} of the fastest copy-engine row at its source's largest size (the fastest
    over the sources a run has), or None. run: a cbcsv.Run; ranks: the run's rank count."""
    best = None
    for src in SOURCES:
        got = [(g, r) for r in run.measured if r["wrong"] == 0 for g in [src(r, ranks)] if g and g[0] > 0]
        if not got:
            continue
        top = max(g[1] for g, _ in got)
        g, r = max(((g, r) for g, r in got if g[1] == top), key=lambda gr: gr[0][0])
        if best is None or g[0] > best["gbs"]:
            best = {"gbs": g[0], "what": f"{r['algo']} {r['dtype']} {r['mode']} {g[2]}"}
    return best
