#!/usr/bin/env python3
"""Assertions on a collbench results CSV, for the tests.

usage: check_csv.py FILE [--min-rows N] [--algos a,b] [--allow-skip REGEX] [--families f]
                         [--modes eager,graph] [--inplace 0,1] [--dtypes d1,d2] [--ops o1,o2] [--roots 0,3]
                         [--nodes N] [--skipped a,b] [--max-blocks algo=N,...] [--max-sms algo=N,...]
                         [--ranks N] [--loaded a,b] [--shared] [--pass fwd|bwd|both]
Fails (exit 1, one line per problem) when: a row is wrong (wrong > 0) or unchecked; a row is
skipped whose note does not match --allow-skip; an algorithm in --algos has no timed row; a
timed row lacks a positive time; a requested dtype/op/mode/inplace/root value never appears; a row's
nodes column differs from --nodes; an algorithm in --skipped has no row or a timed one; a timed
row of an algorithm in --max-blocks reports a grid ("N blocks" in its note) larger than its N, or
no grid at all; a timed row of an algorithm in --max-sms reports an sms column outside 1..N
(N = 0: the column must be 0, a copy-engine row); a timed row of algorithm nccl with a
non-empty sms column; an algorithm in --loaded (moe --overlap) without a timed
roundtrip_loaded row for each of its timed roundtrip rows (same dtype, tokens, mode), or a
roundtrip_loaded row whose slowdown_comm / slowdown_compute is not a number in (0, 100).
--ranks 1 (a run with one rank, e.g. on a one-GPU machine): rows skipped because they need 2 or
more ranks (ONE_RANK_NOTE) are allowed, except for an algorithm in --skipped (whose reason must
match --allow-skip as always), and an algorithm whose rows are all such skips is not required by
--algos; a run in which nothing was timed because of that exits 77 (CTest "skipped").
--pass P (ringattn): every row's pass column must be P.
--shared (ranks share a GPU, CB_SHARE_GPUS=1): the same for rows skipped because ranks share a
GPU (SHARED_NOTE), and a roundtrip row whose roundtrip_loaded row was skipped for that reason
needs no timed one. When every row is so excused, each value asked for by --dtypes/--ops/--modes/
--inplace needs an (excused) row instead of a timed one.
"""
import argparse
import csv
import re
import sys

REQUIRED = ["family", "algo", "dtype", "op", "bytes", "count", "inplace", "ranks", "nodes", "gpu",
            "time_us_mean", "time_us_max", "time_us_p50", "time_us_p99", "algbw_gbs", "busbw_gbs",
            "wrong", "note"]
