#!/usr/bin/env python3
"""CPU test of launcher/collbench-run's plan before its side effects, its names, and its no-GPU
path (issue 42: P1, P2, P6, P8, P13, P14, P15, P17, P20, P21, P22, P23, P26; issue 44: the no-GPU
order and message, an unreachable host, --sbatch's --partition/--account/--time, --fail-on),
with the real collbench (its parser), collbench-topo, mpirun, scontrol and srun (Slurm's own
host-list and plugin answers: a minimal slurm.conf, no daemon), a stand-in nvidia-smi listing two
GPUs, and standin_collbench.py ranks where a run must get going (run_fixture.py).

Each refusal: the exit code, one line naming the problem, and nothing made (no results folder,
no script, no file at a planted name). A run that must happen: its folder as asked.

usage: test_run_plan.py REPO_ROOT BUILD_DIR"""
import glob
import json
import os
import shlex
import shutil
import socket
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_fixture  # noqa: E402

root, real_build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
script = os.path.join(root, "launcher", "collbench-run")
fixtures = os.path.join(root, "tests", "plots", "data", "verdict")
xml = os.path.join(root, "topologies", "h200x2-vm.xml")
tmp = tempfile.mkdtemp(prefix="cb-run-plan.")
build = run_fixture.build_dir(tmp, real_build)
sbuild = run_fixture.build_dir(tmp, real_build, standin=True, name="standin-build")
ncu_dir = run_fixture.ncu_passthrough(tmp)
gpu_env = run_fixture.env_with(tmp, TMPDIR=tmp, STANDIN_REAL=os.path.join(real_build, "launcher", "collbench"),
                               STANDIN_RUN=os.path.join(fixtures, "normal"), STANDIN_ROW_S="0.01")
for k in [k for k in gpu_env if k.startswith("SLURM_")]:
    del gpu_env[k]
# no GPU: PATH without the stand-in nvidia-smi (nor any other)
nogpu_env = dict(gpu_env, PATH=os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                                               if not os.path.exists(os.path.join(p, "nvidia-smi"))))
problems = []
count = 0


def run(args, env=None, cwd=None, use_build=None, timeout=180):
    p = subprocess.run([script, "--build", use_build or build] + args, capture_output=True, text=True,
                       timeout=timeout, env=env or gpu_env, cwd=cwd or tmp)
    return p.returncode, p.stdout + p.stderr


def fresh(label):
    d = os.path.join(tmp, "out-" + str(len(glob.glob(os.path.join(tmp, "out-*")))))
    os.mkdir(d)
    return d


def refused(label, args, want_rc, want_msg, env=None, one_line=True, use_build=None):
    """Exit want_rc with want_msg, one line on stderr (when one_line), no results folder."""
    global count
    count += 1
    out = fresh(label)
    rc, text = run(["--no-plots", "--out", out] + args, env, use_build=use_build)
    lines = [ln for ln in text.strip().splitlines() if ln.startswith("collbench-run") or "error" in ln]
    if rc != want_rc or want_msg not in text:
        problems.append(f"{label}: rc {rc} (want {want_rc}), output {text.strip()[-500:]!r} lacks {want_msg!r}")
    elif one_line and len(text.strip().splitlines()) != 1:
        problems.append(f"{label}: want one line, got {text.strip()!r}")
    if os.listdir(out):
        problems.append(f"{label}: a results folder was made: {os.listdir(out)}")
    return lines


# --- P21 and the no-GPU order (issue 44): arguments first, answers at once -------------------
for label, env in (("fake GPUs", gpu_env), ("no GPU", nogpu_env)):
    refused(f"P21 --algo help ({label})", ["--", "allreduce", "--algo", "help"], 0, "twoshot_pull", env, one_line=False)
    refused(f"P21 --algo=help ({label})", ["--", "moe", "--algo=help"], 0, "moe algorithms", env, one_line=False)
    refused(f"P21 --help ({label})", ["--", "ringattn", "--help"], 0, "usage: collbench FAMILY", env, one_line=False)
    refused(f"no-GPU order: family typo ({label})", ["--", "allredcue"], 2, "unknown family 'allredcue'", env)
    refused(f"no-GPU order: bad size ({label})", ["--", "allreduce", "-e", "8Q"], 2, "-e: '8Q' is not a size", env)
    refused(f"no-GPU order: a knob typo ({label})", ["--", "allreduce"], 2, "did you mean CB_SMS",
            dict(env, CB_SM="8"))
