#!/usr/bin/env python3
"""Writes the SYNTHETIC test fixtures under tests/plots/data/ (not benchmark results).

Times come from made-up alpha + bytes/bandwidth formulas so the expected speedups are easy to
reason about; every row says gpu=synthetic-fixture. Run it after changing the fixtures and
commit its output; the test plot_fixtures_current checks the committed files match it.
usage: make_fixtures.py [OUTDIR]   (default: the data/ folder next to this script)
"""
import csv
import io
import os
import sys

COLUMNS = ("family,algo,dtype,op,bytes,count,inplace,ranks,nodes,gpu,time_us_mean,time_us_max,"
           "time_us_p50,time_us_p99,algbw_gbs,busbw_gbs,wrong,note,mode,iters,mem_bytes,model,"
           "tokens,hidden,topk,experts,routing,phase,remote_gbs,imbalance").split(",")
# ringattn's columns, at the end of the header as in launcher/report.h. The other fixtures keep
# the older header without them (old CSVs must still load).
ATTN_COLUMNS = COLUMNS + ("seq,batch,heads,kv_heads,head_dim,causal,tflops,comm_us,compute_us,"
                          "overlap_eff,ring_over_single,err_max,err_mean").split(",")
RANKS = 8
GPU = "synthetic-fixture"
ELEM = {"float": 4, "half": 2, "bfloat16": 2}
BUSBW = {"allreduce": 2 * (RANKS - 1) / RANKS, "allgather": (RANKS - 1) / RANKS,
         "alltoall": (RANKS - 1) / RANKS, "moe": 1.0}
ONESHOT_NOTE = "not supported: buffer above 32 MiB, use twoshot or auto"
PEER_NOTE = 'not supported: peer access between ranks 0 and 4 unavailable ("P2P disabled", see placement.txt)'


def row(family, algo, dtype, op, b, t, *, inplace=0, mode="eager", wrong=0, note="", moe=None):
    """One CSV row as a dict; t=None makes a skipped row (times empty, note says why)."""
    r = dict.fromkeys(COLUMNS, "")
    r.update(family=family, algo=algo, dtype=dtype, op=op, bytes=b, count=b // ELEM[dtype],
             inplace=inplace, ranks=RANKS, nodes=1, gpu=GPU, note=note, mode=mode, iters=20)
    if t is not None:
        algbw = b / t / 1e3  # bytes / µs / 1e3 = GB/s with GB = 1e9
        r.update(time_us_mean=f"{t:.3f}", time_us_max=f"{t * 1.05:.3f}", time_us_p50=f"{t:.3f}",
                 time_us_p99=f"{t * 1.1:.3f}", algbw_gbs=f"{algbw:.3f}",
                 busbw_gbs=f"{algbw * BUSBW[family]:.3f}", wrong=wrong)
    r.update(moe or {})
    return r


def allreduce(nccl_scale=1.0):
    rows = []
    for b in (2 ** k for k in range(3, 30, 2)):  # 8 B .. 512 MiB
        rows.append(row("allreduce", "nccl", "float", "sum", b, (20 + b / 200e3) * nccl_scale))
        one = (8 + b / 60e3) if b <= 32 << 20 else None
        rows.append(row("allreduce", "oneshot", "float", "sum", b, one,
                        note="" if one else ONESHOT_NOTE))
        rows.append(row("allreduce", "twoshot", "float", "sum", b, 12 + b / 240e3,
                        wrong=12 if b == 2 << 20 else 0))
    return rows


def allreduce_variants():
    rows = []
    for b in (8, 1024, 65536):  # a second op: chart names then carry the op
        rows.append(row("allreduce", "nccl", "float", "max", b, 21 + b / 200e3))
        rows.append(row("allreduce", "oneshot", "float", "max", b, 9 + b / 60e3))
    for b in (2 ** k for k in range(3, 16, 2)):  # graph mode, small sizes
        for algo, t in (("nccl", 15 + b / 200e3), ("oneshot", 4 + b / 60e3), ("twoshot", 7 + b / 240e3)):
            rows.append(row("allreduce", algo, "float", "sum", b, t, mode="graph"))
    for b in (2 ** k for k in range(10, 27, 4)):  # in-place bfloat16
        rows.append(row("allreduce", "nccl", "bfloat16", "sum", b, 22 + b / 190e3, inplace=1))
        rows.append(row("allreduce", "twoshot", "bfloat16", "sum", b, 13 + b / 230e3, inplace=1))
    return rows


