#!/usr/bin/env python3
"""tools/moe_trace.py on synthetic stamp files (the format collectives/moe_trace.c
writes): the call period, and the first / median / last block per point relative to the call's
first stamp, averaged over the calls kept (the first and last 2 left out); the dispatch push's
latest and earliest blocks with the SM each ran on (a value, not a time); too few calls and no
file argument are said so; a missing file, a folder, malformed lines, bytes that are not
text, numbers past 2^64 and calls without a start stamp are one clear line each and exit 2.

  test_moe_trace.py SCRIPT
"""
import os
import subprocess
import sys
import tempfile


def write_trace(path, ncalls, period_ns):
    with open(path, "w") as f:
        f.write("# kernel block epoch t0 t1 t2 t3 t4 t5 t6\n")
        for e in range(1, ncalls + 1):
            base = 1_000_000 + e * period_ns
            for b in range(3):
                # dispatch_ll (kernel 0): start at b*100 ns, pushed at 2000 + b*1000, end 5000 + b*1000
                t = [base + b * 100, 0, 0, base + 2000 + b * 1000, 0, 0, base + 5000 + b * 1000]
                f.write(f"0 {b} {e} " + " ".join(str(x) for x in t) + "\n")
                # combine (kernel 1): start at 6000, end at 9000 + b*500
                t = [base + 6000, 0, 0, 0, 0, 0, base + 9000 + b * 500]
                f.write(f"1 {b} {e} " + " ".join(str(x) for x in t) + "\n")
                # dispatch_push (kernel 2): point 1 is a value (SM 40 + b, stored + 1), pushed at
                # 3000 - b*1000 (block 0 the latest)
                t = [base + 50, 41 + b, 0, base + 3000 - b * 1000, 0, 0, base + 4000]
                f.write(f"2 {b} {e} " + " ".join(str(x) for x in t) + "\n")


def row(out, kernel, point):
    for line in out.splitlines():
        parts = line.split()
        if parts[:1] == [kernel] and " ".join(parts[1:-3]) == point:
            return [float(x) for x in parts[-3:]]
    raise AssertionError(f"no row {kernel} {point} in:\n{out}")


def main():
    script = sys.argv[1]
    fails = 0
    with tempfile.TemporaryDirectory() as d:
        good = os.path.join(d, "moe-r0-peer_ll-fp8e4m3-graph-128.txt")
        write_trace(good, 10, 30_000)
        out = subprocess.run([sys.executable, script, good], capture_output=True, text=True, check=True).stdout
        checks = [
            ("6 calls kept", "6 calls (epochs 3..8)" in out),
            ("period 30 us", "median 30.00 us" in out),
            ("dispatch_ll pushed", row(out, "dispatch_ll", "pushed") == [2.0, 3.0, 4.0]),
            ("dispatch_ll end", row(out, "dispatch_ll", "end") == [5.0, 6.0, 7.0]),
            ("combine start", row(out, "combine", "start") == [6.0, 6.0, 6.0]),
            ("combine end", row(out, "combine", "end") == [9.0, 9.5, 10.0]),
            ("dispatch_push pushed", row(out, "dispatch_push", "pushed") == [1.0, 2.0, 3.0]),
            ("the SM value is not a time row", " sm " not in out.replace("/sm", "")),
            ("latest blocks with their SMs", "latest:   0/sm40 3.00, 1/sm41 2.00, 2/sm42 1.00" in out),
            ("earliest blocks with their SMs", "earliest: 2/sm42 1.00, 1/sm41 2.00, 0/sm40 3.00" in out),
        ]
        few = os.path.join(d, "few.txt")
        write_trace(few, 3, 30_000)
        out = subprocess.run([sys.executable, script, few], capture_output=True, text=True, check=True).stdout
        checks.append(("too few calls said", "too few" in out))
        usage = subprocess.run([sys.executable, script], capture_output=True, text=True)
        checks.append(("no argument: usage, non-zero exit", usage.returncode != 0 and "FILE" in usage.stderr))
        # bad input: one line each, exit 2, never a traceback; a good file beside them still reported
        bad = {"missing": os.path.join(d, "nope.txt"), "directory": d}
        for name, content in (("words", b"0 1 x 2 3 4 5 6 7 8\n"), ("short", b"0 1 2 3\n"),
                              ("negative", b"0 1 5 -3 0 0 0 0 0 0\n"), ("not-utf8", b"0 1 \xff\xfe 3\n"),
                              ("huge", b"0 1 5 " + b"9" * 5000 + b" 0 0 0 0 0 0\n"),
                              ("2^64", b"0 1 5 18446744073709551616 0 0 0 0 0 0\n"),
                              ("nostart", b"".join(b"0 0 %d 0 0 0 5 0 0 0\n" % e for e in range(1, 8)))):
            p = os.path.join(d, name + ".txt")
            with open(p, "wb") as f:
                f.write(content)
            bad[name] = p
        for name, p in bad.items():
            r = subprocess.run([sys.executable, script, p, good], capture_output=True, text=True)
            checks.append((f"{name}: exit 2, one clear line, the good file still read",
                           r.returncode == 2 and f"moe_trace.py: {p}:" in r.stderr and "Traceback" not in r.stderr
                           and "median 30.00 us" in r.stdout))
    for name, ok in checks:
        print(("ok   " if ok else "FAIL ") + name)
        fails += not ok
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
