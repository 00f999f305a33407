#!/usr/bin/env python3
"""CPU test of launcher/collbench-run stopped by signals as a terminal sends them and cut short
from outside (issue 42: P3, P5, P9, P25), with real mpirun, the real collbench-vnode, real
cmake/make, tee, plots and verdict, and standin_collbench.py ranks (this machine has no GPU:
see run_fixture.py; the ranks hold on for a minute after their rows, as real ranks waiting for
their peers hold their GPUs until the watchdog).

  terminal  SIGINT, SIGTERM and SIGHUP to the whole process group (a terminal's Ctrl-C, hangup,
            `kill -- -PGID`), SIGTERM to collbench-run alone, and its stdout closed early
            (`collbench-run | head -3`)
  outside   mpirun sent SIGTERM or SIGINT or killed, a rank killed, a rank crashing
  steps     a signal during the build (make running a long command), during the --profile step
            (an ncu that runs the profiled command), as soon as the results folder exists (it
            lands anywhere from the folder's files to mpirun's first rows: nothing holds that
            window open, so the folder is either removed, the run not started, or kept and
            marked incomplete; what must never happen is a lost signal), and after the run
            finished (its charts)

After each: collbench-run ends within seconds of the signal, no process of the run is left (found
by a marker in their environment), the exit code says interrupted (128 + the signal; 3 for a
crash), never 1 ("wrong results"), no traceback and no SIGSEGV; a folder cut short holds
incomplete.txt naming the cause and its summary and verdict say INCOMPLETE, a complete folder is
not called incomplete, and a signal before the run leaves no folder.

  gpu       (needs a GPU; label gpu) the terminal's signals, mpirun killed and stdout closed
            with the real collbench on this machine's GPUs: two ranks mid-sweep

usage: test_run_interrupt.py REPO_ROOT BUILD_DIR terminal|outside|steps|gpu"""
import glob
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_fixture  # noqa: E402

root, real_build, group = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
script = os.path.join(root, "launcher", "collbench-run")
fixture = os.path.join(root, "tests", "plots", "data", "verdict", "normal")
problems = []


def rows(path):
    try:
        with open(path) as f:
            return sum(1 for line in f if line.strip()) - 1
    except OSError:
        return -1


def mpirun_pids(mark):
    return [q for q in run_fixture.marked(mark) if open(f"/proc/{q}/cmdline", "rb").read().startswith(b"mpirun\0")]


def rank_pids(mark, rank):
    out = []
    for q in run_fixture.marked(mark):
        try:
            env = open(f"/proc/{q}/environ", "rb").read()
            cmd = open(f"/proc/{q}/cmdline", "rb").read()
        except OSError:
            continue
        if f"OMPI_COMM_WORLD_RANK={rank}\0".encode() in env and b"/launcher/collbench\0" in cmd:
            out.append(q)
    return out


