#!/usr/bin/env python3
"""Stand-in for the collbench binary in CPU tests of launcher/collbench-run's launcher logic
(run_fixture.py): the machine has no GPU, so the real collbench exits 5 before a row. This one
hands any parse-only call (--algo help, as collbench-run's check makes) to the real collbench
(STANDIN_REAL), and as an MPI rank streams the rows of a committed fixture run (STANDIN_RUN:
results.csv and results.json) into --csv / --json the way collbench does: rank 0 writes the
header, then one row every STANDIN_ROW_S seconds (flushed), the metadata first into
results.json.partial.jsonl and results.json at the end; the other ranks wait for the same time.
It keeps the default signal actions, like collbench. Exit 0 when every row was written."""
import json
import os
import sys
import time

args = sys.argv[1:]
if "--algo=help" in args or "help" in args:
    os.execv(os.environ["STANDIN_REAL"], [os.environ["STANDIN_REAL"]] + args)
csv_path = args[args.index("--csv") + 1]
json_path = args[args.index("--json") + 1]
run = os.environ["STANDIN_RUN"]
step = float(os.environ.get("STANDIN_ROW_S", "0.2"))
with open(os.path.join(run, "results.csv")) as f:
    lines = f.readlines()
rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", "0"))
if rank != 0:
    time.sleep(step * len(lines))
    sys.exit(0)
with open(os.path.join(run, "results.json")) as f:
    doc = f.read()
with open(json_path + ".partial.jsonl", "w") as f:
    f.write(json.dumps({"meta": json.loads(doc)["meta"]}) + "\n")
with open(csv_path, "w") as f:
    for line in lines:
        f.write(line)
        f.flush()
        print(line.rstrip("\n"), flush=True)
        time.sleep(step)
with open(json_path, "w") as f:
    f.write(doc)
os.unlink(json_path + ".partial.jsonl")