lines = refused("no GPU: exit 5 and what works here", ["--", "allreduce"], 5, "no NVIDIA GPU", nogpu_env, one_line=False)
rc, text = run(["--no-plots", "--", "allreduce"], nogpu_env)
for want in ("collbench-topo --xml", "--target collbench-topo", "plots/plot results/reference", "--nccl-tests",
             "--sbatch", "--gpus"):
    if want not in text:
        problems.append(f"no GPU: the message does not name {want!r}: {text!r}")
# and without a build there is nothing to build for: exit 5 at once, nothing built
nobuild = os.path.join(tmp, "never-built")
rc, text = run(["--no-plots", "--", "allreduce"], nogpu_env, use_build=nobuild)
if rc != 5 or os.path.exists(nobuild):
    problems.append(f"no GPU, no build: rc {rc} (want 5), {nobuild} made: {os.path.exists(nobuild)}")

# --- P22: host names ------------------------------------------------------------------------
for hosts, msg in (("a,A", "'A' is named more than once"), ("a,a.", "'a.' is named more than once"),
                   ("Node1.,node1", "'node1' is named more than once"), ("-x", "'-x' is not a host name"),
                   ("a,-b", "'-b' is not a host name"), (".a,b", "'.a' is not a host name"),
                   ("a:4,b", "'a:4,b' is not a comma-separated list"), ("a b", "'a b' is not"),
                   ("a,,b", "'a,,b' is not"), ("a,b=c", "'a,b=c' is not"), ("x" * 300, "is not a host name")):
    refused(f"P22 --hosts {hosts[:20]}", ["--hosts", hosts, "--gpus", "1", "--", "allreduce"], 2, msg)

# --- P23: CB_* knobs nothing reads (the known ones are read from the binary) -----------------
for var, near in (("CB_SM", "CB_SMS"), ("CB_MAXBLOCKS", "CB_MAX_BLOCKS"), ("CB_AR_LL_MAXX", "CB_AR_LL_MAX"),
                  ("CB_SHARE_GPU", "CB_SHARE_GPUS"), ("CB_MOE_PUSH", "CB_MOE_PUSH_PCT")):
    refused(f"P23 {var}", ["--vnodes", "1", "--gpus", "2", "--", "allreduce"], 2, f"{var} is not a variable collbench "
            f"reads (it would be passed to every rank and ignored); did you mean {near}?", dict(gpu_env, **{var: "8"}))
rc, text = run(["--no-plots", "--out", fresh("P23 known"), "--vnodes", "1", "--gpus", "2", "--", "allreduce"],
               dict(gpu_env, CB_SMS="8", CB_AR_LL_MAX="4096"))
if "is not a variable collbench reads" in text:
    problems.append(f"P23: a known knob refused: {text[-300:]!r}")

# --- P1, P2, P26: the --sbatch script is written as a new file --------------------------------
victim = os.path.join(tmp, "victim")
with open(victim, "w") as f:
    f.write("precious\n")
os.symlink("/proc/self/fd/1", os.path.join(tmp, "to-stdout"))
os.symlink(victim, os.path.join(tmp, "to-victim"))
os.symlink(os.path.join(tmp, "created-by-dangling"), os.path.join(tmp, "dangling"))
os.mkfifo(os.path.join(tmp, "fifo"))
# a device node like /dev/null's, made here: the test must never aim at the system's own (code
# with the defect replaced /dev/null with a regular file)
device = os.path.join(tmp, "null-device")
if os.geteuid() == 0:
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
else:
    os.mkfifo(device)
