#!/usr/bin/env python3
"""Runs tests/cpu/test_report.c in one mode and parses what it wrote with python's csv and json
modules (the independent parsers), comparing against the rows test_report.c writes (repeated
here as the expectation).

usage: check_report.py TEST_REPORT_BINARY WORKDIR full|symlinks|crash|empty|csvonly|fsize

  full     every row in r.csv and r.json; r.json complete, strict JSON (no NaN), metadata and
           the extra summary merged; no r.json.partial.jsonl or temporary file left; table.txt
           has a line per row
  symlinks full, with a symlink planted at r.csv, r.json, r.json.partial.jsonl and r.json.tmp
           first: no target is written through (issue 32 N3)
  crash    the program writes 3 rows and _exit()s: r.csv and r.json.partial.jsonl hold every
           finished row (each .jsonl line valid JSON, the metadata first); no r.json
  empty    open + close with no rows: a valid r.json with "rows": []
  csvonly  no JSON path: r.csv only, no .partial.jsonl anywhere
  fsize    under a 1 KiB file-size limit (a full disk): closing the CSV reports the failed writes
"""
import csv
import json
import math
import os
import re
import resource
import signal
import shutil
import subprocess
import sys

HEADER = ("family,algo,dtype,op,bytes,count,inplace,ranks,nodes,gpu,time_us_mean,time_us_max,"
          "time_us_p50,time_us_p99,algbw_gbs,busbw_gbs,wrong,note,mode,iters,mem_bytes,model,tokens,"
          "hidden,topk,experts,routing,phase,remote_gbs,imbalance,net_bytes,nvlink_bytes,seq,batch,heads,"
          "kv_heads,head_dim,"
          "causal,tflops,comm_us,compute_us,overlap_eff,ring_over_single,err_max,err_mean,sms,"
          "slowdown_comm,slowdown_compute,pass,layout,ulysses,ring,counts").split(",")

NOTE1 = "a, \"quoted\" note\nline two\ttab \\ backslash \x01 ctl, café → ok"


def classic(family, algo, nbytes, inplace):
    return {"family": family, "algo": algo, "dtype": "float", "op": "sum", "bytes": nbytes,
            "count": nbytes // 4, "inplace": inplace, "ranks": 2, "nodes": 1, "gpu": "NVIDIA H200",
            "time_us_mean": 12.5, "time_us_max": 13.25, "time_us_p50": 12.0, "time_us_p99": 20.125,
            "algbw_gbs": nbytes / 12.5e3, "busbw_gbs": nbytes / 12.5e3, "wrong": 0, "note": "",
            "mode": "eager", "iters": 20, "mem_bytes": (3 * nbytes) % 2**64}  # uint64 arithmetic in C


