"""Splits measured rows into chart groups and computes speedups over NCCL.

A group is what one chart shows: one family, dtype, op and variant (out-of-place or in-place,
eager or graph mode), plus the MoE configuration when a CSV holds several; ringattn groups also split by causal
and by the attention shape. Its stem names the chart files:
  <family>[-<config>]-<dtype>[-<op>][-inplace][-graph]
  - <op> only when the family/dtype has rows for more than one op;
  - <config> for moe: the columns (model, hidden, topk, experts, routing) that vary; for
    ringattn: the pass unless the forward (bwd, fwd+bwd), the shape columns that vary
    (b<batch>, h<heads>, kv<kv_heads>, d<head_dim>), then always causal or noncausal.
prepare.py (charts) and summary (markdown) both use this, so they agree on names.
Speedup = time_us_mean of the NCCL baseline / time_us_mean of the algorithm, same group and x;
with best=True the reference at each x is the fastest NCCL form there (nccl, nccl_p2p,
nccl_symm, nccl_reg: whichever ran), so a custom kernel is measured against NCCL at its best.
"""
import hashlib
import re

FAMILY_ORDER = ("allreduce", "allgather", "reducescatter", "alltoall", "sendrecv", "moe", "ringattn", "alltoallv",
                "broadcast", "reduce", "gather", "scatter", "hypercube")
DTYPE_ORDER = ("float", "half", "bfloat16", "fp8e4m3", "fp8e5m2", "double", "int8", "uint8", "int32", "uint32",
               "int64", "uint64")
PHASE_ORDER = ("layout", "dispatch", "combine", "roundtrip")
MOE_CONFIG = ("model", "hidden", "topk", "experts", "routing")
CONFIG_PREFIX = {"hidden": "h", "topk": "k", "experts": "e"}
ATTN_SHAPE = ("batch", "heads", "kv_heads", "head_dim")
ATTN_PREFIX = {"batch": "b", "heads": "h", "kv_heads": "kv", "head_dim": "d"}
UNCHARTED = ()  # families without charts yet: skipped with a note


# The algorithm a user runs by default (collectives' size-picking `auto`): drawn on top of the
# others in the charts and quoted first in the verdict's opening line.
HEADLINE = "auto"


def is_nccl(algo):
    return algo.startswith("nccl")


def baseline_of(algos):
    """`nccl` when present, else the first NCCL-like algo by name, else None."""
    nccl = sorted(a for a in algos if is_nccl(a))
    return "nccl" if "nccl" in nccl else (nccl[0] if nccl else None)


def algo_order(algos):
    """NCCL baselines first (baseline first of all), then the custom algorithms by name."""
    base = baseline_of(algos)
    return sorted(set(algos), key=lambda a: (a != base, not is_nccl(a), a))


def _rank(value, order):
    return (order.index(value), "") if value in order else (len(order), value)


def xkey(row):
    """The sweep variable: tokens per rank for moe, total sequence for ringattn, message bytes
    for the rest."""
    if row["family"] == "ringattn":
        return row["seq"]
    return row["tokens"] if row["family"] == "moe" else row["bytes"]


def _safe(part):
    return re.sub(r"[^A-Za-z0-9.+_-]", "_", str(part))


STEM_MAX = 120  # chart files add "-compare-...-speedup.png"; file names stop at 255 bytes


def _short(stem):
    """The stem, or for an over-long one (a CSV with a 300-character family) its first part and
    a hash of the whole, so the chart files still get distinct names a file system accepts."""
    if len(stem) <= STEM_MAX:
        return stem
    return stem[:STEM_MAX - 9] + "-" + hashlib.sha1(stem.encode()).hexdigest()[:8]


class Group:
    def __init__(self, key, rows):
        self.key = key
        (self.family, self.config, self.dtype, self.op, self.inplace, self.mode) = key
        self.rows = rows
        parts = [self.family, *self.config, self.dtype]
        if self.op is not None:
            parts.append(self.op)
        if self.inplace:
            parts.append("inplace")
        if self.mode != "eager":
            parts.append(self.mode)
        self.stem = _short("-".join(_safe(p) for p in parts))

    def title(self):
        parts = [self.family, *self.config, self.dtype]
        if self.op not in (None, "", "none"):
            parts.append(self.op)
        elif self.op is None and self.rows[0]["op"] not in ("", "none"):
            parts.append(self.rows[0]["op"])
        if self.family not in ("moe", "ringattn"):
            parts.append("in-place" if self.inplace else "out-of-place")
        parts.append(self.mode)
        return " · ".join(parts)

    def context(self):
        """'8 ranks, 1 node, NVIDIA H200' from the rows (omitting what they do not say)."""
        def one(name):
            vals = {r[name] for r in self.rows if r[name]}
            return vals.pop() if len(vals) == 1 else ""
        ranks, nodes, gpu = one("ranks"), one("nodes"), one("gpu")
        bits = []
        if ranks:
            bits.append(f"{ranks} rank" + ("" if ranks == "1" else "s"))
        if nodes:
            bits.append(f"{nodes} node" + ("" if nodes == "1" else "s"))
        if gpu:
            bits.append(gpu)
        return ", ".join(bits)

    @property
    def algos(self):
        return algo_order({r["algo"] for r in self.rows})

    @property
    def phases(self):
        return sorted({r["phase"] for r in self.rows}, key=lambda p: _rank(p, PHASE_ORDER))


