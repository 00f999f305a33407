#!/usr/bin/env python3
"""GPU test helper for `collbench ringattn --save DIR` (issue 12): loads every saved configuration
(q, k, v, out, lse as .npy, meta.json) and recomputes attention with numpy in float64 from the
saved inputs: out and lse must match within the bf16/fp16 rounding of out, shapes must follow
meta.json, and the rows must be in sequence order (the causal mask is applied by position).
A configuration saved with --pass bwd or both also holds dout, dq, dk, dv: the backward is
recomputed in float64 from the saved q, k, v, dout (P from the numpy softmax, delta =
rowsum(dout * out), dK and dV summed over the heads sharing a K/V head) and every gradient must
match within a fraction of its largest magnitude (bf16 3e-2, fp16 5e-3: the kernel rounds P and
dS to the 16-bit dtype before its matrix products).
Exit 77 when numpy is missing (the test is then reported as skipped), 1 on any mismatch.

usage: check_save.py DIR"""
import glob
import json
import os
import sys

try:
    import numpy as np
except ImportError:
    print("numpy not installed: skipping")
    sys.exit(77)


def check(d):
    meta = json.load(open(os.path.join(d, "meta.json")))
    B, S, H, KV, D = meta["batch"], meta["seq"], meta["heads"], meta["kv_heads"], meta["head_dim"]
    t = {n: np.load(os.path.join(d, n + ".npy")).astype(np.float64) for n in ("q", "k", "v", "out", "lse")}
    problems = []
    want = {"q": (B, S, H, D), "k": (B, S, KV, D), "v": (B, S, KV, D), "out": (B, S, H, D), "lse": (B, H, S)}
    for n, shape in want.items():
        if t[n].shape != shape:
            problems.append(f"{n} has shape {t[n].shape}, meta.json says {shape}")
    if problems:
        return problems
    bwd = meta.get("pass", "fwd") in ("bwd", "both")
    if bwd:
        for n in ("dout", "dq", "dk", "dv"):
            t[n] = np.load(os.path.join(d, n + ".npy")).astype(np.float64)
        want2 = {"dout": (B, S, H, D), "dq": (B, S, H, D), "dk": (B, S, KV, D), "dv": (B, S, KV, D)}
        problems += [f"{n} has shape {t[n].shape}, meta.json says {shape}" for n, shape in want2.items()
                     if t[n].shape != shape]
        if problems:
            return problems
        ref = {n: np.zeros_like(t[n]) for n in ("dq", "dk", "dv")}
    g = H // KV
    worst_o = worst_l = 0.0
    for b in range(B):
        for h in range(H):
            q, k, v = t["q"][b, :, h, :], t["k"][b, :, h // g, :], t["v"][b, :, h // g, :]
            s = q @ k.T * meta["scale"]
            if meta["causal"]:
                s = np.where(np.tril(np.ones((S, S), dtype=bool)), s, -np.inf)
            m = s.max(axis=1, keepdims=True)
            p = np.exp(s - m)
            l = p.sum(axis=1, keepdims=True)
            o = (p / l) @ v
            lse = (m + np.log(l))[:, 0]
            worst_o = max(worst_o, float(np.abs(o - t["out"][b, :, h, :]).max()))
            worst_l = max(worst_l, float(np.abs(lse - t["lse"][b, h, :]).max()))
            if bwd:
                do, p_ = t["dout"][b, :, h, :], p / l
                ds = p_ * (do @ v.T - (do * o).sum(axis=1, keepdims=True))
                ref["dq"][b, :, h, :] = meta["scale"] * ds @ k
                ref["dk"][b, :, h // g, :] += meta["scale"] * ds.T @ q
                ref["dv"][b, :, h // g, :] += p_.T @ do
    # out is stored in bf16/fp16 (2^-8 relative for bf16 on |out| <= 1 plus the fp32 path); lse is fp32
    tol_o = 1.6e-2 if meta["dtype"] == "bfloat16" else 2e-3
    if worst_o > tol_o:
        problems.append(f"out differs from numpy by {worst_o:.3g} (tolerance {tol_o})")
    if worst_l > 1e-3:
        problems.append(f"lse differs from numpy by {worst_l:.3g} (tolerance 1e-3)")
    if bwd:
        rel = 3e-2 if meta["dtype"] == "bfloat16" else 5e-3
        for n in ("dq", "dk", "dv"):
            scale = max(float(np.abs(ref[n]).max()), 1e-6)
            err = float(np.abs(ref[n] - t[n]).max())
            if not err <= rel * scale:
                problems.append(f"{n} differs from numpy by {err:.3g} (tolerance {rel} x {scale:.3g})")
            print(f"check_save: {d}: {n} max error {err:.3g} (largest |{n}| {scale:.3g})")
    print(f"check_save: {d}: out max error {worst_o:.3g}, lse max error {worst_l:.3g}")
    return problems


def main():
    dirs = sorted(glob.glob(os.path.join(sys.argv[1], "*", "meta.json")))
    if not dirs:
        print(f"check_save: no saved configuration under {sys.argv[1]}")
        return 1
    bad = 0
    for m in dirs:
        for p in check(os.path.dirname(m)):
            print("check_save: FAIL", os.path.dirname(m), p)
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
