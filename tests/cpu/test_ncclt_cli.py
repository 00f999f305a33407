#!/usr/bin/env python3
"""CPU test of the nccl-tests drop-in binaries (build/nccl-tests/*_perf, links to collbench) as
a cluster script runs them: -h for every binary; every refusal exits 2 with one line on stderr
(naming the flag), nothing on stdout, before MPI or a GPU is touched (fast); a binary whose family
this build lacks says so in one line, and only then (collbench FAMILY itself refuses the family);
-g G > 1 under an MPI launcher is refused; a valid command with the GPUs hidden gets as far as the
GPU (exit 5, "no CUDA GPU": the translation was accepted by collbench's own parser and MPI started).

A binary whose family is missing answers -h with that line too (exit 2).

usage: test_ncclt_cli.py DIR COLLBENCH"""
import os
import subprocess
import sys
import time

problems = []


def fail(msg):
    problems.append(msg)
    print("test_ncclt_cli: FAIL:", msg)


def run(cmd, env=None, timeout=60):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_COMM_WORLD", "PMI", "SLURM_PROCID"))}
    full_env.update(env or {})
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=full_env)
    return p, time.monotonic() - t0


def refused(binary, args, needle, env=None):
    p, dt = run([binary, *args], env)
    shown = f"{os.path.basename(binary)} {' '.join(args)}"
    lines = p.stderr.splitlines()
    if p.returncode != 2:
        fail(f"{shown}: exit {p.returncode}, expected 2; stderr {p.stderr[-400:]!r}")
    elif len(lines) != 1 or not lines[0].startswith("collbench: ") or needle not in lines[0]:
        fail(f"{shown}: stderr {p.stderr!r}: expected one 'collbench: ' line with {needle!r}")
    if p.stdout:
        fail(f"{shown}: wrote to stdout: {p.stdout[-300:]!r}")
    if dt > 10:
        fail(f"{shown}: took {dt:.1f} s (a refusal comes before MPI and the GPU)")


def main():
    folder, collbench = sys.argv[1], sys.argv[2]
    names = sorted(os.listdir(folder))
    if len(names) != 11:
        fail(f"{folder}: {names}")
    in_build = {}
    for name in names:
        b = os.path.join(folder, name)
        p, _ = run([b, "-b", "8", "-e", "8", "-t", "2"])
        if "family is not in this build" in p.stderr:
            in_build[name] = False
            refused(b, ["-b", "8"], "family is not in this build")
            family = p.stderr.split("collbench's ")[1].split(" family")[0]
            q, _ = run([collbench, family, "--algo", "help"])
            if q.returncode != 2 or "unknown family" not in q.stderr:
                fail(f"{name} says its family {family} is not in this build, but collbench {family} answers "
                     f"(exit {q.returncode})")
        else:
            in_build[name] = True
            refused(b, ["-b", "8", "-e", "8", "-t", "2"], "-t 2")
            p, _ = run([b, "-h"])
            if p.returncode != 0 or f"USAGE: {name}" not in p.stdout or p.stderr:
                fail(f"{name} -h: exit {p.returncode}, stdout {p.stdout[:200]!r}, stderr {p.stderr!r}")
    if sum(in_build.values()) < 5:
        fail(f"fewer than the five classic binaries run: {in_build}")
    ar = os.path.join(folder, "all_reduce_perf")
    for args, needle in (
            (["-t", "4"], "-t 4"), (["-g", "0"], "-g"), (["-b", "1M", "-e", "1K"], "larger than -e"),
            (["-b", "1X"], "'1X'"), (["-n", "abc"], "'abc'"), (["-o", "mulsum"], "mulsum"), (["-o", "x"], "'x'"),
            (["-d", "double2"], "double2"), (["-R", "3"], "-R"), (["-x", "1"], "CTA policy"), (["-V", "16"], "-V"),
            (["-D", "1"], "device-API"), (["-p", "1"], "-p 1"), (["-y", "1"], "null stream"), (["-C", "1"], "-C 1"),
            (["-S", "1"], "-S 1"), (["-M", "1"], "mem_bytes"), (["-u", "1"], "misalign"), (["-K", "2"], "-K 2"),
            (["-r", "1"], "has no root"), (["-G", "-1"], "-G"), (["-I", "5"], "-I"), (["-z", "9"], "-z"),
            (["--bogus"], "unknown option '--bogus'"), (["extra"], "unexpected argument 'extra'"),
            (["--algo", "nosuch"], "nosuch"), (["-R", "1", "--algo", "nccl"], "give one"), (["-b"], "needs a value")):
        refused(ar, args, needle)
    for env, needle in (({"NCCL_TESTS_MIN_BW": "fast"}, "NCCL_TESTS_MIN_BW"),
                        ({"NCCL_TESTS_DEVICE": "1"}, "CUDA_VISIBLE_DEVICES"),
                        ({"NCCL_TESTS_SPLIT_MASK": "0x7"}, "NCCL_TESTS_SPLIT"), ({"CB_ALGO": ""}, "CB_ALGO"),
                        ({"CB_ALGO": "nosuch"}, "nosuch"), ({"OMPI_COMM_WORLD_SIZE": "2"}, "under an MPI launcher")):
        refused(ar, ["-g", "2"] if "OMPI_COMM_WORLD_SIZE" in env else ["-b", "8"], needle, env)
    # a valid line reaches the GPU: collbench's parser took the translation, MPI started (singleton)
    for name in names:
        if in_build.get(name):
            p, _ = run([os.path.join(folder, name), "-b", "8", "-e", "64", "-f", "2", "-n", "2", "-w", "1"],
                       {"CUDA_VISIBLE_DEVICES": ""})
            if p.returncode != 5 or "no CUDA GPU" not in p.stderr:
                fail(f"{name} with the GPUs hidden: exit {p.returncode}, stderr {p.stderr[-400:]!r}")
    if problems:
        print(f"test_ncclt_cli: {len(problems)} problem(s)")
        return 1
    print("PASS test_ncclt_cli")
    return 0


if __name__ == "__main__":
    sys.exit(main())
