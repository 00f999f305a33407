#!/usr/bin/env python3
"""MPI test of the drop-in's -g G outside an MPI launcher (launcher/ncclt_main.c), where the
drop-in starts `mpirun -np G` of itself: an input every rank would refuse before its GPU is
refused by the drop-in once, with one line and exit 2, before mpirun starts (no "Primary job"
text from mpirun, no second copy of the line, no rank started). `--algo help` lists the
algorithms once, without ranks. CB_MPIRUN names the real mpirun; the GPUs are hidden, so a line
that got through would reach the ranks' GPU check (exit 5) instead.

usage: test_ncclt_spawn_refusals.py NCCL_TESTS_DIR MPIRUN"""
import os
import subprocess
import sys
import tempfile

problems = []


def run(folder, mpirun, binary, args, env, cwd):
    full = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_COMM_WORLD", "PMI", "SLURM_PROCID", "CB_"))}
    full.update({"CB_MPIRUN": mpirun, "CUDA_VISIBLE_DEVICES": "", "OMPI_ALLOW_RUN_AS_ROOT": "1",
                 "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
    full.update(env)
    return subprocess.run([os.path.join(folder, binary), *args], capture_output=True, text=True, timeout=90,
                          env=full, cwd=cwd)


def refused(folder, mpirun, cwd, binary, args, needle, env=None):
    p = run(folder, mpirun, binary, args, env or {}, cwd)
    shown = f"{' '.join(f'{k}={v}' for k, v in (env or {}).items())} {binary} {' '.join(args)}".strip()
    lines = p.stderr.splitlines()
    if p.returncode != 2 or len(lines) != 1 or not lines[0].startswith("collbench: ") or needle not in lines[0]:
        problems.append(f"{shown}: exit {p.returncode}, stderr {p.stderr[-600:]!r}: expected exit 2 and one "
                        f"'collbench: ' line with {needle!r}, before mpirun")
    if p.stdout:
        problems.append(f"{shown}: stdout {p.stdout[-300:]!r}")


def main():
    folder, mpirun = os.path.abspath(sys.argv[1]), sys.argv[2]
    with tempfile.TemporaryDirectory() as cwd:
        os.mkdir(os.path.join(cwd, "adir"))
        g2 = ["-g", "2", "-b", "8", "-e", "8"]
        refused(folder, mpirun, cwd, "all_reduce_perf", g2 + ["-d", "nosuchtype"], "unknown data type 'nosuchtype'")
        refused(folder, mpirun, cwd, "all_reduce_perf", g2, "unknown allreduce algorithm 'bogus'", {"CB_ALGO": "bogus"})
        refused(folder, mpirun, cwd, "all_reduce_perf", g2 + ["--algo", "nccl,bogus"], "algorithm 'bogus'")
        refused(folder, mpirun, cwd, "all_reduce_perf", g2, "CB_MIN_BUSBW=abc", {"CB_MIN_BUSBW": "abc"})
        refused(folder, mpirun, cwd, "all_reduce_perf", g2, "CB_SMS", {"CB_SMS": "abc"})
        refused(folder, mpirun, cwd, "all_reduce_perf", g2 + ["-J", "adir"], "-J 'adir'")
        refused(folder, mpirun, cwd, "all_reduce_perf", g2 + ["--csv", "/nonexistent/r.csv"], "/nonexistent/r.csv")
        refused(folder, mpirun, cwd, "broadcast_perf", g2 + ["-r", "2"], "-r 2")
        refused(folder, mpirun, cwd, "hypercube_perf", ["-g", "3", "-b", "8", "-e", "8"], "power-of-two")
        # --algo help: the list once, from this process (exit 0), no ranks
        p = run(folder, mpirun, "all_reduce_perf", g2, {"CB_ALGO": "help"}, cwd)
        if p.returncode != 0 or p.stdout.count("allreduce algorithms") != 1 or p.stderr:
            problems.append(f"CB_ALGO=help all_reduce_perf -g 2: exit {p.returncode}, stdout {p.stdout[:200]!r}, "
                            f"stderr {p.stderr[-300:]!r}: expected the list once, exit 0")
        # started under a bare name PATH does not lead back to (exec -a): mpirun would not find it
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_COMM_WORLD", "PMI", "SLURM_PROCID"))}
        env.update({"CB_MPIRUN": mpirun, "CUDA_VISIBLE_DEVICES": "", "PATH": "/usr/bin:/bin"})
        p = subprocess.run(["all_reduce_perf", *g2], executable=os.path.join(folder, "all_reduce_perf"),
                           capture_output=True, text=True, timeout=90, env=env, cwd=cwd)
        if p.returncode != 2 or len(p.stderr.splitlines()) != 1 or "PATH" not in p.stderr:
            problems.append(f"argv[0] all_reduce_perf, not in PATH, -g 2: exit {p.returncode}, stderr "
                            f"{p.stderr[-400:]!r}: expected exit 2 and one line naming PATH")
        # the same name found through PATH starts the ranks
        env["PATH"] = folder + ":/usr/bin:/bin"
        p = subprocess.run(["all_reduce_perf", *g2], executable=os.path.join(folder, "all_reduce_perf"),
                           capture_output=True, text=True, timeout=90, env=env, cwd=cwd)
        if p.returncode != 5 or "[rank 1 host" not in p.stderr:
            problems.append(f"all_reduce_perf through PATH, -g 2: exit {p.returncode}, stderr {p.stderr[-300:]!r}: "
                            "expected exit 5 from both ranks")
        # a valid line still starts the ranks: both reach the GPU check
        p = run(folder, mpirun, "sendrecv_perf", g2, {}, cwd)
        if p.returncode != 5 or "[rank 1 host" not in p.stderr:
            problems.append(f"sendrecv_perf -g 2: exit {p.returncode}, stderr {p.stderr[-300:]!r}: expected exit 5 "
                            "from both ranks")
        if os.listdir(cwd) != ["adir"]:
            problems.append(f"files left in the working folder: {sorted(os.listdir(cwd))}")
    for p in problems:
        print("test_ncclt_spawn_refusals: FAIL:", p)
    if not problems:
        print("test_ncclt_spawn_refusals: PASS")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
