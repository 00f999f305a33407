#!/usr/bin/env python3
"""Reads the MoE kernel time stamps of a -DCB_MOE_TRACE=ON build (collectives/moe_trace.h) and
prints, per file, where a call's time goes: for every kernel and stamp point, the earliest,
median and latest block, in microseconds after the call's first stamp (the earliest block start
of its first kernel), as the mean over the calls in the file (the first and last WARM calls
left out); for the dispatch push also the latest and earliest blocks with the SM each ran on
(the SM is a value the kernel stores, not a time). Also the call period (first stamp to the next
call's first stamp), which in a graph of back-to-back calls is the round trip the bench reports.

  tools/moe_trace.py FILE...   (moe-r<rank>-<algo>-<dtype>-<mode>-<tokens>-b<blocks>.txt)
"""
import os
import re
import statistics
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plots"))
import infile  # noqa: E402  (the one reader: plots/infile.py)

MAX_BYTES = 64 << 20  # collectives/moe_trace.c writes at most 64 x 4 x 256 lines of 10 numbers
WORD = re.compile(r"[0-9]{1,20}")  # ASCII digits only (int() also takes '٨')

KERNELS = {0: "dispatch_ll", 1: "combine", 2: "dispatch_push", 3: "expert_layout"}
POINTS = {
    0: ["start", "counted", "positions", "pushed", "flag raised", "waited", "end"],
    1: ["start", "push: 1st chunk stored", "push: 1st flag", "push: last flag", "reduce: 1st wait done",
        "reduce: warp 0 done", "end"],
    2: ["start", "", "", "pushed", "signalled", "", "end"],
    3: ["start", "", "", "", "", "waited", "end"],
}
WARM = 2
# points that hold a value, not a time: (kernel, point) -> name (kernels/moe.h CB_MOE_TP_*)
VALUES = {(2, 1): "sm"}
# per-block lines: the kernel and time point shown per block with its value (the SM it ran on)
PER_BLOCK = {2: 3}


class BadFile(Exception):
    pass


def read(path):
    calls = {}  # epoch -> kernel -> [stamps per block]
    try:
        text = infile.read_text(path, MAX_BYTES)
    except infile.InputError as err:
        raise BadFile(str(err).split(": ", 1)[-1]) from None
    for no, line in enumerate(text.splitlines(), 1):
        if line.startswith("#") or not line.strip():
            continue
        words = line.split()
        v = [int(x) for x in words] if all(WORD.fullmatch(x) for x in words) else []
        if len(v) != 10 or max(v) >= 1 << 64:
            raise BadFile(f"line {no}: expected 10 integers in [0, 2^64) (kernel block epoch t0..t6)")
        k, b, e, ts = v[0], v[1], v[2], v[3:]
        calls.setdefault(e, {}).setdefault(k, []).append((b, ts))
    return calls


def report(path):
    calls = read(path)
    epochs = sorted(calls)
    if len(epochs) <= 2 * WARM:
        print(f"{path}: {len(epochs)} calls, too few")
        return
    firsts = {}
    for e in epochs:
        starts = [ts[0] for k in calls[e] for _b, ts in calls[e][k] if ts[0]]
        if not starts:
            raise BadFile(f"call {e} has no start stamp")
        firsts[e] = min(starts)
    use = epochs[WARM:-WARM]
    acc = {}  # (k, p) -> list of (min, med, max)
    per_block = {}  # (k, block) -> ([times of point PER_BLOCK[k]], value)
    for e in use:
        for k, blocks in calls[e].items():
            for p in range(7):
                if (k, p) in VALUES:
                    continue
                xs = [(ts[p] - firsts[e]) / 1000.0 for _b, ts in blocks if ts[p]]
                if xs:
                    acc.setdefault((k, p), []).append((min(xs), statistics.median(xs), max(xs)))
            p = PER_BLOCK.get(k)
            vp = [q for (kk, q) in VALUES if kk == k]
            if p is not None and vp:
                for b, ts in blocks:
                    if ts[p] and ts[vp[0]]:
                        entry = per_block.setdefault((k, b), ([], ts[vp[0]] - 1))
                        entry[0].append((ts[p] - firsts[e]) / 1000.0)
    periods = [(firsts[b] - firsts[a]) / 1000.0 for a, b in zip(epochs, epochs[1:]) if b == a + 1]
    print(f"== {path}: {len(use)} calls (epochs {use[0]}..{use[-1]})")
    if periods:
        print(f"   call period (first stamp to the next call's): median {statistics.median(periods):.2f} us, "
              f"min {min(periods):.2f}")
    print(f"   {'kernel':14s} {'point':24s} {'first':>8s} {'median':>8s} {'last':>8s}  (us after the call's first stamp)")
    for (k, p) in sorted(acc, key=lambda kp: (statistics.mean(x[0] for x in acc[kp]), kp)):
        xs = acc[(k, p)]
        m = [statistics.mean(x[i] for x in xs) for i in range(3)]
        name = POINTS.get(k, [""] * 7)[p] or f"p{p}"
        print(f"   {KERNELS.get(k, k):14s} {name:24s} {m[0]:8.2f} {m[1]:8.2f} {m[2]:8.2f}")
    for k in sorted({k for k, _b in per_block}):
        rows = sorted(((statistics.median(t), b, v) for (kk, b), (t, v) in per_block.items() if kk == k), reverse=True)
        show = lambda rs: ", ".join(f"{b}/sm{v} {t:.2f}" for t, b, v in rs)
        print(f"   {KERNELS.get(k, k)} {POINTS[k][PER_BLOCK[k]]} per block (median over calls; block/SM us):")
        print(f"     latest:   {show(rows[:8])}")
        print(f"     earliest: {show(rows[-4:][::-1])}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    bad = 0
    for p in sys.argv[1:]:
        try:
            report(p)
        except BadFile as err:
            print(f"moe_trace.py: {p}: {err}", file=sys.stderr)
            bad += 1
    sys.exit(2 if bad else 0)