def charted(rows):
    """Measured rows of families that get charts."""
    return [r for r in rows if not r["skipped"] and r["family"] not in UNCHARTED]


def make_groups(rows):
    """Groups of charted rows, in a stable reading order. Stems depend on all rows given, so
    pass both runs' rows together when comparing."""
    rows = charted(rows)
    ops = {}
    for r in rows:
        ops.setdefault((r["family"], r["dtype"]), set()).add(r["op"])
    varying = [c for c in MOE_CONFIG if len({r[c] for r in rows if r["family"] == "moe"}) > 1]
    attn_varying = [c for c in ATTN_SHAPE if len({r[c] for r in rows if r["family"] == "ringattn"}) > 1]
    roots = {}  # the rooted families' roots (the root column)
    for r in rows:
        if r.get("root") is not None:
            roots.setdefault(r["family"], set()).add(r["root"])
    buckets = {}
    for r in rows:
        op = r["op"] if len(ops[(r["family"], r["dtype"])]) > 1 else None
        config = tuple(CONFIG_PREFIX.get(c, "") + r[c] for c in varying) if r["family"] == "moe" else ()
        if r["family"] == "ringattn":
            config = attn_config(r, attn_varying)
        if r.get("root") is not None and len(roots.get(r["family"], ())) > 1:
            config = (f"root{r['root']}",)  # -r -1: a chart per root
        key = (r["family"], config, r["dtype"], op, r["inplace"], r["mode"])
        buckets.setdefault(key, []).append(r)
    order = lambda k: (_rank(k[0], FAMILY_ORDER), k[1], _rank(k[2], DTYPE_ORDER), k[3] or "",
                       k[4], k[5] != "eager", k[5])
    return [Group(k, buckets[k]) for k in sorted(buckets, key=order)]


PASS_PART = {"bwd": "bwd", "both": "fwd+bwd"}  # ringattn --pass; the forward (fwd) adds none


def attn_config(row, varying):
    """A ringattn row's config parts: its pass unless the forward (bwd, fwd+bwd), the varying
    shape columns (d128), then causal or noncausal (always last)."""
    pass_part = PASS_PART.get(row["pass"])
    return ((pass_part,) if pass_part else ()) + tuple(f"{ATTN_PREFIX[c]}{row[c]}" for c in varying) + \
        ("causal" if row["causal"] else "noncausal",)


def series(group, warnings=None, phase=None):
    """{(algo, phase): rows sorted by x}, one row per x (the first; duplicates are reported)."""
    out = {}
    for algo in group.algos:
        for ph in group.phases:
            if phase is not None and ph != phase:
                continue
            seen = {}
            for r in group.rows:
                if r["algo"] != algo or r["phase"] != ph:
                    continue
                x = xkey(r)
                if x in seen:
                    if warnings is not None:
                        warnings.append(f"lines {seen[x]['line']} and {r['line']}: two rows for "
                                        f"{group.stem} {algo} {ph} at {x}; charting the first")
                    continue
                seen[x] = r
            if seen:
                out[(algo, ph)] = [seen[x] for x in sorted(seen)]
    return out


def nccl_forms(group):
    """The group's NCCL algorithms (the baseline first)."""
    return [a for a in group.algos if is_nccl(a)]


def speedup_reference(group):
    """What speedups(group, best=True) compares against, for titles: the baseline's name, or
    'best NCCL form' when the group has several; None without NCCL rows."""
    forms = nccl_forms(group)
    return None if not forms else forms[0] if len(forms) == 1 else "best NCCL form"


def fastest_nccl(group, phase=""):
    """{x: the fastest NCCL row at x} over every NCCL form in the group (ties: the first form
    in algo_order, so the baseline wins a tie)."""
    best = {}
    for (algo, _), rows in series(group, phase=phase).items():
        if is_nccl(algo):
            for r in rows:
                if xkey(r) not in best or r["time"] < best[xkey(r)]["time"]:
                    best[xkey(r)] = r
    return best


def speedups(group, phase="", best=False):
    """{custom algo: [(x, speedup, wrong rows involved)]} against the group's NCCL baseline, or
    with best=True against the fastest NCCL form at each x (fastest_nccl gives which one)."""
    base = baseline_of(group.algos)
    if base is None:
        return {}
    s = series(group, phase=phase)
    ref = fastest_nccl(group, phase) if best else {xkey(r): r for r in s.get((base, phase), [])}
    out = {}
    for (algo, ph), rows in s.items():
        if is_nccl(algo):
            continue
        pts = [(xkey(r), ref[xkey(r)]["time"] / r["time"], r["wrong"] + ref[xkey(r)]["wrong"] > 0)
               for r in rows if xkey(r) in ref]
        if pts:
            out[algo] = pts
    return out


def human_bytes(b):
    """8 B, 1 KiB, 1.5 MiB: exact binary units when exact, else one decimal."""
    units = ("B", "KiB", "MiB", "GiB", "TiB")
    u, v = 0, b
    while u < len(units) - 1 and v >= 1024 and v % 1024 == 0:
        v //= 1024
        u += 1
    if v < 1024 or u == len(units) - 1:
        return f"{v} {units[u]}"
    d, u = float(b), 0
    while u < len(units) - 1 and d >= 1024:
        d /= 1024
        u += 1
    return f"{d:.1f} {units[u]}"
