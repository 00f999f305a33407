"""What the verdict compares, per family: each family is judged by what it exists for, run
against reference, variant by variant (plots/verdict.py prints the table this makes).

  collectives  busbw at the NPOINTS largest common sizes (higher is better) and the p50 latency
               at the NPOINTS smallest (lower is better). p50, never the mean: one cold first
               iteration lifts a small size's mean threefold (h200x2/alltoall nccl float eager
               8 B: mean 34.3 µs, p50 9.2) and would call a normal run FAST. A run without p50
               (an nccl-tests import) compares means on both sides and says so.
  moe          the round trip: remote GB/s (bytes that crossed to another GPU / time) at the
               most tokens, beside its share of copy_ce (the copy engines alone moving the same
               remote bytes in the same run), and the p50 round trip at the fewest tokens. Never
               busbw: it counts the logical bytes, local copies included, and exceeds the link.
  ringattn     TFLOP/s per GPU at the longest sequences (the verdict), with overlap (compute /
               wall time) and r/single (time / P x one block alone) beside it: when TFLOP/s
               falls, a lower overlap says the K/V transfers stopped hiding, an unchanged one
               says the block kernel itself got slower (likely_causes).

Only the sizes both runs measured are compared, so an algorithm is judged only where it is
offered (oneshot_ll up to 4 MiB is compared up to 4 MiB). Tolerances: OK within bw_tol for the
throughputs (busbw, remote GB/s, TFLOP/s) and within lat_tol or LAT_FLOOR_US for latencies.
"""
import attn
import groups as G

NPOINTS = 2  # largest / smallest common sizes compared
LAT_FLOOR_US = 0.5  # latency differences below this are never SLOW/FAST
COPY_CE = "copy_ce"  # moe's yardstick: the copy engines alone (collectives/moe_copy_ce.c)


def judge(m, r, higher, tol, floor=0.0):
    """OK, SLOW or FAST for measured m against reference r; higher: higher is better."""
    if not higher and abs(m - r) <= floor:
        return "OK"
    ratio = m / r
    if higher:
        return "SLOW" if ratio < 1 - tol else "FAST" if ratio > 1 + tol else "OK"
    return "SLOW" if ratio > 1 + tol else "FAST" if ratio < 1 - tol else "OK"


def fmt_x(family, x):
    if family == "moe":
        return f"{x} tokens"
    return f"S = {attn.human_seq(x)}" if family == "ringattn" else G.human_bytes(x)


def span(family, pts):
    return fmt_x(family, pts[0]) + (f"–{fmt_x(family, pts[-1])}" if len(pts) > 1 else "")


def mean_of(rows_by_x, pts, get):
    vals = [get(rows_by_x[x]) for x in pts]
    return None if any(v is None or v <= 0 for v in vals) else sum(vals) / len(vals)


def cell(family, pts, m, r, unit, verdict, ndigits=1):
    return f"{m:.{ndigits}f} / {r:.{ndigits}f} {unit} ({m / r:.2f}) @ {span(family, pts)} **{verdict}**"


def latency_get(run_pts, ref_pts, pts):
    """p50 when both runs recorded it at every point, else the mean: (getter, label)."""
    have = all(side[x].get("p50") for side in (run_pts, ref_pts) for x in pts)
    return ((lambda r: r["p50"]), "p50") if have else ((lambda r: r["time"]), "mean (no p50 recorded)")


class Judged:
    """One variant's comparison: cells for the table, its worst verdict and the numbers the
    opener and the causes read."""

    def __init__(self, key, cells, verdicts, facts):
        self.key, self.cells, self.facts = key, cells, facts
        self.verdict = "SLOW" if "SLOW" in verdicts else "FAST" if "FAST" in verdicts else "OK"
        self.judged = bool(verdicts)


def throughput(family, run_pts, ref_pts, common, get, unit, tol, seen, ndigits=1):
    """The cell of a higher-is-better measure at the largest common points ("–" without it)."""
    pts = common[-NPOINTS:]
    m, r = mean_of(run_pts, pts, get), mean_of(ref_pts, pts, get)
    if m is None or r is None:
        return "–", None
    v = judge(m, r, True, tol)
    seen.append(v)
    return cell(family, pts, m, r, unit, v, ndigits), m / r


def latency(family, run_pts, ref_pts, common, tol, seen):
    pts = common[:NPOINTS]
    get, label = latency_get(run_pts, ref_pts, pts)
    m, r = mean_of(run_pts, pts, get), mean_of(ref_pts, pts, get)
    if m is None or r is None:
        return "–"
    v = judge(m, r, False, tol, LAT_FLOOR_US)
    seen.append(v)
    return cell(family, pts, m, r, "µs", v) + ("" if label == "p50" else f" ({label})")


def classic(key, run_pts, ref_pts, common, bw_tol, lat_tol):
    seen = []
    bw, _ = throughput(key[0], run_pts, ref_pts, common, lambda r: r["busbw"], "GB/s", bw_tol, seen)
    lat = latency(key[0], run_pts, ref_pts, common, lat_tol, seen)
    return Judged(key, [bw, lat], seen, {})


def copy_share(side_points, key, x):
    """An moe row's remote GB/s over copy_ce's at the same tokens and variant (None without)."""
    row = side_points.get(key, {}).get(x)
    yard = side_points.get(key[:1] + (COPY_CE,) + key[2:], {}).get(x)
    if not row or not yard or not row.get("remote_gbs") or not yard.get("remote_gbs"):
        return None
    return row["remote_gbs"] / yard["remote_gbs"]


