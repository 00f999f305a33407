"""The copy-engine rate of a machine: what the copy engines alone move over a GPU's link, the
measurement the verdict sets beside the recorded NVLink (or PCIe) figure (plots/limits.py) and
the yardstick of MoE's remote GB/s.

One source: moe's copy_ce rows (collectives/moe_copy_ce.c), built to measure exactly this: the
dispatch's and the combine's remote bytes copied to the peers by the copy engines, both
directions at once. copy_ce's bytes column is what one rank copies to its n-1 peers, and each
peer copies as much into it, so each direction of a GPU carries `bytes` in the row's time:
bytes / time_us_mean. Phases dispatch, combine and roundtrip (a roundtrip_loaded row runs beside
a compute kernel), correct rows, the fastest at the largest tokens.
Other rows that use copy engines are not this figure: allreduce twoshot_ce's busbw has half of
its bytes on SM stores and a reduction in the way, ringattn ring's K/V copies are as large as
the attention shape makes them; each gave its own number, three per machine.

One figure per machine: figure() takes the fastest copy_ce over the run itself and the committed
references of the same machine (GPU model, rank and node count, a GPU per rank), so every
family's verdict on one machine quotes the same number, wherever copy_ce was measured.
With more than two ranks one peer's share of a GPU's links may carry less than all of them: the
rate is a lower bound on the GPU's per-direction figure, never above it."""
import os

PHASES = ("dispatch", "combine", "roundtrip")


def measure(run):
    """{"gbs", "what"} of the fastest copy_ce row at the largest tokens (run: a cbcsv.Run), or
    None when the run has none."""
    got = [r for r in run.measured if r["wrong"] == 0 and r["family"] == "moe" and r["algo"] == "copy_ce"
           and r["phase"] in PHASES and r["bytes"] and r["tokens"]]
    if not got:
        return None
    top = max(r["tokens"] for r in got)
    r = max((r for r in got if r["tokens"] == top), key=lambda r: r["bytes"] / r["time"])
    return {"gbs": r["bytes"] / r["time"] / 1e3,
            "what": f"copy_ce {r['dtype']} {r['mode']} {r['tokens']} tokens {r['phase']}"}


def figure(own, others):
    """The machine's figure: the fastest of the run's own measurement (own: measure() or None)
    and the others [(path, measure() or None)], as {"gbs", "what", "where": path or None}."""
    cands = ([dict(own, where=None)] if own else []) + [dict(m, where=os.path.normpath(p)) for p, m in others if m]
    # on a tie the committed run is named: a reference's own verdict quotes it as every other does
    return max(cands, key=lambda c: (c["gbs"], c["where"] is not None)) if cands else None
