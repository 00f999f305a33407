#!/usr/bin/env python3
"""The ringattn block kernels at the collbench command line (no MPI, no GPU):
  - `collbench ringattn --algo help` lists every scheme twice, as NAME (collbench's block
    kernel) and NAME_cudnn (cuDNN's), and nothing else: the registry and
    collectives/attn/attn_block.c's scheme list (checked in test_attn_block.c) agree;
  - a bad --block-kernel, and --algo naming a cuDNN row that --block-kernel leaves out, are usage
    errors (exit 2) naming the option, before any GPU work.
usage: test_block_kernel_cli.py COLLBENCH
"""
import subprocess
import sys

SCHEMES = ("single", "ring", "nccl_ring", "nccl_allgather", "ulysses", "nccl_ulysses")


def run(exe, *args):
    r = subprocess.run([exe, *args], capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout, r.stderr


def main():
    exe = sys.argv[1]
    problems = []
    rc, out, err = run(exe, "ringattn", "--algo", "help")
    if rc != 0:
        problems.append(f"--algo help exited {rc}: {err.strip()}")
    names = [line.split()[0] for line in out.splitlines()[1:] if line.strip()]
    want = [n for s in SCHEMES for n in (s, s + "_cudnn")]
    if sorted(names) != sorted(want):
        problems.append(f"--algo help lists {names}, expected {want}")
    for args, needle in ((["--block-kernel", "cuDNN"], "--block-kernel: 'cuDNN' (accepted: collbench, cudnn, both)"),
                         (["--algo", "ring_cudnn", "--block-kernel", "collbench"], "is a cuDNN row"),
                         (["--block-kernel"], "needs a value")):
        rc, out, err = run(exe, "ringattn", *args)
        if rc != 2 or needle not in err:
            problems.append(f"ringattn {' '.join(args)}: exit {rc}, stderr {err.strip()!r} (want exit 2 with {needle!r})")
    rc, out, err = run(exe, "allreduce", "--block-kernel", "cudnn")
    if rc != 2 or "apply only to the ringattn family" not in err:
        problems.append(f"allreduce --block-kernel: exit {rc}, stderr {err.strip()!r}")
    for p in problems:
        print("FAIL " + p)
    if not problems:
        print("PASS block-kernel CLI")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