sb = ["--gpus", "2", "--nodes", "1"]
for name, msg in (("null-device", "a device, FIFO or socket"), ("to-stdout", "a symbolic link is there"),
                  ("to-victim", "a symbolic link is there"), ("dangling", "a symbolic link is there"),
                  ("fifo", "a device, FIFO or socket"), ("f.sh/", "names a folder"), (tmp, "a folder is there"),
                  ("new\nline.sh", "a path with a line break")):
    target = name if name.startswith("/") else os.path.join(tmp, name)
    refused(f"P1 --sbatch {name!r}", ["--sbatch", target] + sb + ["--", "allreduce"], 2, msg)
if os.path.isfile(device) or open(victim).read() != "precious\n" \
        or os.path.exists(os.path.join(tmp, "created-by-dangling")) or not os.path.islink(os.path.join(tmp, "to-stdout")):
    problems.append("P1: a planted name was replaced or written through")
# P2: links planted at the old temporary's name (job.sh.tmp), dangling or not, are never used
for plant in (victim, os.path.join(tmp, "created-by-tmp")):
    job = os.path.join(tmp, "job.sh")
    for p in (job, job + ".tmp"):
        if os.path.lexists(p):
            os.remove(p)
    os.symlink(plant, job + ".tmp")
    rc, text = run(["--sbatch", job] + sb + ["--", "allreduce"])
    if rc != 0 or not os.path.isfile(job) or os.path.islink(job) or open(victim).read() != "precious\n" \
            or os.path.exists(os.path.join(tmp, "created-by-tmp")):
        problems.append(f"P2 a link at job.sh.tmp to {plant}: rc {rc}, written through or no script: {text!r}")
    if len(text.strip().splitlines()) != 1 or "submit it with: sbatch " + job not in text:
        problems.append(f"P2: want one line with the submit hint, got {text!r}")
# an existing script (a regular file) is replaced: the user regenerates it
rc, text = run(["--sbatch", os.path.join(tmp, "job.sh"), "--gpus", "2", "--nodes", "3", "--", "allreduce"])
if rc != 0 or "#SBATCH --nodes=3" not in open(os.path.join(tmp, "job.sh")).read():
    problems.append(f"--sbatch over an existing script: rc {rc}: {text!r}")
# P26: the hint is quoted as a shell word
spaced = os.path.join(tmp, "my job.sh")
rc, text = run(["--sbatch", spaced] + sb + ["--", "allreduce"])
if rc != 0 or "submit it with: sbatch " + shlex.quote(spaced).replace("'", "") not in text.replace("\\ ", " ").replace("'", ""):
    problems.append(f"P26 the submit hint of {spaced!r}: {text!r}")
if "sbatch " + spaced + "\n" in text:
    problems.append(f"P26 the submit hint is not quoted: {text!r}")

# --- P26: NIC names reach JSON only through collbench's own writer ----------------------------
# limits.sh wrote limits.json with NIC names unescaped; the hardware's limits are now recorded by
# the ranks alone (results.json's meta.limits: launcher/meta_json.c writes names through
# cb_sb_json_str, test_meta puts a NIC named q"x\y through it), and no launcher script writes
# NIC names into JSON by hand.
for name in sorted(os.listdir(os.path.join(root, "launcher"))):
    path = os.path.join(root, "launcher", name)
    if name.endswith(".sh") or name in ("collbench-run", "collbench-vnode"):
        with open(path, encoding="utf-8", errors="replace") as f:
            if '"nics"' in f.read():
                problems.append(f"P26 launcher/{name} writes NIC names into JSON by hand")

# --- P6: the plan is checked before the script ------------------------------------------------
bad_xml = os.path.join(tmp, "bad.xml")
with open(bad_xml, "w") as f:
    f.write("<topology>not hwloc</topology>\n")
