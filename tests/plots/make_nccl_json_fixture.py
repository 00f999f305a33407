#!/usr/bin/env python3
"""Writes data/nccl-tests/all_reduce_perf-g2.json: the file `all_reduce_perf -J FILE` would have
written in the run whose text output is data/nccl-tests/all_reduce_perf-g2.txt (nccl-tests
2.19.6, one process, -g 2, NCCL 2.28.3). The bytes follow the writer in nccl-tests' src/util.cu
(jsonOutputInit, writeDeviceReport, writeResultHeader, writeBenchmarkLinePreamble/Body/
Terminator, writeResultFooter, writeErrors, jsonOutputFinalize), call for call: no whitespace,
no trailing newline, doubles as C's %lf (6 decimals), booleans as the strings "true"/"false"
(jsonBool writes through jsonStr), root as the string "%6i", '/' escaped as "\\/" (sanitizeJson),
one "devices" entry per process (parseRankInfo reads the first "#  Rank" line of a process's
block). Times and bandwidths are the table's (the table prints 2 decimals, so the JSON's are
those values). usage: make_nccl_json_fixture.py [OUT.json]"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "data", "nccl-tests", "all_reduce_perf-g2.txt")
OUT = os.path.join(HERE, "data", "nccl-tests", "all_reduce_perf-g2.json")
ARGS = ["./build/all_reduce_perf", "-b", "8", "-e", "8G", "-f", "2", "-g", "2", "-w", "1", "-n", "20",
        "-J", "all_reduce_perf-g2.json"]
ENV = ["NCCL_NVLS_ENABLE=0", "NCCL_DEBUG=INFO", "PATH=/usr/local/cuda/bin:/usr/bin:/bin"]


def s(v):  # jsonStr after sanitizeJson
    return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("/", "\\/") + '"'


def d(v):  # jsonDouble: %lf
    return f"{v:f}"


def main():
    lines = open(SRC, encoding="utf-8").read().splitlines()
    rank0 = next(ln for ln in lines if ln.startswith("#  Rank  0"))
    m = re.match(r"#  Rank +(\d+) Group +(\d+) Pid +(\d+) on +(\S+) device +(\d+) \[([^\]]*)\] (.*)", rank0)
    rows = [ln.split() for ln in lines if ln.strip() and ln.split()[0].isdigit()]
    avg = next(float(ln.split(":")[1]) for ln in lines if ln.startswith("# Avg bus bandwidth"))
    out = ['{"version":3', ',"start_time":"2026-11-29 18:20:11"', ',"args":[' + ",".join(map(s, ARGS)) + "]",
           ',"env":[' + ",".join(map(s, ENV)) + "]", ',"nccl_version":22803',
           ',"config":{"nthreads":1,"ngpus":2,"minimum_bytes":8,"maximum_bytes":8589934592,"step_factor":2,'
           '"warmup_iters":1,"iterations":20,"aggregated_iterations":1,"validation":1,"graph":0,'
           '"blocking_collectives":"false","per_iter_timing":"false","per_iter_skip":0,"parallel_init":"false",'
           f'"devices":[{{"rank":{m[1]},"group":{m[2]},"pid":{m[3]},"hostname":{s(m[4])},"device":{m[5]},'
           f'"device_hex":{s(m[6])},"device_info":{s(m[7])}}}]}}', ',"results":[']
    for i, f in enumerate(rows):
        body = [f'"{k}":{{"time":{d(float(f[t]))},"alg_bw":{d(float(f[t + 1]))},"bus_bw":{d(float(f[t + 2]))},'
                f'"nwrong":{d(float(f[t + 3])) if f[t + 3] != "N/A" else "null"}}}'
                for k, t in (("out_of_place", 5), ("in_place", 9))]
        out.append(("," if i else "") + f'{{"size":{f[0]},"count":{f[1]},"type":{s(f[2])},"redop":{s(f[3])},'
                   f'"root":{s("%6i" % int(f[4]))},{body[0]},{body[1]},"actual_iterations":20,"experiment_name":""}}')
    out += ['],"out_of_bounds":{"count":0,"okay":"true"}', f',"average_bus_bandwidth":{{"bandwidth":{d(avg)},'
            '"okay":"unchecked"}', ',"errors":[""]', ',"end_time":"2026-11-29 18:20:24"}']
    with open(sys.argv[1] if len(sys.argv) > 1 else OUT, "w", encoding="utf-8") as fh:
        fh.write("".join(out))


if __name__ == "__main__":
    main()
