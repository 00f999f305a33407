#!/usr/bin/env python3
"""CPU test of launcher/collbench-run's bad input: unknown options, a missing --topo file,
a non-numeric --gpus, --share-gpus without --vnodes and options without values exit 2 with a message naming the problem;
on a machine without a GPU a run exits 5 saying so (skipped where nvidia-smi lists a GPU); with a
GPU, --vnodes with more ranks per node than GPUs exits 2.

usage: test_run_script.py COLLBENCH_RUN BUILD_DIR"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

script, build = sys.argv[1], sys.argv[2]
problems = []
scratch = tempfile.mkdtemp(prefix="cb-run-out.")  # --out for cases that might start a run


def run(args, env=None):
    p = subprocess.run([script, "--build", build, "--no-plots"] + args, capture_output=True, text=True, timeout=120,
                       env=env)
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
    (["--share-gpus", "--gpus", "2"], 2, "--share-gpus needs --vnodes"),
    (["--share-gpus", "--hosts", "a,b"], 2, "--share-gpus needs --vnodes"),
    # 20 digits once wrapped to a huge -np
    (["--gpus", "99999999999999999999"], 2, "--gpus: '99999999999999999999' is not a positive number up to 1024"),
    (["--gpus", "1025"], 2, "up to 1024"),
    (["--hosts", "a,,b", "--out", scratch], 2, "--hosts: 'a,,b'"),
    (["--hosts", "a b", "--out", scratch], 2, "--hosts: 'a b'"),
    # empty values once meant "not given" (--out '' wrote the results folder at the root)
    (["--out", ""], 2, "--out needs a folder"),
    (["--vnodes", ""], 2, "--vnodes needs a number"),
    (["--hosts", ""], 2, "--hosts needs a list"),
    (["--gpus", ""], 2, "--gpus needs a number"),
    (["--out", os.path.abspath(__file__)], 2, "exists and is not a folder"),
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

# Temporary files: a private mktemp folder under $TMPDIR, removed on the error path too (the
# script once wrote /tmp/collbench-topo.PID.err, a name another user could plant a symlink at,
# and left it behind when collbench-topo failed).
tmp = tempfile.mkdtemp(prefix="cb-run-test.")
bad_xml = os.path.join(tmp, "bad.xml")
with open(bad_xml, "w") as f:
    f.write("not XML\n")
env = dict(os.environ, TMPDIR=os.path.join(tmp, "t"))
os.mkdir(env["TMPDIR"])
proc = subprocess.Popen([script, "--build", build, "--no-plots", "--topo", bad_xml, "--hosts", "cb-a.invalid,cb-b.invalid",
                         "--out", os.path.join(tmp, "out"), "--", "allreduce"], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True, env=env)
proc.stdout, proc.stderr = proc.communicate(timeout=120)[0], ""
out = proc.stdout + proc.stderr
if proc.returncode != 2 or "collbench-topo:" not in out:
    problems.append(f"bad --topo: rc {proc.returncode} (want 2), output {out.strip()!r}")
if os.path.exists(f"/tmp/collbench-topo.{proc.pid}.err") or os.listdir(env["TMPDIR"]):
    problems.append(f"bad --topo: temporary files left: {os.listdir(env['TMPDIR'])}, "
                    f"/tmp/collbench-topo.{proc.pid}.err exists: {os.path.exists(f'/tmp/collbench-topo.{proc.pid}.err')}")

if not has_gpu:
    # --hosts from a machine without GPUs: no rank count can be known (it once ran mpirun -np 0)
    rc, out = run(["--hosts", "cb-a.invalid,cb-b.invalid", "--out", os.path.join(tmp, "out"), "--", "allreduce"], env)
    if rc != 2 or "give --gpus N" not in out:
        problems.append(f"--hosts without GPUs: rc {rc} (want 2), output {out.strip()!r}")
    # one named host and no rankfile (collbench-topo finds no GPU here): mpirun must still get
    # -H, never fall back to this machine
    # CB_* knobs travel to other hosts with -x (they must agree on every rank), but never
    # CB_NODE_ID: it names each rank's own node
    knob_env = dict(env, CB_AR_HIER_CHUNKS="4", CB_NODE_ID="mine")
    rc, out = run(["--hosts", "cb-a.invalid", "--gpus", "2", "--out", os.path.join(tmp, "out"), "--", "allreduce"],
                  knob_env)
    cmds = glob.glob(os.path.join(tmp, "out", "*", "command.txt"))
    text = open(cmds[0]).read() if cmds else ""
    if "-H cb-a.invalid:2" not in text or "-np 2" not in text:
        problems.append(f"one --hosts entry: mpirun command {text.strip()!r} lacks -H cb-a.invalid:2 / -np 2")
    if "-x CB_AR_HIER_CHUNKS" not in text or "CB_NODE_ID" in text:
        problems.append(f"knobs: mpirun command {text.strip()!r} must pass CB_AR_HIER_CHUNKS and not CB_NODE_ID")
    if rc == 0:
        problems.append("one --hosts entry: an unreachable host ran (exit 0)")
    if os.listdir(env["TMPDIR"]):
        problems.append(f"temporary files left after a run: {os.listdir(env['TMPDIR'])}")

# With two (fake) GPUs, this machine's checks that come after the GPU count: more ranks than
# GPUs, a mistyped family (no results folder may be left), two runs started in the same second
# (each its own folder), and mpirun failing to place the ranks (exit 3, not 1 "wrong results").
fake = os.path.join(tmp, "fakebin")
os.makedirs(fake)
with open(os.path.join(fake, "nvidia-smi"), "w") as f:
    f.write('#!/bin/sh\n[ "$1" = -L ] && printf "GPU 0: Fake (UUID: a)\\nGPU 1: Fake (UUID: b)\\n"\nexit 0\n')
os.chmod(os.path.join(fake, "nvidia-smi"), 0o755)
fenv = dict(os.environ, PATH=fake + os.pathsep + os.environ["PATH"])
fout = os.path.join(tmp, "fout")
rc, out = run(["--gpus", "3", "--out", fout, "--", "allreduce"], fenv)
if rc != 2 or "this machine has 2 GPU(s)" not in out:
    problems.append(f"--gpus 3 on 2 GPUs: rc {rc} (want 2), output {out.strip()!r}")
rc, out = run(["--out", fout, "--", "allreduc", "-b", "8"], fenv)
if rc != 2 or "unknown family 'allreduc'" not in out or os.path.exists(fout):
    problems.append(f"mistyped family: rc {rc} (want 2), folder left: {os.path.exists(fout)}, output {out.strip()!r}")
procs = [subprocess.Popen([script, "--build", build, "--no-plots", "--out", fout, "--", "allreduce", "-b", "8", "-e", "8",
                           "-d", d], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=fenv)
         for d in ("float", "half")]
for pr in procs:
    pr.wait(timeout=120)
dirs = sorted(glob.glob(os.path.join(fout, "*-allreduce*")))
cmds = [open(os.path.join(d, "command.txt")).read() for d in dirs if os.path.exists(os.path.join(d, "command.txt"))]
if len(dirs) != 2 or not any("float" in c for c in cmds) or not any("half" in c for c in cmds):
    problems.append(f"two runs at once: folders {dirs}, commands {cmds}")
# a virtual node of 3 ranks on the 2 (fake) GPUs: refused, or with --share-gpus started through
# collbench-vnode 3 with CB_SHARE_GPUS passed to every rank (the run itself fails here: no GPU)
rc, out = run(["--vnodes", "1", "--gpus", "3", "--out", fout, "--", "allreduce", "-b", "8", "-e", "8"], fenv)
if rc != 2 or "--share-gpus" not in out:
    problems.append(f"--vnodes 1 --gpus 3 on 2 GPUs: rc {rc} (want 2 naming --share-gpus), output {out.strip()!r}")
sout = os.path.join(tmp, "sout")
rc, out = run(["--vnodes", "1", "--gpus", "3", "--share-gpus", "--out", sout, "--", "allreduce", "-b", "8", "-e", "8"], fenv)
cmds = glob.glob(os.path.join(sout, "*", "command.txt"))
text = open(cmds[0]).read() if cmds else ""
if "-np 3" not in text or "collbench-vnode 3" not in text or "-x CB_SHARE_GPUS" not in text:
    problems.append(f"--share-gpus: mpirun command {text.strip()!r} lacks -np 3 / collbench-vnode 3 / -x CB_SHARE_GPUS")
topo = os.path.join(os.path.dirname(script), "..", "topologies", "h200x2-vm.xml")
if os.path.exists(topo):
    rc, out = run(["--topo", topo, "--out", os.path.join(tmp, "fout2"), "--", "allreduce", "-b", "8", "-e", "8"], fenv)
    # the rankfile names cores this machine does not have: mpirun cannot start the ranks
    if "mpirun did not run collbench to completion" in out and rc != 3:
        problems.append(f"failed launch: rc {rc} (want 3)")
    if rc == 1:
        problems.append(f"failed launch reported as wrong results (exit 1): {out.strip()[-300:]!r}")
shutil.rmtree(tmp, ignore_errors=True)
shutil.rmtree(scratch, ignore_errors=True)

for p in problems:
    print("test_run_script:", p)
print("test_run_script:", "FAILED" if problems else "OK")
sys.exit(1 if problems else 0)