def case(name, args, when, how, want_rc, want_folder, why=None, hold=60, build_seconds=0, nvlink_delay=0,
         extra_path=None, row_s=0.25, extra_env=None, real=None):
    """when: rows (6 rows written), folder (a results folder exists), build (make's child runs),
    profile (the profiled run has written 3 rows), json (results.json written: the run is over).
    how: group-SIG, pid-SIG, mpirun-SIG, rank1-SIG, head (stdout closed after 3 lines), wait (no
    signal: the run ends by itself).
    want_folder: incomplete (why in incomplete.txt), complete, none, none-or-incomplete (a
    signal whose moment the test cannot hold: either is right)."""
    tmp = tempfile.mkdtemp(prefix=f"cb-intr-{name}.")
    mark = f"CBTEST_MARK_{uuid.uuid4().hex}"
    if real:  # this machine's GPUs and the real collbench (real: the rank layout options)
        build = real_build
        env = dict(os.environ, TMPDIR=tmp, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    else:
        build = run_fixture.build_dir(tmp, real_build, standin=True, build_seconds=build_seconds)
        env = run_fixture.env_with(tmp, STANDIN_REAL=os.path.join(real_build, "launcher", "collbench"),
                                   STANDIN_RUN=fixture, STANDIN_ROW_S=str(row_s), STANDIN_HOLD_S=str(hold), TMPDIR=tmp)
        env["PATH"] = run_fixture.fake_gpus(tmp, nvlink_delay) + os.pathsep + env["PATH"]
    if extra_path:
        env["PATH"] = extra_path(tmp) + os.pathsep + env["PATH"]
    env.update(extra_env or {})
    env[mark] = "1"
    out = os.path.join(tmp, "out")
    log_path = os.path.join(tmp, "log")
    log = open(log_path, "w+")
    layout = real or ["--vnodes", "1", "--gpus", "2"]
    p = subprocess.Popen([script, "--build", build, "--out", out] + layout + args,
                         stdout=subprocess.PIPE if how == "head" else log, stderr=log, env=env,
                         start_new_session=True, preexec_fn=run_fixture.default_signals)
    t0 = time.time()
    ready = False
    seen = 0
    while time.time() - t0 < 90 and p.poll() is None:
        csvs = glob.glob(os.path.join(out, "*", "results.csv"))
        if when == "rows" and csvs and rows(csvs[0]) >= (3 if real else 6):
            ready = True
        elif when == "folder" and glob.glob(os.path.join(out, "*")):
            ready = True
        elif when == "build" and any(b"sleep" in open(f"/proc/{q}/cmdline", "rb").read()
                                     for q in run_fixture.marked(mark) if os.path.exists(f"/proc/{q}/cmdline")):
            ready = True
        elif when == "profile" and [c for c in glob.glob(os.path.join(out, "*", "profile-*.csv")) if rows(c) >= 3]:
            ready = True
        elif when == "json" and glob.glob(os.path.join(out, "*", "results.json")):
            ready = True
        elif how == "head":
            ready = True
        if ready:
            seen = rows(csvs[0]) if csvs else 0
            break
        time.sleep(0.05)
    if not ready:
        log.seek(0)
        problems.append(f"{name}: the run never got to '{when}' (rc {p.poll()}): {log.read()[-2000:]!r}")
        run_fixture.end(run_fixture.marked(mark))
        return
    lines = []
    if how == "head":
        for _ in range(3):
            lines.append(p.stdout.readline())
        p.stdout.close()  # `| head -3` exits
    elif how != "wait":
        sig = getattr(signal, "SIG" + how.split("-")[1])
        target = how.split("-")[0]
        if target == "group":
            os.killpg(p.pid, sig)
        elif target == "pid":
            os.kill(p.pid, sig)
        else:
            pids = mpirun_pids(mark) if target == "mpirun" else rank_pids(mark, 1)
            if not pids:
                problems.append(f"{name}: no {target} process found to signal")
            for q in pids:
                os.kill(q, sig)
    t_sig = time.time()
    if how == "head":
        # a closed stdout is noticed when the run next prints, as anywhere in a pipeline (a GPU
        # row at 1 GB can take a minute): the 20 s count from the first row after the close
        csvs = glob.glob(os.path.join(out, "*", "results.csv"))
        n0 = rows(csvs[0]) if csvs else 0
        while p.poll() is None and time.time() - t_sig < 240:
            csvs = glob.glob(os.path.join(out, "*", "results.csv"))
            if csvs and rows(csvs[0]) > n0:
                break
            time.sleep(0.1)
        t_sig = time.time()
    try:
        rc = p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        rc = None
        problems.append(f"{name}: collbench-run still running 20 s after the signal")
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    took = time.time() - t_sig
    time.sleep(1)
    left = run_fixture.marked(mark)
    if left:
        problems.append(f"{name}: processes of the run left after collbench-run ended: {run_fixture.describe(left)}")
        run_fixture.end(left)
    log.seek(0)
    text = log.read()
    if rc != want_rc:
        problems.append(f"{name}: exit {rc}, want {want_rc} ({took:.1f} s after the signal); output tail {text[-1500:]!r}")
    for bad in ("Traceback", "SIGSEGV" if "crash" not in name else "\0", "BrokenPipe"):
        if bad in text:
            problems.append(f"{name}: the output holds {bad!r}: {text[-1500:]!r}")
    dirs = sorted(glob.glob(os.path.join(out, "*")))
    if want_folder == "none-or-incomplete":
        want_folder = "incomplete" if dirs else "none"
    if want_folder == "none":
        if dirs:
            problems.append(f"{name}: a results folder was left: {dirs} {[os.listdir(d) for d in dirs]}")
        return
    if len(dirs) != 1:
        problems.append(f"{name}: {len(dirs)} results folders {dirs}: want one (the suite stops at the first)")
        return
    d = dirs[0]
    inc = os.path.join(d, "incomplete.txt")
    summary = open(os.path.join(d, "summary.md")).read() if os.path.isfile(os.path.join(d, "summary.md")) else ""
    head, _, verdict = summary.partition("## Verdict")
    if want_folder == "complete":
        if os.path.exists(inc) or "is incomplete" in text or "INCOMPLETE" in summary:
            problems.append(f"{name}: a complete run is called incomplete: {text[-800:]!r}")
        if not os.path.isfile(os.path.join(d, "results.json")):
            problems.append(f"{name}: no results.json in the complete run {d}")
        return
    final = rows(os.path.join(d, "results.csv"))
    if max(final, 0) < seen or (final >= 40 and not real):  # -1: no results.csv (signal before the rows)
        problems.append(f"{name}: {final} rows at the end, {seen} seen when signalled, 40 in the full run")
    if os.path.exists(os.path.join(d, "results.json")):
        problems.append(f"{name}: a cut-short run has results.json")
    reason = open(inc).read() if os.path.isfile(inc) else ""
    if not reason:
        problems.append(f"{name}: no incomplete.txt in {d}")
    elif why and why not in reason:
        problems.append(f"{name}: incomplete.txt says {reason.strip()!r}, want {why!r}")
    if final > 0:
        if "INCOMPLETE: interrupted" not in head:
            problems.append(f"{name}: summary.md does not open with INCOMPLETE: interrupted: {head[:300]!r}")
        if "INCOMPLETE: interrupted" not in verdict:
            problems.append(f"{name}: the verdict section does not say INCOMPLETE: interrupted: {verdict[:300]!r}")


nop = ["--no-plots"]
one = ["--", "allreduce"]
if group == "terminal":
    # Ctrl-C during the default suite: one folder (allreduce), not four; the charts too
    case("group-INT-suite", [], "rows", "group-INT", 130, "incomplete", "SIGINT to collbench-run")
    case("group-INT", nop + one, "rows", "group-INT", 130, "incomplete", "SIGINT to collbench-run")
    case("group-TERM", one, "rows", "group-TERM", 143, "incomplete", "SIGTERM to collbench-run")
    case("group-HUP", nop + one, "rows", "group-HUP", 129, "incomplete", "SIGHUP to collbench-run")
    case("pid-TERM", nop + one, "rows", "pid-TERM", 143, "incomplete", "SIGTERM to collbench-run")
    case("pid-HUP", nop + one, "rows", "pid-HUP", 129, "incomplete", "SIGHUP to collbench-run")
    case("stdout-closed", nop + one, "rows", "head", 141, "incomplete", "output was closed")
elif group == "outside":
    case("mpirun-TERM", nop + one, "rows", "mpirun-TERM", 143, "incomplete", "mpirun ended (exit 1) before")
    case("mpirun-INT", nop + one, "rows", "mpirun-INT", 143, "incomplete", "mpirun ended (exit 1) before")
    case("mpirun-KILL", nop + one, "rows", "mpirun-KILL", 137, "incomplete", "mpirun was killed by SIGKILL")
    case("rank1-KILL", nop + one, "rows", "rank1-KILL", 137, "incomplete", "a rank was killed by SIGKILL")
    case("rank1-TERM", nop + one, "rows", "rank1-TERM", 143, "incomplete", "a rank was killed by SIGTERM")
    # a rank that crashes by itself: no signal from outside, exit 3 (a runtime failure)
    case("rank0-crash", nop + one, "rows", "wait", 3, "incomplete", "a rank crashed (SIGSEGV)",
         extra_env={"STANDIN_CRASH_ROW": "8"})
elif group == "steps":
    case("build-TERM", nop + one, "build", "pid-TERM", 143, "none", build_seconds=120)
    case("build-INT-group", nop + one, "build", "group-INT", 130, "none", build_seconds=120)
    case("folder-TERM", nop + one, "folder", "pid-TERM", 143, "none-or-incomplete")
    case("folder-HUP-group", nop + one, "folder", "group-HUP", 129, "none-or-incomplete")
    case("profile-TERM", nop + ["--profile", "ncu:nccl:8"] + one, "profile", "pid-TERM", 143, "complete", hold=0,
         extra_path=run_fixture.ncu_passthrough, row_s=0.1)
    case("charts-TERM", one, "json", "pid-TERM", 143, "complete", hold=0, row_s=0.02)
elif group == "gpu":
    # the same with the real collbench on this machine's GPUs (two ranks; sharing one GPU when
    # there is one): ranks in NCCL and in custom kernels when the signal comes
    gpus = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout.count("GPU ") \
        if subprocess.run(["sh", "-c", "command -v nvidia-smi"], capture_output=True).returncode == 0 else 0
    if gpus == 0:
        print("SKIP: no GPU here")
        sys.exit(77)
    layout = ["--vnodes", "1", "--gpus", "2"] + ([] if gpus >= 2 else ["--share-gpus"])
    run = nop + ["--", "allreduce", "-b", "1M", "-e", "1G", "-f", "2", "-n", "200", "-w", "5", "-T", "60"]
    case("gpu-group-INT", run, "rows", "group-INT", 130, "incomplete", "SIGINT to collbench-run", real=layout)
    case("gpu-group-TERM", run, "rows", "group-TERM", 143, "incomplete", "SIGTERM to collbench-run", real=layout)
    case("gpu-group-HUP", run, "rows", "group-HUP", 129, "incomplete", "SIGHUP to collbench-run", real=layout)
    case("gpu-mpirun-KILL", run, "rows", "mpirun-KILL", 137, "incomplete", "mpirun was killed by SIGKILL", real=layout)
    case("gpu-stdout-closed", run, "rows", "head", 141, "incomplete", "output was closed", real=layout)
else:
    sys.exit(f"usage: {sys.argv[0]} REPO_ROOT BUILD_DIR terminal|outside|steps|gpu")

for p in problems:
    print("FAIL", p)
print("ok" if not problems else f"{len(problems)} problem(s)")
sys.exit(1 if problems else 0)