def expected_rows():
    r = [classic("allreduce", "nccl", 1048576, 0)]
    x = classic("allreduce", "oneshot", 1024, 1)
    x.update(note=NOTE1, mode="graph", wrong=3, sms=32)
    r.append(x)
    x = classic("alltoall", "nccl_p2p", 4, 0)
    x.update(op="none", count=0, wrong=None, note="not supported: 1 elements do not divide among 2 ranks")
    for k in ("time_us_mean", "time_us_max", "time_us_p50", "time_us_p99", "algbw_gbs", "busbw_gbs"):
        x[k] = None
    r.append(x)
    x = classic("allgather", "nccl", 8 << 30, 1)
    x.update(time_us_mean=None, time_us_max=None, time_us_p50=None, algbw_gbs=None, busbw_gbs=None)
    r.append(x)
    x = classic("sendrecv", "nccl", 18446744073709551608, 0)
    x.update(wrong=None, dtype="fp8e4m3")
    r.append(x)
    moe = classic("moe", "nccl", 58720256, 0)
    moe.update(op="none", dtype="bfloat16", model="deepseek-v3", routing="hot:4:2.5", phase="dispatch",
               tokens=4096, hidden=7168, topk=8, experts=256, remote_gbs=321.5, imbalance=1.25,
               net_bytes=1530000, nvlink_bytes=None)
    r.append(moe)
    y = dict(moe)
    y.update(algo="peer", phase="roundtrip", wrong=None, model="custom, \"mine\"", imbalance=None,
             note="not supported: spans 2 nodes")
    for k in ("time_us_mean", "time_us_max", "time_us_p50", "time_us_p99", "algbw_gbs", "busbw_gbs",
              "remote_gbs", "net_bytes"):
        y[k] = None
    r.append(y)
    x = classic("reducescatter", "a,b", 64, 0)
    x.update(gpu="GPU \"X\", rev 2", op="avg", dtype="half", sms=0)
    r.append(x)
    x = classic("ringattn", "ring", 268435456, 0)
    x.update(op="none", dtype="bfloat16", seq=16384, batch=1, heads=32, kv_heads=8, head_dim=128, causal=1,
             tflops=301.25, comm_us=812.5, compute_us=3650.75, overlap_eff=0.96875, ring_over_single=None,
             err_max=0.0078125, err_mean=0.000244140625, sms=132, layout="zigzag", ulysses=2, ring=4, **{"pass": "both"})
    r.append(x)
    z = dict(moe)
    z.update(algo="peer", phase="roundtrip_loaded", sms=32, slowdown_comm=1.375, slowdown_compute=1.0625)
    r.append(z)
    return r


MOE_KEYS = ("model", "tokens", "hidden", "topk", "experts", "routing", "phase", "remote_gbs", "imbalance",
            "net_bytes", "nvlink_bytes",
            # ringattn's columns: empty / absent on other rows, like moe's
            "seq", "batch", "heads", "kv_heads", "head_dim", "causal", "tflops", "comm_us", "compute_us",
            "overlap_eff", "ring_over_single", "err_max", "err_mean", "pass", "layout", "ulysses", "ring",
            # alltoallv's
            "counts")
INT_KEYS = ("bytes", "count", "inplace", "ranks", "nodes", "wrong", "iters", "mem_bytes", "tokens", "hidden",
            "topk", "experts", "seq", "batch", "heads", "kv_heads", "head_dim", "causal", "sms")
FLOAT_KEYS = ("time_us_mean", "time_us_max", "time_us_p50", "time_us_p99", "algbw_gbs", "busbw_gbs",
              "remote_gbs", "imbalance", "net_bytes", "nvlink_bytes", "tflops", "comm_us", "compute_us", "overlap_eff", "ring_over_single",
              "err_max", "err_mean", "slowdown_comm", "slowdown_compute", "ulysses", "ring")

problems = []


def fail(msg):
    problems.append(msg)
    print("check_report: FAIL:", msg)


def same_number(got, want, where):
    if want is None:
        if got is not None:
            fail(f"{where}: {got!r}, expected empty/null")
        return
    if got is None:
        fail(f"{where}: empty/null, expected {want!r}")
        return
    if isinstance(want, int) and not isinstance(want, bool) and not isinstance(got, float):
        if got != want:
            fail(f"{where}: {got!r}, expected {want!r}")
        return
    # floats are printed with at least 3 decimals (CSV) or 6 significant digits (JSON)
    if not math.isclose(float(got), float(want), rel_tol=1e-5, abs_tol=1e-3):
        fail(f"{where}: {got!r}, expected {want!r}")