def moe(key, run_pts, ref_pts, common, bw_tol, lat_tol, run_all, ref_all):
    seen = []
    remote, ratio = throughput("moe", run_pts, ref_pts, common, lambda r: r.get("remote_gbs"), "GB/s", bw_tol, seen)
    x = common[-1]
    share = "–"
    facts = {"remote_ratio": ratio}
    if key[1] != COPY_CE:
        a, b = copy_share(run_all, key, x), copy_share(ref_all, key, x)
        if a is not None:
            share = f"{100 * a:.0f} %" + (f" (reference {100 * b:.0f} %)" if b is not None else "") + f" @ {x} tokens"
            facts.update(share=a, ref_share=b)
    lat = latency("moe", run_pts, ref_pts, common, lat_tol, seen)
    return Judged(key, [remote, share, lat], seen, facts)


def ringattn(key, run_pts, ref_pts, common, bw_tol):
    seen = []
    tf, ratio = throughput("ringattn", run_pts, ref_pts, common, lambda r: r["tflops"], "TFLOP/s", bw_tol, seen)
    pts = common[-NPOINTS:]
    facts = {"tflops_ratio": ratio}
    cells = [tf]
    for col, name, higher in (("overlap_eff", "overlap", True), ("ring_over_single", "r_single", False)):
        m, r = mean_of(run_pts, pts, lambda row: row[col]), mean_of(ref_pts, pts, lambda row: row[col])
        if m is None or r is None:
            cells.append("–")
            continue
        moved = judge(m, r, higher, bw_tol)  # information beside TFLOP/s, not a verdict of its own
        mark = {"SLOW": " (worse)", "FAST": " (better)"}.get(moved, "")
        cells.append(f"{m:.3f} / {r:.3f}{mark}")
        facts[name] = (m, r, moved)
    return Judged(key, cells, seen, facts)


HEADERS = {
    "classic": ("busbw at the largest sizes", "p50 latency at the smallest sizes"),
    "moe": ("round trip remote GB/s at the most tokens", "share of copy_ce (same run)",
            "p50 round trip at the fewest tokens"),
    "ringattn": ("TFLOP/s per GPU at the longest S", "overlap (run / reference)", "r/single (run / reference)"),
}


def kind(family):
    return family if family in ("moe", "ringattn") else "classic"


def compare(ref_points, run_points, bw_tol, lat_tol):
    """[Judged] for every variant the two runs share with a common size, NCCL forms first."""
    out = []
    for key in sorted(set(ref_points) & set(run_points), key=lambda k: (G.is_nccl(k[1]) is False, k)):
        run_pts, ref_pts = run_points[key], ref_points[key]
        common = sorted(set(run_pts) & set(ref_pts))
        if not common:
            continue
        k = kind(key[0])
        if k == "moe":
            j = moe(key, run_pts, ref_pts, common, bw_tol, lat_tol, run_points, ref_points)
        elif k == "ringattn":
            j = ringattn(key, run_pts, ref_pts, common, bw_tol)
        else:
            j = classic(key, run_pts, ref_pts, common, bw_tol, lat_tol)
        if j.judged:
            out.append(j)
    return out


def variant_name(key):
    """'bfloat16 in-place graph', 'deepseek-v3 uniform bfloat16 eager', 'bfloat16 causal B1 H32 KV8 D128 eager'."""
    family, _, dtype, op, inplace, mode, model, routing = key[:8]
    attn_variant = ""
    if family == "ringattn":
        pas, causal, batch, heads, kv_heads, head_dim = key[8:]
        attn_variant = (f"{'' if pas == 'fwd' else pas + ' '}{'causal' if causal else 'non-causal'} "
                        f"B{batch} H{heads} KV{kv_heads} D{head_dim}")  # the forward unnamed: the default
    return " ".join(p for p in (model, routing, dtype, op if op not in ("", "none") else "",
                                "in-place" if inplace else "", attn_variant, mode) if p)


def likely_causes(judged):
    """Family-specific causes read from the slow variants' own measures (ringattn: overlap and
    r/single beside the fallen TFLOP/s; moe: the share of copy_ce)."""
    out = []
    slow = [j for j in judged if j.verdict == "SLOW"]
    ra = [j for j in slow if j.key[0] == "ringattn" and "overlap" in j.facts]
    hidden_lost = [j for j in ra if j.facts["overlap"][2] == "SLOW"]
    kernel = [j for j in ra if j.facts["overlap"][2] != "SLOW"]
    if hidden_lost:
        out.append(f"ring attention: the overlap fell ({', '.join(sorted({j.key[1] for j in hidden_lost}))}): the K/V "
                   "transfers no longer hide behind the block kernel: the link (the NVLink figure and the copy-engine "
                   "rate below) or the communication path")
    if kernel:
        out.append(f"ring attention: TFLOP/s fell with the overlap unchanged ({', '.join(sorted({j.key[1] for j in kernel}))}): "
                   "the block kernel itself is slower (compare the single rows; clocks and power: "
                   "`nvidia-smi -q -d CLOCK,POWER,PERFORMANCE`)")
    singles = [j for j in slow if j.key[0] == "ringattn" and attn.is_single(j.key[1])]
    if singles and not kernel:
        out.append("ring attention: the single (P = 1) rows are slower: the block kernel on this GPU, not the ring")
    moe_slow = [j for j in slow if j.key[0] == "moe" and j.facts.get("share") is not None and j.facts.get("ref_share")]
    same_share = [j for j in moe_slow if j.facts["share"] >= 0.9 * j.facts["ref_share"]]
    if same_share:
        out.append("MoE: remote GB/s fell but the share of copy_ce held: the link itself moves less here (copy_ce fell "
                   "too): NVLink state (`nvidia-smi nvlink -s`), clocks or other traffic")
    if len(same_share) < len(moe_slow):
        out.append("MoE: the share of copy_ce fell: the algorithm's kernels, not the link (SMs taken by other work, "
                   "`--sms`, the routing's imbalance)")
    return out
