#!/usr/bin/env python3
"""CPU test of collbench-run's --sbatch, --nodes and --profile input (issue 33): each bad form
exits 2 before anything runs, with a message naming the problem; --sbatch on a machine without
GPUs (a login node) writes a batch script from --topo FILE.xml (or --gpus N) and exits 0.

usage: test_run_options.py COLLBENCH_RUN BUILD_DIR TOPOLOGIES_DIR"""
import os
import shutil
import subprocess
import sys
import tempfile

script, build, topo = sys.argv[1:4]
work = tempfile.mkdtemp(prefix="cb-run-opts.")
problems = []
# a PATH without ncu (and an ncu stand-in in its own folder for the cases past that check)
nobin = os.path.join(work, "bin")
os.makedirs(nobin)
path_no_ncu = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                              if not os.path.exists(os.path.join(p, "ncu")))
fake = os.path.join(work, "fakencu")
os.makedirs(fake)
with open(os.path.join(fake, "ncu"), "w") as f:
    f.write("#!/bin/sh\nexit 0\n")
os.chmod(os.path.join(fake, "ncu"), 0o755)


def run(args, path=path_no_ncu):
    env = dict(os.environ, PATH=path)
    env.pop("SLURM_JOB_ID", None)
    p = subprocess.run([script, "--build", build, "--no-plots"] + args, capture_output=True, text=True,
                       timeout=300, env=env)
    return p.returncode, p.stdout + p.stderr


job = os.path.join(work, "job.sh")
cases = [
    (["--sbatch", job], 2, "--sbatch needs --nodes N"),
    (["--nodes", "2"], 2, "--nodes is the node count of an --sbatch script"),
    (["--sbatch", job, "--nodes", "0"], 2, "--nodes: '0' is not a positive number"),
    (["--sbatch", job, "--nodes", "2", "--hosts", "a,b"], 2, "does not combine with --hosts"),
    (["--sbatch", work, "--nodes", "2"], 2, "a folder is there"),
    (["--sbatch"], 2, "--sbatch needs a file"),
    (["--profile", "nsys"], 2, "--profile: unknown tool 'nsys' (known: ncu)"),
    (["--profile", "ncu"], 2, "ncu is not on PATH"),
    (["--profile", "ncu:twoshot:8X"], 2, "SIZE '8X' is not a size"),
    (["--profile", "ncu:a:b:c"], 2, "is not ncu[:ALGO[:SIZE]]"),
]
for args, want_rc, want in cases:
    rc, out = run(args)
    if rc != want_rc or want not in out:
        problems.append(f"{args}: exit {rc}, expected {want_rc} with {want!r}; output:\n{out}")
    if os.path.exists(job):
        problems.append(f"{args}: wrote {job}")
# the batch script from a topology file, on this GPU-less machine
rc, out = run(["--topo", f"{topo}/h200x2-vm.xml", "--sbatch", job, "--nodes", "4", "--", "allreduce", "-b", "8"])
if rc != 0:
    problems.append(f"--sbatch --nodes 4: exit {rc}: {out}")
else:
    text = open(job).read()
    for want in ["#SBATCH --nodes=4", "#SBATCH --ntasks-per-node=2", "#SBATCH --gpus-per-node=2",
                 "--cpu-bind=mask_cpu:0xffff,0xffff0000",
                 f"--topo {os.path.abspath(topo)}/h200x2-vm.xml -- allreduce -b 8"]:
        if want not in text:
            problems.append(f"batch script lacks {want!r}:\n{text}")
    if "--sbatch" in text.split("exec", 1)[1] or "--nodes 4" in text:
        problems.append(f"--sbatch/--nodes left in the script's command:\n{text}")
    if not os.access(job, os.X_OK):
        problems.append("the batch script is not executable")
    r = subprocess.run(["bash", "-n", job], capture_output=True, text=True)
    if r.returncode:
        problems.append(f"bash -n {job}: {r.stderr}")
# an algorithm no family has (checked once collbench is built, before any run)
rc, out = run(["--profile", "ncu:nosuch", "--gpus", "1", "--", "allreduce"], path=fake + os.pathsep + path_no_ncu)
if shutil.which("nvidia-smi") is None and not (rc == 5 or (rc == 2 and "no algorithm 'nosuch'" in out)):
    problems.append(f"--profile ncu:nosuch: exit {rc}: {out}")
shutil.rmtree(work, ignore_errors=True)
for p in problems:
    print("FAIL:", p)
if problems:
    sys.exit(1)
print(f"PASS collbench-run --sbatch/--nodes/--profile input ({len(cases) + 2} cases)")