def check_csv(path, want_rows):
    if not os.path.exists(path):
        fail(f"{path} missing")
        return
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f, strict=True)
        lines = list(reader)
    if not lines or lines[0] != HEADER:
        fail(f"{path}: header {lines[0] if lines else None}")
        return
    body = lines[1:]
    if len(body) != len(want_rows):
        fail(f"{path}: {len(body)} rows, expected {len(want_rows)}")
    for i, (cells, want) in enumerate(zip(body, want_rows)):
        if len(cells) != len(HEADER):
            fail(f"{path} row {i}: {len(cells)} fields, expected {len(HEADER)}: {cells}")
            continue
        got = dict(zip(HEADER, cells))
        for k in HEADER:
            where = f"{path} row {i} {k}"
            w = want.get(k)
            if k in MOE_KEYS and k not in want:
                if got[k] != "":
                    fail(f"{where}: {got[k]!r} on a non-moe row")
                continue
            if k in INT_KEYS:
                same_number(int(got[k]) if got[k] != "" else None, w, where)
            elif k in FLOAT_KEYS:
                same_number(float(got[k]) if got[k] != "" else None, w, where)
            elif got[k] != w:
                fail(f"{where}: {got[k]!r}, expected {w!r}")


def reject_constant(name):
    raise ValueError(f"non-standard JSON constant {name}")


def strict_loads(text):
    return json.loads(text, parse_constant=reject_constant)


def check_json_row(got, want, where):
    if not isinstance(got, dict):
        fail(f"{where}: not an object: {got!r}")
        return
    for k in HEADER:
        if k in MOE_KEYS and k not in want:
            if k in got:
                fail(f"{where}: moe key {k} on a non-moe row")
            continue
        if k not in got:
            fail(f"{where}: key {k} missing")
            continue
        if k in INT_KEYS or k in FLOAT_KEYS:
            same_number(got[k], want.get(k), f"{where} {k}")
        elif got[k] != want.get(k):
            fail(f"{where} {k}: {got[k]!r}, expected {want.get(k)!r}")


def check_meta(meta, where):
    if meta != {"hosts": ["node-a", "node-b"], "command": "collbench allreduce -b 8",
                "nccl_env": {"NCCL_ALGO": "Ring"}, "git": "abc123"}:
        fail(f"{where}: metadata {meta!r}")


def run(binary, mode, work, *extra):
    p = subprocess.run([binary, mode, work, *extra], capture_output=True, text=True, timeout=60)
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    return p.returncode