for label, args in (("--topo /etc/hosts", ["--topo", "/etc/hosts", "--gpus", "2"]),
                    ("--topo bad.xml", ["--topo", bad_xml, "--gpus", "2"]),
                    ("8 GPUs on a 2-GPU node type", ["--topo", xml, "--gpus", "8"]),
                    ("3 GPUs on a 2-GPU node type", ["--topo", xml, "--gpus", "3"])):
    job = os.path.join(tmp, "p6.sh")
    refused(f"P6 {label}", ["--sbatch", job, "--nodes", "2"] + args + ["--", "allreduce"], 2, "collbench-topo rejects")
    if os.path.lexists(job):
        problems.append(f"P6 {label}: a script was written")
# P26: one prefix, not "collbench-topo: collbench-topo:"
lines = refused("P26 collbench-topo's message once", ["--topo", bad_xml, "--", "allreduce"], 2, "collbench-topo:")
rc, text = run(["--no-plots", "--out", fresh("p26"), "--topo", bad_xml, "--", "allreduce"])
if "collbench-topo: collbench-topo:" in text:
    problems.append(f"P26: double prefix: {text!r}")

# --- P17: --sbatch makes --topo, --out and --build absolute; P15 there too -------------------
sub = os.path.join(tmp, "submit-from")
os.mkdir(sub)
os.symlink(xml, os.path.join(sub, "node.xml"))
rel_build = os.path.relpath(build, sub)
p = subprocess.run([script, "--build", rel_build, "--topo", "node.xml", "--out", "-y", "--sbatch", "j.sh",
                    "--nodes", "2", "--partition", "gpu,debug", "--account", "proj-1", "--time", "1-00:30:00",
                    "--", "allreduce", "-b", "8"], capture_output=True, text=True, env=gpu_env, cwd=sub, timeout=120)
job = os.path.join(sub, "j.sh")
if p.returncode != 0 or not os.path.isfile(job):
    problems.append(f"P17 --sbatch with relative paths: rc {p.returncode}: {p.stdout + p.stderr!r}")
else:
    text = open(job).read()
    exec_line = [ln for ln in text.splitlines() if ln.startswith("exec ")][0]
    words = shlex.split(exec_line)[1:]
    for opt in ("--topo", "--out", "--build"):
        if opt not in words or not words[words.index(opt) + 1].startswith("/"):
            problems.append(f"P17: {opt} is not given an absolute path in {exec_line!r}")
    if os.path.join(sub, "-y") not in words:
        problems.append(f"P15/P17: --out -y is not {os.path.join(sub, '-y')} in {exec_line!r}")
    for want in ("#SBATCH --partition=gpu,debug", "#SBATCH --account=proj-1", "#SBATCH --time=1-00:30:00",
                 f"results go to\" {shlex.quote(os.path.join(sub, '-y'))}", "# Results: one folder per family under"):
        if want not in text:
            problems.append(f"--sbatch script lacks {want!r}:\n{text}")
    for bad in ("--sbatch", "--nodes", "--partition", "--account", "--time"):
        if bad in words:
            problems.append(f"--sbatch: {bad} left in the job's command {exec_line!r}")
    r = subprocess.run(["bash", "-n", job], capture_output=True, text=True)
    if r.returncode:
        problems.append(f"bash -n {job}: {r.stderr}")

# --- issue 44: --partition, --account, --time, --fail-on checked before anything -------------
long_value = "a" * 100000
job = os.path.join(tmp, "opts.sh")
for opt, val, msg in (("--partition", "gpu\nx", "--partition: $'gpu\\nx' is not"),
                      ("--partition", long_value, "--partition: a value of 100000 characters"),
                      ("--account", "a b", "--account: 'a b' is not"),
                      ("--account", long_value, "--account: a value of 100000 characters"),
                      ("--time", "1h", "--time: '1h' is not a Slurm time limit"),
                      ("--time", "1\n2", "--time: $'1\\n2' is not"),
                      ("--time", long_value, "--time: a value of 100000 characters")):
    refused(f"--sbatch {opt} {val[:10]!r}", ["--sbatch", job, "--nodes", "1", "--gpus", "2", opt, val, "--", "allreduce"],
            2, msg)
    if os.path.lexists(job):
        problems.append(f"{opt}: a script was written")
