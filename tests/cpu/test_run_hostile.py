#!/usr/bin/env python3
"""CPU test of launcher/collbench-run on hostile input (issue 32), with the real collbench (its
parser) and collbench-topo, real mpirun, and a stand-in nvidia-smi listing two GPUs so the
launcher logic runs past its GPU probe (run_fixture.py). Each case must stop before a results
folder exists and before mpirun, with exit 2 and a line naming the problem, unless said:

  N5   a plan collbench-topo rejects (--topo /etc/passwd, more ranks than the XML's GPUs), a host
       named twice
  N6   more ranks on this host than CB_MAX_RANKS per GPU (--vnodes 1024 --gpus 1024 --share-gpus)
  N18  collbench's own usage errors after --, its --help (exit 0, nothing run), a trailing option
       that would take the appended --csv, a user's --csv/--json
  N19  --out -x (a folder named -x is made, not an mkdir usage error)
  N20  --topo with --vnodes
  N24  an environment value with a line break (named); tests/run checks CB_FUZZ_SECONDS first
  N8 and the symlink sweep: --build DIR's logs are DIR/collbench-*.log, created as new files
       (symlinks planted there and at the old DIR.build.log / DIR.cmake.log are never written
       through), and symlinks planted at the results folder names of the next seconds are
       skipped, never followed.

usage: test_run_hostile.py REPO_ROOT BUILD_DIR"""
import glob
import os
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_fixture  # noqa: E402

root, real_build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
script = os.path.join(root, "launcher", "collbench-run")
tmp = tempfile.mkdtemp(prefix="cb-run-hostile.")
build = run_fixture.build_dir(tmp, real_build)
env = run_fixture.env_with(tmp, TMPDIR=tmp)
host = socket.gethostname()
problems = []


def run(args, extra_env=None, cwd=None, timeout=120):
    e = dict(env, **(extra_env or {}))
    p = subprocess.run([script, "--build", build, "--no-plots"] + args, capture_output=True, text=True,
                       timeout=timeout, env=e, cwd=cwd)
    return p.returncode, p.stdout + p.stderr


def expect(label, args, want_rc, want_msg, extra_env=None):
    out = os.path.join(tmp, "out-" + str(len(glob.glob(os.path.join(tmp, "out-*")))))
    os.mkdir(out)
    rc, text = run(["--out", out] + args, extra_env)
    if rc != want_rc or want_msg not in text:
        problems.append(f"{label}: rc {rc} (want {want_rc}), output {text.strip()[-600:]!r} lacks {want_msg!r}")
    if os.listdir(out):
        problems.append(f"{label}: a results folder was made: {os.listdir(out)}")


xml = os.path.join(root, "topologies", "h200x2-vm.xml")
expect("N5 --topo /etc/passwd", ["--topo", "/etc/passwd", "--gpus", "1", "--hosts", host, "--", "allreduce"], 2,
       "collbench-topo")
expect("N5 more ranks than the XML's GPUs", ["--topo", xml, "--gpus", "8", "--hosts", host, "--", "allreduce"], 2,
       "collbench-topo")
expect("N5 a host named twice", ["--hosts", "vm,vm", "--gpus", "1", "--", "allreduce"], 2, "'vm' is named more than once")
expect("N6 over CB_MAX_RANKS per GPU", ["--vnodes", "9", "--gpus", "2", "--share-gpus", "--", "allreduce"], 2,
       "CB_MAX_RANKS")
expect("N6 a million ranks", ["--vnodes", "1024", "--gpus", "1024", "--share-gpus", "--", "allreduce"], 2, "CB_MAX_RANKS")
expect("N18 --bogus", ["--", "allreduce", "--bogus"], 2, "unknown option '--bogus'")
expect("N18 -b x", ["--", "allreduce", "-b", "x"], 2, "-b: 'x' is not a size")
expect("N18 trailing -b", ["--", "allreduce", "-b"], 2, "option '-b' needs a value")
expect("N18 trailing --save", ["--", "ringattn", "--save"], 2, "option '--save' needs a value")
expect("N18 --help", ["--", "allreduce", "--help"], 0, "usage: collbench FAMILY")
expect("N18 a user's --csv", ["--", "allreduce", "--csv", "mine.csv"], 2, "'--csv' after --")
expect("N18 a user's --json=", ["--", "allreduce", "--json=mine.json"], 2, "'--json' after --")
expect("N20 --topo with --vnodes", ["--vnodes", "2", "--gpus", "1", "--topo", xml, "--", "allreduce"], 2,
       "--topo plans one rank per GPU")
expect("N24 a line break in a knob", ["--", "allreduce"], 2, "environment variable CB_AR_HIER_CHUNKS holds a line break",
       {"CB_AR_HIER_CHUNKS": "4\nCB_EVIL=1"})
expect("N24 a line break in NCCL_*", ["--", "allreduce"], 2, "environment variable NCCL_DEBUG holds a line break",
       {"NCCL_DEBUG": "INFO\n-x"})