def main():
    binary, work, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    csv_path, json_path = os.path.join(work, "r.csv"), os.path.join(work, "r.json")
    partial = json_path + ".partial.jsonl"
    rows = expected_rows()

    planted = {}
    if mode == "fsize":
        def limited():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # kept across exec: writes fail with EFBIG
            resource.setrlimit(resource.RLIMIT_FSIZE, (1024, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
        p = subprocess.run([binary, "fsize", work], preexec_fn=limited)
        if p.returncode != 0:
            fail(f"test_report fsize exited {p.returncode}")
    if mode == "symlinks":
        # a symlink planted at every name the writer uses (the outputs, the rows' file, the former
        # fixed temporary name): its target must stay as it was, the outputs become real files
        for name in ("r.csv", "r.json", "r.json.partial.jsonl", "r.json.tmp"):
            target = os.path.join(work, "target-of-" + name)
            with open(target, "w") as f:
                f.write("planted\n")
            os.symlink(target, os.path.join(work, name))
            planted[target] = name
        mode = "full"
    if mode == "full":
        rc = run(binary, "full", work)
        for target, name in planted.items():
            with open(target) as f:
                if f.read() != "planted\n":
                    fail(f"{name}: the planted symlink was written through ({target} changed)")
            if name in ("r.csv", "r.json") and os.path.islink(os.path.join(work, name)):
                fail(f"{name} is still the planted symlink after the run")
        left = [n for n in os.listdir(work) if re.match(r"r\.(csv|json)(\.partial\.jsonl)?\.[A-Za-z0-9]{6}$", n)]
        if left:
            fail(f"temporary files left behind: {left}")
        if rc != 0:
            fail(f"test_report full exited {rc}")
        check_csv(csv_path, rows)
        try:
            with open(json_path, encoding="utf-8") as f:
                doc = strict_loads(f.read())
        except (OSError, ValueError) as e:
            fail(f"{json_path}: not valid JSON: {e}")
            doc = None
        if doc is not None:
            if doc.get("complete") is not True:
                fail(f"{json_path}: complete = {doc.get('complete')!r}")
            if doc.get("schema") != "collbench-results/1":
                fail(f"{json_path}: schema = {doc.get('schema')!r}")
            check_meta(doc.get("meta"), json_path)
            if doc.get("summary") != {"rows": 8, "exit_code": 1}:
                fail(f"{json_path}: summary (extra_json) = {doc.get('summary')!r}")
            got_rows = doc.get("rows")
            if not isinstance(got_rows, list) or len(got_rows) != len(rows):
                fail(f"{json_path}: rows = {type(got_rows).__name__} of {len(got_rows or [])}, expected {len(rows)}")
            else:
                for i, (g, w) in enumerate(zip(got_rows, rows)):
                    check_json_row(g, w, f"{json_path} row {i}")
        if os.path.lexists(partial):
            fail(f"{partial} left behind after close")
        table_path = os.path.join(work, "table.txt")
        with open(table_path, encoding="utf-8") as f:
            table = f.read()
        for w in rows:
            if w["algo"] not in table:
                fail(f"table.txt lacks a row for algo {w['algo']!r}")
        if "#wrong" not in table or "busbw" not in table:
            fail("table.txt lacks the classic header")
        if "phase" not in table:
            fail("table.txt lacks the moe header before the moe rows")
        if "TFLOP/s" not in table or "r/single" not in table:
            fail("table.txt lacks the ringattn header before the ringattn row")
    elif mode == "crash":
        k = 3
        rc = run(binary, "crash", work, str(k))
        if rc != 9:
            fail(f"test_report crash exited {rc}, expected 9 (_exit)")
        check_csv(csv_path, rows[:k])
        if os.path.exists(json_path):
            fail(f"{json_path} exists after a crash (must only appear on close)")
        if not os.path.exists(partial):
            fail(f"{partial} missing after a crash")
        else:
            with open(partial, encoding="utf-8") as f:
                lines = f.read().split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            else:
                fail(f"{partial}: last line not terminated")
            objs = []
            for i, line in enumerate(lines):
                try:
                    objs.append(strict_loads(line))
                except ValueError as e:
                    fail(f"{partial} line {i + 1} is not valid JSON ({e}): {line!r}")
            if len(objs) != k + 1:
                fail(f"{partial}: {len(objs)} lines, expected metadata + {k} rows")
            if objs:
                if not isinstance(objs[0], dict) or "meta" not in objs[0]:
                    fail(f"{partial}: first line is not the metadata: {objs[0]!r}")
                else:
                    check_meta(objs[0]["meta"], partial)
                for i, (g, w) in enumerate(zip(objs[1:], rows)):
                    check_json_row(g, w, f"{partial} row {i}")
    elif mode == "empty":
        rc = run(binary, "empty", work)
        if rc != 0:
            fail(f"test_report empty exited {rc}")
        check_csv(csv_path, [])
        try:
            with open(json_path, encoding="utf-8") as f:
                doc = strict_loads(f.read())
            if doc.get("rows") != [] or doc.get("complete") is not True:
                fail(f"{json_path}: rows {doc.get('rows')!r} complete {doc.get('complete')!r}")
            check_meta(doc.get("meta"), json_path)
        except (OSError, ValueError) as e:
            fail(f"{json_path}: not valid JSON: {e}")
        if os.path.exists(partial):
            fail(f"{partial} left behind after close")
    elif mode == "csvonly":
        rc = run(binary, "csvonly", work)
        if rc != 0:
            fail(f"test_report csvonly exited {rc}")
        check_csv(csv_path, rows[:2])
        others = sorted(set(os.listdir(work)) - {"r.csv"})
        if others:
            fail(f"csv-only run wrote {others}")
    elif mode != "fsize":
        fail(f"unknown mode {mode}")

    if problems:
        print(f"check_report: {len(problems)} problem(s) in mode {mode}")
        return 1
    print(f"check_report: {mode}: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
