#!/usr/bin/env python3
"""CPU test of launcher/collbench-run's bad input: unknown options, a missing --topo file,
a non-numeric --gpus and options without values exit 2 with a message naming the problem;
on a machine without a GPU a run exits 5 saying so (skipped where nvidia-smi lists a GPU); with a
GPU, --vnodes with more ranks per node than GPUs exits 2.

usage: test_run_script.py COLLBENCH_RUN BUILD_DIR"""
import shutil
import subprocess
import sys

script, build = sys.argv[1], sys.argv[2]
problems = []


def run(args):
    p = subprocess.run([script, "--build", build, "--no-plots"] + args, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


cases = [
    (["--bogus"], 2, "unknown option '--bogus'"),
    (["--topo", "/nonexistent/node.xml"], 2, "cannot read '/nonexistent/node.xml'"),
    (["--gpus", "two"], 2, "--gpus: 'two' is not a positive number"),
    (["--gpus", "0"], 2, "--gpus: '0' is not a positive number"),
    (["--topo"], 2, "--topo needs a file"),
    (["--hosts"], 2, "--hosts needs a list"),
    (["--vnodes", "0"], 2, "--vnodes: '0' is not a positive number"),
    (["--vnodes", "2", "--hosts", "a,b"], 2, "it does not combine with --hosts"),
]
for args, want_rc, want_msg in cases:
    rc, out = run(args)
    if rc != want_rc or want_msg not in out:
        problems.append(f"{args}: rc {rc} (want {want_rc}), output {out.strip()!r} lacks {want_msg!r}")

rc, out = run(["--help"])
if rc != 0 or "usage: launcher/collbench-run" not in out:
    problems.append(f"--help: rc {rc}, output {out[:200]!r}")

has_gpu = False
if shutil.which("nvidia-smi"):
    has_gpu = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout.startswith("GPU")
if has_gpu:
    # a virtual node of more ranks than this machine has GPUs: refused before mpirun starts
    ngpu = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout.count("GPU ")
    rc, out = run(["--vnodes", "2", "--gpus", str(ngpu + 1), "--", "allreduce"])
    if rc != 2 or "ranks per virtual node but this machine has" not in out:
        problems.append(f"--vnodes 2 --gpus {ngpu + 1}: rc {rc} (want 2), output {out.strip()!r}")
if not has_gpu:
    rc, out = run(["--", "allreduce"])
    if rc != 5 or "no NVIDIA GPU on this machine" not in out:
        problems.append(f"no GPU: rc {rc} (want 5), output {out.strip()!r}")

for p in problems:
    print("test_run_script:", p)
print("test_run_script:", "FAILED" if problems else "OK")
sys.exit(1 if problems else 0)