# N19: --out -x is a folder named -x (the run itself then fails here: no GPU for collbench)
cwd = os.path.join(tmp, "cwd")
os.mkdir(cwd)
rc, text = run(["--out", "-x", "--vnodes", "1", "--gpus", "1", "--", "allreduce", "-b", "8", "-e", "8"], cwd=cwd)
if not glob.glob(os.path.join(cwd, "-x", "*", "command.txt")):
    problems.append(f"N19 --out -x: no results folder under ./-x (rc {rc}): {text.strip()[-400:]!r}")

# N8: symlinks (dangling or not), a FIFO and a device node at the build logs' names: refused
# with one line before anything is built or run (never written through, never replaced)
victim = os.path.join(tmp, "victim")
os.mkdir(victim)
for name in ("collbench-build.log", "collbench-cmake.log"):
    path = os.path.join(build, name)
    target = os.path.join(victim, name + ".target")
    with open(target, "w") as f:
        f.write("precious\n")
    for plant in ("link", "dangling", "fifo", "device"):
        if os.path.lexists(path):
            os.remove(path)
        if plant == "link":
            os.symlink(target, path)
        elif plant == "dangling":
            os.symlink(os.path.join(victim, "created-" + name), path)
        elif plant == "fifo":
            os.mkfifo(path)
        elif os.geteuid() == 0:  # a device node like /dev/null's
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        else:
            os.mkfifo(path)
        before = os.lstat(path)
        out = os.path.join(tmp, f"out-n8-{name}-{plant}")
        os.mkdir(out)
        rc, text = run(["--out", out, "--vnodes", "1", "--gpus", "1", "--", "allreduce", "-b", "8", "-e", "8"], timeout=60)
        if rc != 2 or f"cannot write {path}" not in text or len(text.strip().splitlines()) != 1:
            problems.append(f"N8 {plant} at {name}: rc {rc} (want 2, one line naming it): {text.strip()[-300:]!r}")
        if open(target).read() != "precious\n" or os.listdir(out) or glob.glob(os.path.join(victim, "created-*")):
            problems.append(f"N8 {plant} at {name}: written through, or a run started")
        after = os.lstat(path)
        if (after.st_ino, after.st_mode) != (before.st_ino, before.st_mode):
            problems.append(f"N8 {plant} at {name}: replaced")
    os.remove(path)

# the sweep: symlinks planted at the results folder names of the next seconds are skipped, never
# followed; the build log is a new regular file
sweep_out = os.path.join(tmp, "sweep")
os.mkdir(sweep_out)
victim_dir = os.path.join(tmp, "victim-dir")
os.mkdir(victim_dir)
now = time.time()
short = host.split(".")[0]
for k in range(0, 40):  # the folder names of the next 40 seconds, each a symlink to victim_dir
    stem = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now + k)) + f"-{short}-allreduce"
    os.symlink(victim_dir, os.path.join(sweep_out, stem))
rc, text = run(["--out", sweep_out, "--vnodes", "1", "--gpus", "1", "--", "allreduce", "-b", "8", "-e", "8"])
log = os.path.join(build, "collbench-build.log")
if os.path.islink(log) or not os.path.isfile(log):
    problems.append(f"N8: {log} is not a new regular file")
if glob.glob(os.path.join(build, ".collbench-*")):
    problems.append(f"N8: temporary logs left: {glob.glob(os.path.join(build, '.collbench-*'))}")
if os.listdir(victim_dir):
    problems.append(f"sweep: a planted results-folder symlink was followed: {os.listdir(victim_dir)}")
real = [d for d in glob.glob(os.path.join(sweep_out, "*")) if not os.path.islink(d)]
if len(real) != 1 or not os.path.isfile(os.path.join(real[0], "command.txt")):
    problems.append(f"sweep: want one new results folder beside the symlinks, got {real} (rc {rc}): {text[-400:]!r}")
if [n for n in os.listdir(tmp) if n.startswith("collbench-")]:
    problems.append(f"temporary files left in TMPDIR: {[n for n in os.listdir(tmp) if n.startswith('collbench-')]}")

# N24: tests/run refuses a bad CB_FUZZ_SECONDS before the CPU suite (it once ran the suite first)
none = os.path.join(tmp, "never-built")
p = subprocess.Popen([os.path.join(root, "tests", "run")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                     env=dict(os.environ, CB_FUZZ_SECONDS="5s", CB_BUILD_DIR=none), start_new_session=True)
try:
    text, _ = p.communicate(timeout=60)
except subprocess.TimeoutExpired:
    os.killpg(p.pid, signal.SIGKILL)
    text, _ = p.communicate()
    problems.append("tests/run with CB_FUZZ_SECONDS=5s: still running after 60 s (it should refuse at once)")
if p.returncode != 2 or "CB_FUZZ_SECONDS='5s'" not in text or os.path.exists(none):
    problems.append(f"tests/run CB_FUZZ_SECONDS=5s: rc {p.returncode} (want 2 before building), {text[-300:]!r}")

for p in problems:
    print("FAIL", p)
print("ok" if not problems else f"{len(problems)} problem(s)")
sys.exit(1 if problems else 0)
