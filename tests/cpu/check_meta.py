#!/usr/bin/env python3
"""Runs test_meta and parses its metadata JSON with an independent parser (Python's json):
(the first line of its stdout; test_meta's verdict follows) the world's facts, the algorithms
in order with descriptions, CB_* and NCCL_* recorded, unrelated variables left out, the
version CMake's project() gives, and the hardware limits: without libnvidia-ml.so.1 every GPU
figure null and limits_note naming the library; on two nodes the NICs this script reads from
/sys itself. usage: check_meta.py TEST_META VERSION"""
import ctypes
import glob
import json
import os
import subprocess
import sys

BUSID = "0000:19:00.0"  # test_meta's hand-built world


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.readline().strip()
    except OSError:
        return None


def sys_nics():
    """[(name, GB/s or None)] as launcher/hw_limits.c reads /sys: InfiniBand ports, else up Ethernet but lo."""
    ib = []
    for port in sorted(glob.glob("/sys/class/infiniband/*/ports/*")):
        parts = port.split("/")
        words = (read(port + "/rate") or "").split()
        ok = len(words) >= 2 and words[1] == "Gb/sec" and words[0].replace(".", "", 1).isdigit() and float(words[0]) > 0
        ib.append((f"{parts[4]}:{parts[6]}", float(words[0]) / 8 if ok else None))
    if ib:
        return ib
    eth = []
    names = sorted(os.listdir("/sys/class/net")) if os.path.isdir("/sys/class/net") else []
    for name in names:
        if name == "lo" or read(f"/sys/class/net/{name}/operstate") != "up":
            continue
        speed = read(f"/sys/class/net/{name}/speed") or ""
        eth.append((name, int(speed) / 8000 if speed.isdigit() and int(speed) > 0 else None))
    return eth


def check_limits(one, two):
    """Problems with the one-node meta's and the two-node meta's limits."""
    problems = []
    lim, note = one.get("limits"), one.get("limits_note")
    if not isinstance(lim, dict) or not isinstance(note, str):
        return [f"limits {lim!r}, limits_note {note!r}"]
    if lim.get("nics") != []:
        problems.append(f"one node records NICs: {lim.get('nics')}")
    try:
        ctypes.CDLL("libnvidia-ml.so.1")
        nvml = True
    except OSError:
        nvml = False
    gpu_keys = ("nvlink_gbs", "nvlink_links", "nvlink_gpu", "pcie")
    if not nvml:
        if any(lim.get(k, 0) is not None for k in gpu_keys):
            problems.append(f"no NVML, yet GPU figures: {lim}")
        if note != f"rank 0 (GPU {BUSID}): NVML not available: libnvidia-ml.so.1 not found":
            problems.append(f"limits_note {note!r}")
    else:  # a machine with the driver: figures of GPU BUSID where it exists, else nulls and why
        if any(k not in lim for k in gpu_keys) or ((lim["nvlink_gbs"] is None or lim["pcie"] is None) and not note):
            problems.append(f"limits {lim}, note {note!r}")
        if lim.get("nvlink_gpu") is not None and lim["nvlink_gpu"].get("pci_busid") != BUSID:
            problems.append(f"nvlink_gpu {lim['nvlink_gpu']}")
    got = [(n.get("name"), n.get("gbs")) for n in (two.get("limits") or {}).get("nics", [])]
    want = sys_nics()
    same = len(got) == len(want) and all(
        g[0] == w[0] and (g[1] is None) == (w[1] is None) and (g[1] is None or abs(g[1] - w[1]) < 1e-3)
        for g, w in zip(got, want))
    if not same:
        problems.append(f"two nodes: NICs {got}, /sys says {want}")
    if not want and "no NIC found" not in (two.get("limits_note") or ""):
        problems.append(f"two nodes, no NIC: limits_note {two.get('limits_note')!r}")
    return problems


def main():
    p = subprocess.run([sys.argv[1]], capture_output=True, text=True, timeout=120)
    problems = []
    if p.returncode != 0:
        problems.append(f"test_meta exited {p.returncode}: {p.stderr[-800:]}")
    try:
        lines = p.stdout.splitlines()
        meta, two_nodes = json.loads(lines[0] if lines else ""), json.loads(lines[1] if len(lines) > 1 else "")
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
    problems += check_limits(meta, two_nodes)
    for pr in problems:
        print("check_meta: FAIL:", pr)
    if problems:
        return 1
    print("check_meta: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