refused("--partition without --sbatch", ["--partition", "gpu", "--", "allreduce"], 2, "go into an --sbatch script")
for word in ("fast", "SLOW", "slow\nx", long_value):
    refused(f"--fail-on {word[:10]!r}", ["--fail-on", word, "--", "allreduce"], 2, "--fail-on: unknown word", nogpu_env)

# --- P20, P8: the --profile spec against the run, before it -----------------------------------
ncu_env = dict(gpu_env, PATH=ncu_dir + os.pathsep + gpu_env["PATH"])
for spec in ("ncu:twoshot:8388608T", "ncu:twoshot:9999999999999T", "ncu:twoshot:8796093022209G",
             "ncu:twoshot:9007199254740993"):
    refused(f"P20 --profile {spec}", ["--profile", spec, "--vnodes", "1", "--gpus", "2", "--", "allreduce"], 2,
            "--profile: SIZE", ncu_env)
refused("P8 --profile ALGO the family lacks", ["--profile", "ncu:twoshot", "--vnodes", "1", "--gpus", "2", "--", "moe"], 2,
        "no algorithm 'twoshot' in moe", ncu_env)
refused("P8 --profile ALGO no family has", ["--profile", "ncu:nosuch", "--vnodes", "1", "--gpus", "2"], 2,
        "no algorithm 'nosuch'", ncu_env)
# --sizes with a profile SIZE: the profiled run's sweep is the one SIZE (collbench once refused
# "--sizes replaces -b/-e" after the whole run); collbench's parser checks it as a rank
out = fresh("p8-sizes")
rc, text = run(["--no-plots", "--out", out, "--profile", "ncu:nccl:1M", "--vnodes", "1", "--gpus", "2", "--",
                "allreduce", "--sizes", "8,1M"], ncu_env, use_build=sbuild)
logs = glob.glob(os.path.join(out, "*", "profile-nccl-1048576.log"))
if rc != 0 or not logs or "replaces" in open(logs[0]).read() or not glob.glob(os.path.join(out, "*", "profile-nccl-1048576.csv")):
    problems.append(f"P8 --sizes with ncu:nccl:1M: rc {rc}: {text[-600:]!r} {logs}")
# the default suite: twoshot is allreduce's only; the others are not profiled, and said so first
out = fresh("p8-suite")
rc, text = run(["--no-plots", "--out", out, "--profile", "ncu:twoshot", "--vnodes", "1", "--gpus", "2"],
               dict(ncu_env, STANDIN_RUN=os.path.join(root, "results", "reference", "h200x2", "allreduce"),
                    STANDIN_ROW_S="0.001"), use_build=sbuild, timeout=300)
profiled = sorted(os.path.basename(os.path.dirname(f)).split("-")[-1] for f in glob.glob(os.path.join(out, "*", "profile-*.log")))
if rc != 0 or "profiles allreduce only (alltoall moe ringattn have no twoshot)" not in text or set(profiled) != {"allreduce"}:
    problems.append(f"P8 --profile ncu:twoshot on the suite: rc {rc}, profiled {profiled}: {text[-800:]!r}")

# --- P15: --out -y is a folder named -y, charted and judged --------------------------------
cwd = os.path.join(tmp, "cwd")
os.mkdir(cwd)
rc, text = run(["--out", "-y", "--vnodes", "1", "--gpus", "2", "--", "allreduce"], cwd=cwd, use_build=sbuild)
summ = glob.glob(os.path.join(cwd, "-y", "*", "summary.md"))
if rc != 0 or not summ or "## Verdict" not in open(summ[0]).read() or not glob.glob(os.path.join(cwd, "-y", "*", "*.png")):
    problems.append(f"P15 --out -y: rc {rc}, summary {summ}: {text[-600:]!r}")

