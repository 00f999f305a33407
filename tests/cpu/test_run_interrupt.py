#!/usr/bin/env python3
"""CPU test of an interrupted launcher/collbench-run (issue 32, N4) with real mpirun, the real
collbench-vnode and standin_collbench.py ranks (this machine has no GPU: see run_fixture.py):

  SIGINT to the process group (Ctrl-C) during the default suite, SIGTERM and SIGHUP to
  collbench-run alone (kill PID), and SIGKILL to one rank.

Each must leave no process of the run behind within -T + 5 s (found by a marker in their
environment), exit 130 / 143 / 129 (3 for the killed rank), stop the whole suite (one results
folder), keep every row written before the signal, and mark the folder incomplete:
incomplete.txt, and "INCOMPLETE: interrupted" in summary.md and in its verdict section.

usage: test_run_interrupt.py REPO_ROOT BUILD_DIR"""
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

root, real_build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
script = os.path.join(root, "launcher", "collbench-run")
fixture = os.path.join(root, "tests", "plots", "data", "verdict", "normal")
T = 5  # collbench's -T: everything must be gone within T + 5 s of the signal
problems = []


def marked(mark):
    """PIDs of the processes whose environment carries mark."""
    pids = []
    for d in glob.glob("/proc/[0-9]*"):
        try:
            with open(d + "/environ", "rb") as f:
                if mark.encode() in f.read():
                    pids.append(int(d[6:]))
        except OSError:
            pass
    return [p for p in pids if p != os.getpid()]


def rows(path):
    try:
        with open(path) as f:
            return sum(1 for line in f if line.strip()) - 1
    except OSError:
        return -1


def case(name, how, args, want_rc):
    tmp = tempfile.mkdtemp(prefix=f"cb-intr-{name}.")
    build = run_fixture.build_dir(tmp, real_build, standin=True)
    mark = f"CBTEST_MARK_{uuid.uuid4().hex}"
    env = run_fixture.env_with(tmp, STANDIN_REAL=os.path.join(real_build, "launcher", "collbench"),
                               STANDIN_RUN=fixture, STANDIN_ROW_S="0.25", TMPDIR=tmp)
    env[mark] = "1"
    out = os.path.join(tmp, "out")
    log = open(os.path.join(tmp, "log"), "w+")
    p = subprocess.Popen([script, "--build", build, "--out", out, "--vnodes", "1", "--gpus", "2"] + args,
                         stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    t0 = time.time()
    csvs = []
    while time.time() - t0 < 60 and p.poll() is None:
        csvs = glob.glob(os.path.join(out, "*", "results.csv"))
        if csvs and rows(csvs[0]) >= 6:
            break
        time.sleep(0.1)
    if not csvs or p.poll() is not None:
        log.seek(0)
        problems.append(f"{name}: the run never got going (rc {p.poll()}): {log.read()[-2000:]!r}")
        return
    seen = rows(csvs[0])
    if how == "kill-rank":
        ranks = [pid for pid in marked(mark)
                 if b"OMPI_COMM_WORLD_RANK=1\0" in open(f"/proc/{pid}/environ", "rb").read()
                 and b"launcher/collbench\0" in open(f"/proc/{pid}/cmdline", "rb").read()]
        if not ranks:
            problems.append(f"{name}: no rank 1 process found")
        for pid in ranks:
            os.kill(pid, signal.SIGKILL)
    elif how == "INT":
        os.killpg(p.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
    else:
        os.kill(p.pid, getattr(signal, "SIG" + how))
    t_sig = time.time()
    try:
        rc = p.wait(timeout=T + 60)
    except subprocess.TimeoutExpired:
        rc = None
        problems.append(f"{name}: collbench-run still running {T + 60} s after the signal")
    while marked(mark) and time.time() - t_sig < T + 5:
        time.sleep(0.2)
    left = marked(mark)
    if left:
        problems.append(f"{name}: processes left {T + 5} s after the signal: "
                        + "; ".join(open(f"/proc/{q}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
                                    for q in left if os.path.exists(f"/proc/{q}")))
        for q in left:  # ours (started above): end them so they do not outlive the test
            try:
                os.kill(q, signal.SIGKILL)
            except OSError:
                pass
    log.seek(0)
    text = log.read()
    if rc != want_rc:
        problems.append(f"{name}: exit {rc}, want {want_rc}; output tail {text[-1500:]!r}")
    dirs = sorted(glob.glob(os.path.join(out, "*")))
    if len(dirs) != 1:
        problems.append(f"{name}: {len(dirs)} results folders {dirs}: the suite must stop at the first")
    if not dirs:
        return
    d = dirs[0]
    final = rows(os.path.join(d, "results.csv"))
    if final < seen or final >= 40:
        problems.append(f"{name}: {final} rows at the end, {seen} seen when signalled, 40 in the full run")
    inc = os.path.join(d, "incomplete.txt")
    if not os.path.isfile(inc):
        problems.append(f"{name}: no incomplete.txt in {d}")
    summary = open(os.path.join(d, "summary.md")).read() if os.path.isfile(os.path.join(d, "summary.md")) else ""
    head, _, verdict = summary.partition("## Verdict")
    if "INCOMPLETE: interrupted" not in head:
        problems.append(f"{name}: summary.md does not open with INCOMPLETE: interrupted: {head[:300]!r}")
    if "INCOMPLETE: interrupted" not in verdict:
        problems.append(f"{name}: the verdict section does not say INCOMPLETE: interrupted: {verdict[:300]!r}")
    if how == "kill-rank" and "killed" not in (open(inc).read() if os.path.isfile(inc) else ""):
        problems.append(f"{name}: incomplete.txt does not say a rank was killed")


# Ctrl-C during the default suite: one folder (allreduce), not four
case("sigint-suite", "INT", ["--no-plots"], 130)
case("sigterm", "TERM", ["--", "allreduce", "-T", str(T)], 143)
case("sighup", "HUP", ["--no-plots", "--", "allreduce", "-T", str(T)], 129)
case("killed-rank", "kill-rank", ["--no-plots", "--", "allreduce", "-T", str(T)], 3)

for p in problems:
    print("FAIL", p)
print("ok" if not problems else f"{len(problems)} problem(s)")
sys.exit(1 if problems else 0)
