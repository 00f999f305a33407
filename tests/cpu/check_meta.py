#!/usr/bin/env python3
"""Runs test_meta and parses its metadata JSON with an independent parser (Python's json):
(the first line of its stdout; test_meta's verdict follows) the world's facts, the algorithms
in order with descriptions, CB_* and NCCL_* recorded, unrelated variables left out, and the
version CMake's project() gives. usage: check_meta.py TEST_META VERSION"""
import json
import subprocess
import sys


def main():
    p = subprocess.run([sys.argv[1]], capture_output=True, text=True, timeout=120)
    problems = []
    if p.returncode != 0:
        problems.append(f"test_meta exited {p.returncode}: {p.stderr[-800:]}")
    try:
        meta = json.loads(p.stdout.splitlines()[0] if p.stdout else "")
    except json.JSONDecodeError as e:
        print(f"check_meta: FAIL: not JSON ({e}): {p.stdout[:400]!r}")
        return 1
    want = {"tool": "collbench", "version": sys.argv[2], "family": "allreduce", "ranks": 1, "nodes": 1, "nccl_version": "2.28.3"}
    for k, v in want.items():
        if meta.get(k) != v:
            problems.append(f"{k} = {meta.get(k)!r}, expected {v!r}")
    info = meta.get("rank_info", [{}])[0]
    if info.get("gpu") != "Test GPU" or info.get("sm_count") != 132 or info.get("pci_busid") != "0000:19:00.0":
        problems.append(f"rank_info: {info}")
    algos = meta.get("algorithms", [])
    if [x.get("name") for x in algos] != ["plain", "described"]:
        problems.append(f"algorithms: {algos}")
    elif algos[1].get("description") != "grid for 8 SMs" or algos[1].get("summary") != 'with "quotes"':
        problems.append(f"algorithm 2: {algos[1]}")
    env = meta.get("env", {})
    if env.get("CB_SMS") != "8" or env.get("NCCL_PROTO") != "Simple":
        problems.append(f"env lacks CB_SMS or NCCL_PROTO: {env}")
    if "UNRELATED_TEST_VAR" in env:
        problems.append("env records an unrelated variable")
    if meta.get("options", {}).get("iters") != 7 or meta.get("options", {}).get("modes") != "graph":
        problems.append(f"options: {meta.get('options')}")
    for pr in problems:
        print("check_meta: FAIL:", pr)
    if problems:
        return 1
    print("check_meta: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