def alltoall(with_sendrecv=True):
    rows = []
    for b in (2 ** k for k in range(10, 29, 2)):  # 1 KiB .. 256 MiB
        rows.append(row("alltoall", "nccl", "float", "none", b, 15 + b / 150e3))
        if with_sendrecv:
            rows.append(row("alltoall", "nccl_sendrecv", "float", "none", b, 25 + b / 140e3))
        peer = (6 + b / 170e3) if b < 256 << 20 else None
        rows.append(row("alltoall", "peer", "float", "none", b, peer, note="" if peer else PEER_NOTE))
    return rows


def allgather():
    return [row("allgather", "nccl", "float", "none", b, 14 + b / 180e3)
            for b in (2 ** k for k in range(10, 27, 4))]


def moe(nccl_scale=1.0):
    rows = []
    hidden, topk = 7168, 8
    for tokens in (128 << k for k in range(7)):  # 128 .. 8192 tokens per rank
        b = tokens * hidden * 2 * topk  # logical bytes per rank (bfloat16 tokens, topk copies)
        for algo, base, per_tok in (("nccl", 40 * nccl_scale, 0.05), ("peer", 12, 0.03)):
            t = {"layout": base * 0.75, "dispatch": base + tokens * per_tok,
                 "combine": (base + tokens * per_tok) * 1.25}
            t["roundtrip"] = t["dispatch"] + t["combine"]
            for phase, tp in t.items():
                extra = dict(model="synthetic", tokens=tokens, hidden=hidden, topk=topk,
                             experts=256, routing="uniform", phase=phase, imbalance="1.100",
                             remote_gbs=f"{b * 7 / 8 / tp / 1e3:.3f}")
                rows.append(row("moe", algo, "bfloat16", "none", b, tp, moe=extra))
    return rows


