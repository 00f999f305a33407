#!/usr/bin/env python3
"""Runs one tests/mpi case under mpirun and checks how the job ended: the exit code, the time it
took and what it printed. Every run is wrapped in `timeout` so a hang fails the test instead of
stalling CTest (exit 124 from timeout is reported as a hang).

usage: run_mpi_case.py [--rc N | --rc nonzero] [--max-seconds S] [--timeout S]
                       [--stdout TEXT]... [--stderr TEXT]... [--stderr-not TEXT]...
                       [--env K=V]... [--unset K]... [--lines FILE N]... [--end-within TEXT S] -- MPIRUN ARGS...
  --rc N        expected exit code of mpirun (default 0); "nonzero": any code except 0 and 124
  --max-seconds the job must end within S seconds (measured around mpirun)
  --timeout     the limit given to `timeout` (default 60)
  --stdout/--stderr  text that must appear in that stream ({np} is replaced by the -np value)
  --stderr-not  text that must not appear on stderr (a crash, the wrong thread aborting)
  --env K=V     set in the job's environment (CB_FAULT=...)
  --unset K     removed from the job's environment
  --lines FILE N  FILE must exist with exactly N lines (rows kept after a fault); {tmp} in FILE
                and in the command is a fresh temporary folder
  --end-within TEXT S  the job must end within S seconds of the first stderr line holding TEXT
                (the lines are read as they come and stamped on arrival)
"""
import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time


def run_stamped(full, env):
    """Runs full, reading stdout and stderr line by line as they come: (exit code, stdout text,
    stderr text, [(monotonic arrival time, stderr line)])."""
    # bytes that are not UTF-8 become escapes (a reader that died on them would leave the pipe
    # unread: a full pipe blocks the job, and a crash message after them would go unseen)
    p = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         errors="backslashreplace", env=env)
    out, err = [], []

    def pump(stream, sink):
        for line in stream:
            sink.append((time.monotonic(), line))

    threads = [threading.Thread(target=pump, args=(p.stdout, out), daemon=True),
               threading.Thread(target=pump, args=(p.stderr, err), daemon=True)]
    for t in threads:
        t.start()
    rc = p.wait()
    for t in threads:
        t.join(timeout=30)  # a grandchild holding the pipe open must not stall the test
    return rc, "".join(l for _, l in out), "".join(l for _, l in err), err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rc", default="0")
    ap.add_argument("--max-seconds", type=float, default=0.0)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--stdout", action="append", default=[])
    ap.add_argument("--stderr", action="append", default=[])
    ap.add_argument("--stderr-not", action="append", default=[])
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--unset", action="append", default=[])
    ap.add_argument("--lines", nargs=2, action="append", default=[], metavar=("FILE", "N"))
    ap.add_argument("--end-within", nargs=2, action="append", default=[], metavar=("TEXT", "S"))
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    for _, limit in a.end_within:
        try:
            if not float(limit) > 0:
                raise ValueError
        except ValueError:
            ap.error(f"--end-within: {limit!r} is not a positive number of seconds")
    tmp = tempfile.mkdtemp(prefix="cb-mpi-")
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    cmd = [c.replace("{tmp}", tmp) for c in cmd]
    env = dict(os.environ)
    for kv in a.env:
        k, _, v = kv.partition("=")
        env[k] = v
        print(f"+ {k}={v}")
    for k in a.unset:
        env.pop(k, None)
        print(f"+ unset {k}")
    np = cmd[cmd.index("-np") + 1] if "-np" in cmd else "?"
    full = ["timeout", "--kill-after=10", str(a.timeout), *cmd]
    print("+", " ".join(full), flush=True)
    t0 = time.monotonic()
    rc, stdout, stderr, err_lines = run_stamped(full, env)
    t_end = time.monotonic()
    dt = t_end - t0
    p = subprocess.CompletedProcess(full, rc, stdout, stderr)
    sys.stdout.write(p.stdout)
    sys.stdout.write(p.stderr)
    print(f"-> exit {p.returncode} after {dt:.1f} s")
    problems = []
    for text, limit in a.end_within:
        seen = [t for t, line in err_lines if text in line]
        if not seen:
            problems.append(f"stderr lacks {text!r} (for --end-within)")
        else:
            after = t_end - seen[0]
            print(f"-> ended {after:.2f} s after {text!r}")
            if after > float(limit):
                problems.append(f"ended {after:.2f} s after {text!r}, expected at most {float(limit):g} s")
    if p.returncode in (124, 137):
        problems.append(f"the job hung: killed by timeout after {a.timeout} s")
    elif a.rc == "nonzero":
        if p.returncode == 0:
            problems.append("the job exited 0, expected a failure")
    elif p.returncode != int(a.rc):
        problems.append(f"exit code {p.returncode}, expected {a.rc}")
    if a.max_seconds and dt > a.max_seconds:
        problems.append(f"took {dt:.1f} s, expected at most {a.max_seconds:.0f} s")
    for text in a.stdout:
        text = text.replace("{np}", np)
        if text not in p.stdout:
            problems.append(f"stdout lacks {text!r}")
    for text in a.stderr:
        text = text.replace("{np}", np)
        if text not in p.stderr:
            problems.append(f"stderr lacks {text!r}")
    for text in a.stderr_not:
        if text in p.stderr:
            problems.append(f"stderr holds {text!r}")
    for path, n in a.lines:
        path = path.replace("{tmp}", tmp)
        if not os.path.exists(path):
            problems.append(f"{path} is missing")
            continue
        with open(path) as f:
            got = sum(1 for _ in f)
        if got != int(n):
            problems.append(f"{path}: {got} lines, expected {n}")
    for msg in problems:
        print("run_mpi_case: FAIL:", msg)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
