#!/usr/bin/env python3
"""Stand-in for the collbench binary in CPU tests of launcher/collbench-run's launcher logic
(run_fixture.py), used where a test needs ranks that run for seconds: the machine has no GPU,
so the real collbench exits 5 within a second of its start. mpirun, collbench-vnode, the
launcher, tee, plots and the verdict stay the real ones; only the rank program is this.

Outside MPI (collbench-run's parse-only checks, --help, --algo help) it is the real collbench
(STANDIN_REAL, exec'd). As an MPI rank it first has the real collbench parse its command line
(outside MPI, CB_FAULT set to a bad value as the stop) and ends as collbench would on a usage
error (its message, exit 2); then it streams the rows of a committed fixture run
(STANDIN_RUN: results.csv and results.json) into --csv / --json the way collbench does: rank 0
writes the header, then one row every STANDIN_ROW_S seconds (flushed, and printed), the metadata
first into results.json.partial.jsonl and results.json at the end, after STANDIN_HOLD_S more
seconds (default 0); the other ranks print nothing and wait as long, as ranks waiting for their
peers do (a real rank then holds its GPU until its watchdog, 120 s). STANDIN_CRASH_ROW=N: rank 0
crashes with SIGSEGV after N rows. Its signal actions are collbench's, the defaults (Python's
own, a KeyboardInterrupt on SIGINT and SIGPIPE ignored, are undone): a signal ends it as it ends
collbench. Exit 0 when every row was written."""
import json
import os
import signal
import subprocess
import sys
import time

signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGPIPE, signal.SIG_DFL)

args = sys.argv[1:]
real = os.environ["STANDIN_REAL"]
if "OMPI_COMM_WORLD_RANK" not in os.environ and "PMIX_RANK" not in os.environ:
    os.execv(real, [real] + args)
parse_env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_"))}
parse_env["CB_FAULT"] = "standin-parse-only"
parsed = subprocess.run([real] + args, env=parse_env, capture_output=True, text=True, timeout=60)
if "standin-parse-only" not in parsed.stderr:
    sys.stderr.write(parsed.stderr)
    sys.exit(parsed.returncode or 2)
csv_path = args[args.index("--csv") + 1]
json_path = args[args.index("--json") + 1]
run = os.environ["STANDIN_RUN"]
step = float(os.environ.get("STANDIN_ROW_S", "0.2"))
hold = float(os.environ.get("STANDIN_HOLD_S", "0"))
crash = int(os.environ.get("STANDIN_CRASH_ROW", "0"))
with open(os.path.join(run, "results.csv")) as f:
    lines = f.readlines()
rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMIX_RANK", "0")))
if rank != 0:
    time.sleep(step * len(lines) + hold)
    sys.exit(0)
with open(os.path.join(run, "results.json")) as f:
    doc = f.read()
with open(json_path + ".partial.jsonl", "w") as f:
    f.write(json.dumps({"meta": json.loads(doc)["meta"]}) + "\n")
with open(csv_path, "w") as f:
    for k, line in enumerate(lines):
        f.write(line)
        f.flush()
        print(line.rstrip("\n"), flush=True)
        if crash and k == crash:
            os.kill(os.getpid(), signal.SIGSEGV)
        time.sleep(step)
time.sleep(hold)
with open(json_path, "w") as f:
    f.write(doc)
os.unlink(json_path + ".partial.jsonl")