# the notes of rows that cannot run with one rank (collectives/moe_copy_ce.c: a peer copy;
# collectives/nccl_common.c: NCCL 2.28's avg of fp8 on a one-rank communicator)
ONE_RANK_NOTE = r"needs 2 or more ranks|refuses avg of fp8e[45]m[32] on one rank"
# the notes of rows that cannot run while ranks share a GPU (collectives/allreduce_twoshot_ce.c,
# launcher/bench_overlap.c)
SHARED_NOTE = r"ranks share a GPU"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--min-rows", type=int, default=1)
    ap.add_argument("--algos", default="")
    ap.add_argument("--allow-skip", default="")
    ap.add_argument("--dtypes", default="")
    ap.add_argument("--ops", default="")
    ap.add_argument("--modes", default="")
    ap.add_argument("--inplace", default="")
    ap.add_argument("--roots", default="")
    ap.add_argument("--allow-unchecked", action="store_true")
    ap.add_argument("--nodes", type=int, default=0)
    ap.add_argument("--skipped", default="")
    ap.add_argument("--max-blocks", default="")
    ap.add_argument("--max-sms", default="")
    ap.add_argument("--ranks", type=int, default=0)
    ap.add_argument("--loaded", default="")
    ap.add_argument("--shared", action="store_true")
    ap.add_argument("--pass", dest="ra_pass", default="")
    a = ap.parse_args()
    max_blocks, max_sms = {}, {}
    for item in filter(None, a.max_blocks.split(",")):
        algo, _, n = item.partition("=")
        max_blocks[algo] = int(n)
    for item in filter(None, a.max_sms.split(",")):
        algo, _, n = item.partition("=")
        max_sms[algo] = int(n)
    problems = []
    with open(a.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    if rows:
        missing = [c for c in REQUIRED if c not in rows[0]]
        if missing:
            problems.append("missing columns: " + ",".join(missing))
    if len(rows) < a.min_rows:
        problems.append(f"{len(rows)} rows, expected at least {a.min_rows}")
    timed_algos, all_algos, one_rank_algos = set(), set(), set()
    loaded_algos = set(filter(None, a.loaded.split(",")))
    roundtrips, loaded = set(), set()  # (algo, dtype, bytes, mode) of timed roundtrip / roundtrip_loaded rows
    loaded_excused = set()  # ... of roundtrip_loaded rows skipped because ranks share a GPU (--shared)
    seen = {"dtype": set(), "op": set(), "mode": set(), "inplace": set(), "root": set()}
    seen_excused = {k: set() for k in seen}  # ... of the rows excused (one rank, shared GPU)
    for i, r in enumerate(rows, start=2):
        where = f"line {i} ({r['family']} {r['algo']} {r['dtype']} {r['op']} {r['bytes']} B ip={r['inplace']} {r.get('mode','')})"
        all_algos.add(r["algo"])
        if a.ra_pass and r.get("pass", "") != a.ra_pass:
            problems.append(f"{where}: pass '{r.get('pass', '')}', expected {a.ra_pass}")
        if a.nodes and r["nodes"] != str(a.nodes):
            problems.append(f"{where}: nodes {r['nodes']}, expected {a.nodes}")
        if r["time_us_mean"] == "":
            excused = (a.ranks == 1 and re.search(ONE_RANK_NOTE, r["note"])) or (a.shared and re.search(SHARED_NOTE, r["note"]))
            if excused and r["algo"] not in a.skipped.split(","):
                one_rank_algos.add(r["algo"])
                for k in seen_excused:
                    if k in r:
                        seen_excused[k].add(r[k])
                if r.get("phase") == "roundtrip_loaded":
                    loaded_excused.add((r["algo"], r["dtype"], r["bytes"], r.get("mode", "")))
                continue
            if not a.allow_skip or not re.search(a.allow_skip, r["note"]):
                problems.append(f"{where}: skipped: {r['note']}")
            continue
        timed_algos.add(r["algo"])
        for k in seen:
            if k in r:
                seen[k].add(r[k])
        if float(r["time_us_mean"]) <= 0:
            problems.append(f"{where}: non-positive time {r['time_us_mean']}")
        if r["wrong"] == "":
            if not a.allow_unchecked:
                problems.append(f"{where}: not checked")
        elif int(r["wrong"]) != 0:
            problems.append(f"{where}: {r['wrong']} wrong elements; note: {r['note']}")
        if r["algo"] in max_blocks:
            m = re.search(r"(\d+) blocks", r["note"])
            if not m:
                problems.append(f"{where}: note names no grid: {r['note']}")
            elif int(m.group(1)) > max_blocks[r["algo"]]:
                problems.append(f"{where}: {m.group(1)} blocks, more than {max_blocks[r['algo']]}: {r['note']}")
        if r["algo"] in max_sms:
            got, want = r.get("sms", ""), max_sms[r["algo"]]
            if not got.isdigit():
                problems.append(f"{where}: sms column {got!r}, expected a number")
            elif (want == 0 and int(got) != 0) or (want > 0 and not 1 <= int(got) <= want):
                problems.append(f"{where}: sms {got}, expected {'0' if want == 0 else f'1..{want}'}")
        key = (r["algo"], r["dtype"], r["bytes"], r.get("mode", ""))
        if r.get("phase") == "roundtrip":
            roundtrips.add(key)
        if r.get("phase") == "roundtrip_loaded":
            loaded.add(key)
            for col in ("slowdown_comm", "slowdown_compute"):
                try:
                    v = float(r.get(col, ""))
                except ValueError:
                    v = float("nan")
                if not 0.0 < v < 100.0:
                    problems.append(f"{where}: {col} {r.get(col, '')!r}, expected a number in (0, 100)")
        if r["algo"] == "nccl" and r.get("sms", ""):
            problems.append(f"{where}: an NCCL row reports sms {r['sms']} (no public API for it: must be empty)")
    for algo in filter(None, a.algos.split(",")):
        if algo not in timed_algos and algo not in one_rank_algos:
            problems.append(f"algorithm {algo} has no timed row")
    for key in sorted(roundtrips):
        if key[0] in loaded_algos and key not in loaded and key not in loaded_excused:
            problems.append(f"{key[0]} {key[1]} {key[2]} B {key[3]}: a roundtrip row without a timed roundtrip_loaded row")
    for algo in loaded_algos:
        if algo in timed_algos and not any(k[0] == algo for k in loaded | loaded_excused):
            problems.append(f"algorithm {algo} has no timed roundtrip_loaded row")
    for algo in filter(None, a.skipped.split(",")):
        if algo not in all_algos or algo in timed_algos:
            problems.append(f"algorithm {algo}: expected skipped rows only ({'timed' if algo in timed_algos else 'no rows'})")
    # nothing timed because every row could not run with one rank / on a shared GPU: the values
    # asked for must still each have a row, an excused one (the run is then skipped below)
    all_excused = not timed_algos and one_rank_algos
    for key, want in (("dtype", a.dtypes), ("op", a.ops), ("mode", a.modes), ("inplace", a.inplace),
                      ("root", a.roots)):
        for v in filter(None, want.split(",")):
            if all_excused and v not in seen_excused[key]:
                problems.append(f"no row with {key}={v}")
            elif not all_excused and v not in seen[key]:
                problems.append(f"no timed row with {key}={v}")
    if all_excused and not problems:
        print(f"check_csv: {a.csv}: nothing could run with one rank or on a shared GPU ({', '.join(sorted(one_rank_algos))}): skipped")
        return 77
    for p in problems[:50]:
        print("check_csv:", p)
    if problems:
        print(f"check_csv: {len(problems)} problem(s) in {a.csv}")
        return 1
    print(f"check_csv: {a.csv}: {len(rows)} rows OK ({len(timed_algos)} algorithms timed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
