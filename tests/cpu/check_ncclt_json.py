#!/usr/bin/env python3
"""CPU test of collbench's -J file (launcher/report_ncclt_json.c) against real nccl-tests 2.19
-J output (tests/cpu/data/ncclt/: all_reduce-np2.json and, with -I 1, all_reduce-np2-iter.json,
copied unchanged from the H200 anchor runs): every key nccl-tests writes is there, at the same
place, with the same JSON type (nccl-tests writes booleans as the strings "true"/"false" and the
root as a string); what nccl-tests' tools/analyze_perf_json.py reads holds together (times_us is
the maximum over per_process_max_times_us row by row, which its "Consistency" line checks; avg,
min, max, p50, p99 and cv_pct are those of times_us as its computeIterStats makes them); the
average bus bandwidth is the mean of every timed side; only NCCL_* and CB_* variables are in env;
a rooted family's results carry each row's root (broadcast-np2.json: nccl-tests writes "     0"),
the others -1.

usage: check_ncclt_json.py TEST_NCCLT_JSON WORKDIR DATADIR
       check_ncclt_json.py --file JSON DATADIR   (a real run's -I 1 -J file: tests/gpu)
"""
import json
import math
import os
import subprocess
import sys

problems = []


def fail(msg):
    problems.append(msg)
    print("check_ncclt_json: FAIL:", msg)


def kind(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    return type(v).__name__


def same_shape(want, have, at):
    """Every key of want is in have with the same JSON type, recursively (lists: first items)."""
    if kind(want) != kind(have) and not (want is None or have is None):
        fail(f"{at}: {kind(have)}, nccl-tests writes {kind(want)}")
        return
    if isinstance(want, dict):
        for k, v in want.items():
            if k not in have:
                fail(f"{at}.{k}: missing (nccl-tests writes it)")
            else:
                same_shape(v, have[k], f"{at}.{k}")
    elif isinstance(want, list) and want and have:
        same_shape(want[0], have[0], f"{at}[0]")


def close(a, b, what, tol=1e-5):
    if not math.isclose(a, b, rel_tol=tol, abs_tol=tol):
        fail(f"{what}: {a} != {b}")


def check_per_iter(p, at, nrows=2):
    t = p["times_us"]
    rows = p.get("per_process_max_times_us", [])
    if nrows is not None and len(rows) != nrows:
        fail(f"{at}: {len(rows)} process rows, expected {nrows}")
    elif len(rows) < 2:
        pass  # one rank: nccl-tests writes no process rows
    elif [max(c) for c in zip(*rows)] != t:
        fail(f"{at}: times_us is not the maximum over the process rows (analyze_perf_json.py's consistency check)")
    s = sorted(t)
    n = len(s)
    avg = sum(t) / n
    sd = math.sqrt(sum((x - avg) ** 2 for x in t) / n)
    close(p["avg_us"], avg, at + ".avg_us")
    close(p["min_us"], s[0], at + ".min_us")
    close(p["max_us"], s[-1], at + ".max_us")
    close(p["p50_us"], s[n // 2], at + ".p50_us")
    close(p["p99_us"], s[min(n - 1, (n * 99 + 99) // 100 - 1)], at + ".p99_us")
    close(p["stdev_us"], sd, at + ".stdev_us")
    close(p["cv_pct"], sd / avg * 100, at + ".cv_pct")


def check_file(path, data):
    """A real run's -J file (-I 1, 2 or more ranks): nccl-tests' shape, the per-iteration summaries."""
    have = json.load(open(path))
    want = json.load(open(os.path.join(data, "all_reduce-np2-iter.json")))
    if len(have.get("config", {}).get("devices", [])) < 2:  # one process: nccl-tests writes no process rows
        for r in want["results"]:
            for side in ("out_of_place_per_iter", "in_place_per_iter"):
                r.get(side, {}).pop("per_process_max_times_us", None)
    same_shape(want, have, path)
    if not have.get("results"):
        fail(f"{path}: no results")
    for r in have.get("results", []):
        for side in ("out_of_place_per_iter", "in_place_per_iter"):
            if side in r:
                check_per_iter(r[side], f"{path} {r['size']} {r['experiment_name']} {side}", None)


def check_rooted(work, data):
    """rooted.json: broadcast at -r -1, roots 1 then 0 per size: one result per size and root,
    its root the rows' (six wide, as nccl-tests), both sides joined under it."""
    have = json.load(open(os.path.join(work, "rooted.json")))
    same_shape(json.load(open(os.path.join(data, "broadcast-np2.json"))), have, "rooted.json")
    got = [(r["size"], r["root"], r["in_place"] is not None) for r in have["results"]]
    want = [(8, "     1", True), (8, "     0", True), (64, "     1", True), (64, "     0", True)]
    if got != want:
        fail(f"rooted.json: (size, root, has in-place) {got}, expected {want}")


def main():
    if sys.argv[1] == "--file":
        check_file(sys.argv[2], sys.argv[3])
        print(f"check_ncclt_json: {len(problems)} problem(s)" if problems else "check_ncclt_json: OK")
        return 1 if problems else 0
    prog, work, data = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    p = subprocess.run([prog, work], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        fail(f"test_ncclt_json exited {p.returncode}: {p.stderr}")
        return 1
    for mine, anchor in (("iter.json", "all_reduce-np2-iter.json"), ("plain.json", "all_reduce-np2.json")):
        have = json.load(open(os.path.join(work, mine)))
        want = json.load(open(os.path.join(data, anchor)))
        same_shape(want, have, mine)
        if list(want) != list(have):
            fail(f"{mine}: top-level keys {list(have)}, nccl-tests' order is {list(want)}")
        res = have["results"]
        if len(res) != 6:
            fail(f"{mine}: {len(res)} results, expected 6 (3 sizes x 2 algorithms)")
        bws = [r[s]["bus_bw"] for r in res for s in ("out_of_place", "in_place") if r.get(s)]
        close(have["average_bus_bandwidth"]["bandwidth"], sum(bws) / len(bws), mine + " average_bus_bandwidth")
        if any(not (e.startswith("NCCL_") or e.startswith("CB_")) for e in have["env"]):
            fail(f"{mine}: env holds more than NCCL_* and CB_*: {have['env']}")
        names = [r["experiment_name"] for r in res]
        if names[:2] != ["nccl eager", "oneshot eager"]:
            fail(f"{mine}: experiment names {names}")
        if res[1]["in_place"] is not None:
            fail(f"{mine}: the skipped in-place side is {res[1]['in_place']!r}, expected null")
        if res[0]["root"] != "    -1" or res[0]["redop"] != "sum" or res[0]["size"] != 8:
            fail(f"{mine}: first result {res[0]}")
        if mine == "iter.json":
            if have["config"]["per_iter_timing"] != "true":
                fail("iter.json: config.per_iter_timing is not \"true\"")
            for r in res:
                for side in ("out_of_place_per_iter", "in_place_per_iter"):
                    if side in r:
                        check_per_iter(r[side], f"{mine} {r['size']} {r['experiment_name']} {side}")
            if have["average_bus_bandwidth"]["okay"] != "false":
                fail("iter.json: NCCL_TESTS_MIN_BW=1000 should fail the average: okay is "
                     f"{have['average_bus_bandwidth']['okay']!r}")
        elif have["average_bus_bandwidth"]["okay"] != "unchecked":
            fail("plain.json: no bar: okay should be \"unchecked\"")
    check_rooted(work, data)
    if problems:
        print(f"check_ncclt_json: {len(problems)} problem(s)")
        return 1
    print("check_ncclt_json: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