def attn_row(algo, dtype, seq, causal, head_dim, *, mode="eager", wrong=0, note=None):
    """One ringattn row on 8 ranks, batch 1, 32 heads, 8 K/V heads, from a made-up model: a
    kernel reaching 380 * n / (n + 3000) TFLOP/s on n query rows (the all-gather's single pass
    5% faster), 15 µs per ring step, K/V at 120 GB/s over the ring (x1.3 for NCCL) and 200 GB/s
    for the all-gather, so ring overtakes nccl_allgather as S grows. note: a skipped row."""
    P, B, H, KV = RANKS, 1, 32, 8
    flops = 4 * B * H * seq * seq * head_dim * (0.5 if causal else 1.0)
    eff = lambda n: 380 * n / (n + 3000)  # TFLOP/s; flops / (TFLOP/s * 1e6) = µs
    shard = 2 * B * (seq // P) * KV * head_dim * 2  # K and V of one rank, bytes
    block = flops / P / P / (eff(seq / P) * 1e6)  # the local kernel on one S/P block
    if algo == "single":
        compute = flops / (eff(seq) * 1e6)
        t, comm, b = compute, 0.0, 0
    elif algo == "nccl_allgather":
        compute = 0.95 * P * block
        comm = 20 + (P - 1) * shard / 200e3
        t, b = comm + compute, (P - 1) * shard
    else:
        compute = P * block + 15 * (P - 1)
        comm = (P - 1) * (6 + shard / 120e3) * (1.3 if algo == "nccl_ring" else 1.0)
        t = max(compute, comm) + (25 if algo == "nccl_ring" else 10)
        b = (P - 1) * shard
    r = dict.fromkeys(ATTN_COLUMNS, "")
    err = 0.0039 if dtype == "bfloat16" else 0.00049
    r.update(family="ringattn", algo=algo, dtype=dtype, op="none", bytes=b, count=b // 2,
             inplace=0, ranks=RANKS, nodes=1, gpu=GPU, mode=mode, iters=20, seq=seq, batch=B,
             heads=H, kv_heads=KV, head_dim=head_dim, causal=int(causal),
             note=note if note is not None else ("one GPU, whole sequence" if algo == "single"
                                                 else "zigzag" if causal else "contiguous shards"))
    if note is None:
        algbw = b / t / 1e3
        r.update(time_us_mean=f"{t:.3f}", time_us_max=f"{t * 1.02:.3f}", time_us_p50=f"{t:.3f}",
                 time_us_p99=f"{t * 1.05:.3f}", algbw_gbs=f"{algbw:.3f}", busbw_gbs=f"{algbw:.3f}",
                 wrong=wrong, tflops=f"{flops / (1 if algo == 'single' else P) / t / 1e6:.4f}",
                 comm_us=f"{comm:.4f}", compute_us=f"{compute:.4f}", err_max=f"{err:.6g}",
                 err_mean=f"{err / 16:.6g}")
        if algo != "single":
            r.update(overlap_eff=f"{compute / t:.4f}", ring_over_single=f"{t / (P * block):.6g}")
    return r


def nccl_forms():
    """More NCCL forms beside allreduce's nccl (float sum, eager and graph): nccl_symm fastest up
    to ~5 MiB, nccl_reg above, so the best-form table names both and twoshot loses to nccl_symm
    at small sizes. Appended last in run-a so the line numbers of the other rows stay put."""
    rows = []
    for b in (2 ** k for k in range(3, 30, 2)):  # 8 B .. 512 MiB, as allreduce()
        rows.append(row("allreduce", "nccl_symm", "float", "sum", b, 9 + b / 150e3))
        rows.append(row("allreduce", "nccl_reg", "float", "sum", b, 19 + b / 210e3))
    for b in (2 ** k for k in range(3, 16, 2)):  # graph mode, as allreduce_variants()
        rows.append(row("allreduce", "nccl_symm", "float", "sum", b, 5 + b / 150e3, mode="graph"))
    return rows


def ringattn():
    """bf16, D 128 non-causal and causal, D 64 causal (so head_dim varies: stems carry d128/d64),
    S = 4K..64K, all four algorithms; one wrong nccl_ring row and one skipped ring row."""
    rows = []
    for causal, head_dim in ((0, 128), (1, 128), (1, 64)):
        for seq in (4096 << k for k in range(5)):
            for algo in ("single", "ring", "nccl_ring", "nccl_allgather"):
                wrong = 3 if (algo, seq, causal, head_dim) == ("nccl_ring", 16384, 1, 128) else 0
                rows.append(attn_row(algo, "bfloat16", seq, causal, head_dim, wrong=wrong))
    rows.append(attn_row("ring", "bfloat16", 131072, 1, 128,
                         note="skipped: 131072 tokens need 9.0 GiB of K/V per rank, 8.5 GiB free"))
    return rows


def csv_text(rows, columns=COLUMNS):
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=columns, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    return out.getvalue()


def fixtures():
    """{relative path: file content}."""
    run_a = allreduce() + allreduce_variants() + alltoall() + allgather() + moe() + nccl_forms()
    run_b = allreduce(nccl_scale=0.9) + alltoall(with_sendrecv=False) + moe(nccl_scale=0.9)
    skipped = [r for r in run_a if not r["time_us_mean"]]
    attn = ringattn()
    attn_csv = csv_text(attn, ATTN_COLUMNS)
    first = csv_text(attn[1:2], ATTN_COLUMNS).splitlines()[1]  # a measured ring row
    measured_line = csv_text(allgather()[:1]).splitlines()[1]
    return {
        "synthetic-run-a/results.csv": csv_text(run_a),
        "synthetic-run-a/link_gbs": "478\n",
        "synthetic-run-b/results.csv": csv_text(run_b),
        "synthetic-run-b/link_gbs": "400\n",
        "empty.csv": "",
        "header-only.csv": ",".join(COLUMNS) + "\n",
        "missing-columns.csv": csv_text(allgather(), [c for c in COLUMNS
                                                      if c not in ("time_us_mean", "wrong")]),
        "only-skipped.csv": csv_text(skipped),
        "bad-number.csv": csv_text(allgather()).replace(",14.006,", ",fast,", 1),
        "ragged.csv": csv_text(allgather()).replace(measured_line + "\n", "nccl,1,2\n", 1),
        "synthetic-ringattn/results.csv": attn_csv,
        "ringattn-no-seq.csv": attn_csv.replace(first, first.replace(",4096,1,32,", ",,1,32,", 1), 1),
        "ringattn-bad-causal.csv": attn_csv.replace(first, first.replace(",8,128,0,", ",8,128,2,", 1), 1),
        "truncated-last-row.csv": csv_text(allgather()).rstrip("\n").rsplit(",", 20)[0],
        "binary.csv": "\x00\x01PNG not a csv\xff",
    }


def main(argv):
    outdir = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
    for rel, text in fixtures().items():
        path = os.path.join(outdir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        data = text.encode("latin-1") if rel == "binary.csv" else text.encode("utf-8")
        with open(path, "wb") as f:
            f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