# --- P13, P14: the Slurm allocation, checked as --hosts is, before any folder ----------------
if shutil.which("scontrol") and shutil.which("srun"):
    conf = os.path.join(tmp, "slurm.conf")
    with open(conf, "w") as f:
        f.write("ClusterName=cbplan\nSlurmctldHost=localhost\n")
    badconf = os.path.join(tmp, "bad-slurm.conf")
    with open(badconf, "w") as f:
        f.write("not a slurm.conf\n")
    host = socket.gethostname()

    def slurm(nodelist, nnodes, conf_path=conf, **more):
        env = dict(gpu_env, SLURM_JOB_ID="4242", SLURM_JOB_NODELIST=nodelist, SLURM_JOB_NUM_NODES=str(nnodes),
                   SLURM_NNODES=str(nnodes), SLURM_CONF=conf_path)
        env.update(more)
        return env
    for label, env, msg in (
            ("vm,vm", slurm(f"{host},{host}", 2), f"'{host}' is named more than once"),
            ("a,A", slurm("nodea,NODEA", 2), "'NODEA' is named more than once"),
            ("node[1-3] with 1 node", slurm("node[1-3]", 1), "names 3 node(s) but the job has 1"),
            ("a node list scontrol cannot read", slurm("node[1-3]", 3, badconf), "cannot read its node list"),
            ("no node list", slurm("", 1), "SLURM_JOB_NODELIST is not set"),
            ("a bad node count", slurm(host, "x"), "is not a number"),
            ("a name with a leading -", slurm("-x", 1), "'-x' is not a host name"),
            ("P14 salloc -n1 with --gpus 2", slurm(host, 1, SLURM_NTASKS="1"), "holds 1 task(s) (SLURM_NTASKS) but the run needs 2"),
            ("P14 one CPU for 2 tasks", slurm(host, 1, SLURM_JOB_CPUS_PER_NODE="1"), "holds 1 CPU(s) on a node")):
        gpus = ["--gpus", "2"]
        refused(f"P13 {label}", gpus + ["--", "allreduce"], 2, msg, env, one_line=not label.startswith("P14"))
else:
    print("skip: P13/P14 (no scontrol or srun here; tests/run installs Slurm)")

# --- issue 44: an unreachable host names the real cause, not "killed by SIG127" --------------
out = fresh("unreachable")
rc, text = run(["--no-plots", "--out", out, "--hosts", "nosuchhost-cbtest.invalid", "--gpus", "1", "--", "allreduce"],
               timeout=120)
inc = glob.glob(os.path.join(out, "*", "incomplete.txt"))
reason = open(inc[0]).read() if inc else ""
if rc != 3 or "SIG127" in text or "killed" in text or "did not start collbench" not in reason:
    problems.append(f"unreachable host: rc {rc} (want 3), incomplete.txt {reason!r}: {text[-600:]!r}")
elif not any(w in reason for w in ("nosuchhost", "could not be found", "unable to reliably start")):
    problems.append(f"unreachable host: incomplete.txt does not name the cause: {reason!r}")

# --- issue 44: --fail-on slow returns the verdict's exit 6 ----------------------------------
if "--fail-on" in subprocess.run([os.path.join(root, "plots", "plot"), "--help"], capture_output=True, text=True).stdout:
    slow_env = dict(gpu_env, STANDIN_RUN=os.path.join(fixtures, "slow"))
    for args, want in ((["--fail-on", "slow"], 6), ([], 0)):
        out = fresh("fail-on")
        rc, text = run(["--no-plots", "--out", out] + args + ["--vnodes", "1", "--gpus", "2", "--", "allreduce"],
                       slow_env, use_build=sbuild)
        if rc != want or "SLOW" not in text:
            problems.append(f"--fail-on {args}: a SLOW run exits {rc}, want {want}: {text[-600:]!r}")
else:
    print("skip: --fail-on slow's exit 6 (plots/plot has no --fail-on here)")

for p in problems:
    print("FAIL", p)
print(f"ok ({count} refusals and the runs)" if not problems else f"{len(problems)} problem(s)")
sys.exit(1 if problems else 0)
