#!/usr/bin/env python3
"""The planted-symlink sweep (issue 32): for each file the collbench and collbench-topo programs
write, a symlink planted at its name (and at the temporary names beside it) is never followed:
its target is unchanged, and the program either refuses with a message (exit 2) or writes a
new file in its place. (The result writer itself, cb_report_*, is swept with every row written
by check_report.py's symlinks mode; the --save folder's files by test_attn_config.)

usage: test_symlink_sweep.py COLLBENCH COLLBENCH_TOPO TOPODIR WORKDIR MPIRUN [MPIRUN_FLAGS...]
"""
import os
import shutil
import subprocess
import sys

problems = []


def fail(msg):
    problems.append(msg)
    print("test_symlink_sweep: FAIL:", msg)


def plant(work, name):
    """A symlink at work/name to a fresh target file; returns (link, target)."""
    target = os.path.join(work, "target-of-" + name)
    with open(target, "w") as f:
        f.write("planted\n")
    link = os.path.join(work, name)
    os.symlink(target, link)
    return link, target


def untouched(target):
    with open(target) as f:
        return f.read() == "planted\n"


def main():
    cb, topo, topodir, work, mpirun, flags = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")

    # collbench: --csv, --json and the JSON's rows file, each a planted symlink. The checks after
    # MPI_Init probe each folder with a new file; nothing may reach the targets, whatever the run's end
    # (no GPU here: exit 5; with GPUs the run replaces the links with its own files).
    links = [plant(work, n) for n in ("r.csv", "r.json", "r.json.partial.jsonl", "r.json.tmp")]
    cmd = ["timeout", "120", mpirun, *flags, "-np", "1", cb, "allreduce", "-b", "8", "-e", "8", "-n", "1", "-w", "0",
           "--csv", links[0][0], "--json", links[1][0]]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=150)
    print(f"collbench --csv/--json on symlinks: exit {p.returncode}")
    for link, target in links:
        if not untouched(target):
            fail(f"collbench wrote through the symlink {link}")
    # ringattn --save onto a symlinked folder: refused at start, nothing written into the folder
    folder = os.path.join(work, "save-target")
    os.makedirs(folder)
    link = os.path.join(work, "save-link")
    os.symlink(folder, link)
    for save in (link, link + "/"):
        cmd = ["timeout", "120", mpirun, *flags, "-np", "1", cb, "ringattn", "--seq", "512", "-n", "1", "-w", "0",
               "--save", save]
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=150)
        if p.returncode != 2 or "--save" not in p.stderr:
            fail(f"--save {save} (a symlink to a folder): exit {p.returncode}, stderr {p.stderr[-400:]!r}")
        if os.listdir(folder):
            fail(f"--save {save}: files appeared in the symlink's target: {os.listdir(folder)}")

    # collbench-topo --rankfile: a symlink at the name is refused (target kept); a symlink at the
    # former temporary-name pattern beside it is never written through
    h200 = os.path.join(topodir, "h200x2-vm.xml")
    link, target = plant(work, "rf-link")
    p = subprocess.run([topo, "--xml", h200, "--rankfile", link, "--hosts", "a"], capture_output=True, text=True)
    if p.returncode != 2 or "symbolic link" not in p.stderr or not untouched(target) or not os.path.islink(link):
        fail(f"--rankfile on a symlink: exit {p.returncode}, stderr {p.stderr.strip()!r}")
    rf = os.path.join(work, "rf")
    side = [plant(work, "rf" + s) for s in (".tmp", ".XXXXXX", ".partial")]
    p = subprocess.run([topo, "--xml", h200, "--rankfile", rf, "--hosts", "a"], capture_output=True, text=True)
    if p.returncode != 0 or os.path.islink(rf) or not open(rf).read().startswith("rank 0=a"):
        fail(f"--rankfile beside planted names: exit {p.returncode}, stderr {p.stderr.strip()!r}")
    for l, t in side:
        if not untouched(t):
            fail(f"collbench-topo wrote through {l}")
    left = [n for n in os.listdir(work) if n.startswith("rf.") and not os.path.islink(os.path.join(work, n))]
    if left:
        fail(f"collbench-topo left temporary files: {left}")
    if problems:
        print(f"test_symlink_sweep: {len(problems)} problem(s)")
        return 1
    print("test_symlink_sweep: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
