#!/usr/bin/env python3
"""CPU test of the collbench program's front door, on a machine without a GPU: exit codes and
messages for help, bad arguments (exit 2, message on stderr naming the bad value, nothing on
stdout), unknown algorithms (exit 2, the accepted names listed), and a valid command under
mpirun on a GPU-less machine (exit 5, "no CUDA GPU", quickly: the CUDA runtime is installed but
there is no driver). When a GPU is present the last case is skipped (exit 77 is not used: the
other cases still ran).

usage: test_cli.py COLLBENCH CASE MPIRUN [MPIRUN_FLAGS...]
  CASE: help | usage | algo | knobs | nogpu
"""
import os
import subprocess
import sys
import time

problems = []


def fail(msg):
    problems.append(msg)
    print("test_cli: FAIL:", msg)


def run(cmd, timeout=60):
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr, time.monotonic() - t0


def expect(cmd, rc_want, stderr_has=(), stdout_has=(), stdout_empty=False, timeout=60):
    try:
        rc, out, err, dt = run(cmd, timeout)
    except subprocess.TimeoutExpired:
        fail(f"{' '.join(cmd)}: still running after {timeout} s")
        return None
    shown = " ".join(cmd[-8:])
    if rc != rc_want:
        fail(f"{shown}: exit {rc}, expected {rc_want}\n  stdout: {out[-800:]!r}\n  stderr: {err[-800:]!r}")
    for s in stderr_has:
        if s not in err:
            fail(f"{shown}: stderr does not contain {s!r}: {err[-800:]!r}")
    for s in stdout_has:
        if s not in out:
            fail(f"{shown}: stdout does not contain {s!r}")
    if stdout_empty and out.strip():
        fail(f"{shown}: error text on stdout: {out[-400:]!r}")
    return rc, out, err, dt


def have_gpu():
    try:
        p = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
        return p.returncode == 0 and "GPU" in p.stdout
    except (OSError, subprocess.TimeoutExpired):
        return False


def main():
    cb, case, mpirun, flags = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    if case == "help":
        for args in (["--help"], ["-h"], ["allreduce", "--help"], ["moe", "-h"]):
            r = expect([cb, *args], 0, stdout_has=("usage: collbench", "allreduce", "--algo", "exit codes"))
            if r and r[2].strip():
                fail(f"--help wrote to stderr: {r[2]!r}")
    elif case == "usage":
        cases = [
            ([], ["missing FAMILY", "allreduce"]),
            (["bogus"], ["'bogus'", "allreduce, allgather"]),
            (["allreduce", "-d", "int16"], ["'int16'", "bfloat16", "uint64", "double", "all"]),
            (["allreduce", "-o", "mulsum"], ["'mulsum'", "prod", "all"]),
            (["allreduce", "-d", "all,int"], ["'int'", "given twice"]),
            (["allreduce", "-o", "prod,all"], ["'all'", "given twice"]),
            # moe and ringattn keep their own types: an integer is refused with one line
            (["moe", "-d", "int8"], ["'int8'", "bfloat16 and fp8e4m3"]),
            (["ringattn", "-d", "double"], ["double"]),
            (["allreduce", "-b", "1X"], ["'1X'"]),
            (["allreduce", "-b", "1M", "-e", "1K"], ["1048576", "1024"]),
            (["allreduce", "-f", "1"], ["'1'"]),
            (["allreduce", "-n", "abc"], ["'abc'"]),
            (["allreduce", "--frobnicate"], ["'--frobnicate'"]),
            (["alltoall", "-o", "sum"], ["alltoall", "takes no reduction op"]),
            (["allreduce", "--tokens", "128"], ["moe"]),
            (["moe", "--topk", "300"], ["300", "256"]),
            (["moe", "--routing", "zipf:x"], ["'zipf:x'"]),
            (["allreduce", "-g", "2"], ["one process per GPU"]),
            (["allreduce", "--sizes", "9223372036854775808"], ["'9223372036854775808'", "1 TiB"]),
            (["allreduce", "--sizes", "18446744073709551488", "--inplace", "1"], ["1 TiB"]),
            (["moe", "--routing", "zipf:400"], ["zipf:400", "--topk 8"]),
            # the SM cap: 0, negative, not a number, past any GPU (the device's own count is
            # checked once the GPU is open: tests/gpu gpu_sms_too_many)
            (["moe", "--sms", "0"], ["--sms", "'0'", "SM count"]),
            (["moe", "--sms", "-4"], ["--sms", "'-4'"]),
            (["allreduce", "--sms", "many"], ["--sms", "'many'"]),
            (["alltoall", "--sms", "100000"], ["--sms", "'100000'", "65536"]),
            (["moe", "--sms=8x"], ["'8x'"]),
            # options a family cannot honour are refused, not ignored
            (["moe", "--inplace", "1"], ["--inplace", "moe has no in-place form"]),
            (["ringattn", "--inplace", "both"], ["--inplace", "ringattn has no in-place form"]),
            (["moe", "--validate", "-c", "0"], ["--validate needs the correctness check"]),
            # nccl-tests' flags (issue 43): bad values, a baseline the family lacks, the flags not offered
            (["allreduce", "-G", "0"], ["-G", "'0'", "graph launch count"]),
            (["allreduce", "-G", "18446744073709551616"], ["-G", "'18446744073709551616'"]),
            (["allreduce", "-m", "-1"], ["-m", "'-1'"]),
            (["allreduce", "-G", "-n", "5"], ["-G", "'-n'"]),  # -G takes N now, as nccl-tests'
            (["sendrecv", "-R", "2"], ["-R 2", "sendrecv has no nccl_symm", "nccl_reg"]),
            (["allreduce", "-t", "4"], ["nccl-tests' --nthreads", "mpirun -np N"]),
            (["allreduce", "-z", "1", "--mode", "graph"], ["-z 1", "--mode eager"]),
        ]
        for args, subs in cases:
            r = expect([cb, *args], 2, stderr_has=["collbench: ", *subs], stdout_empty=True)
            if r and r[3] > 10:
                fail(f"{args}: a usage error took {r[3]:.1f} s (must not start MPI or CUDA)")
        # the bar's variables: a bad value is a usage error before MPI and the GPU
        for var, val in (("CB_MIN_BUSBW", "fast"), ("CB_MIN_BUSBW", ""), ("NCCL_TESTS_MIN_BW", "-1")):
            os.environ[var] = val
            r = expect([cb, "allreduce"], 2, stderr_has=(f"{var}='{val}'", "GB/s"), stdout_empty=True)
            del os.environ[var]
            if r and r[3] > 10:
                fail(f"{var}={val}: took {r[3]:.1f} s (must not start MPI or CUDA)")
    elif case == "algo":
        # --algo help lists the family's algorithms with what each does (exit 0, no MPI, no GPU)
        for fam, names in (("allreduce", ("nccl ", "oneshot_ll ", "twoshot_ce ", "auto ", "hier ")),
                           ("moe", ("nccl ", "peer ", "peer_ll ", "hier ", "copy_ce ")),
                           ("ringattn", ("single ", "ring ", "nccl_ring ", "nccl_allgather "))):
            r = expect([cb, fam, "--algo", "help"], 0, stdout_has=(f"{fam} algorithms",) + names)
            if r and r[3] > 10:
                fail(f"{fam} --algo help took {r[3]:.1f} s")
        expect([cb, "allreduce", "--algo", "bogus"], 2, stderr_has=("'bogus'", "accepted", "nccl"),
               stdout_empty=True)
        expect([cb, "allreduce", "--algo", "nccl,bogus2"], 2, stderr_has=("'bogus2'", "nccl"), stdout_empty=True)
        expect([cb, "alltoall", "--algo", "oneshot_typo"], 2, stderr_has=("'oneshot_typo'", "alltoall", "nccl"),
               stdout_empty=True)
        # the registered-buffer NCCL forms: in every family NCCL has them for, not symm for sendrecv
        for fam in ("allreduce", "allgather", "reducescatter", "alltoall"):
            expect([cb, fam, "--algo", "bogus"], 2, stderr_has=("nccl_symm", "nccl_reg"), stdout_empty=True)
        expect([cb, "sendrecv", "--algo", "nccl_symm"], 2, stderr_has=("'nccl_symm'", "accepted: nccl, nccl_reg)"),
               stdout_empty=True)
    elif case == "knobs":
        # A malformed CB_* knob is a usage error at start, under mpirun, before any GPU work (so
        # on this machine it wins over "no GPU"), and the message names the variable and value.
        for var, val in (("CB_MAX_BLOCKS", "100000"), ("CB_AR_CE_CHUNK", "17"),
                         ("CB_AR_LL_MAX", "12k"), ("CB_AR_TWOSHOT_MAX", "-1"),
                         ("CB_AR_HIER_CHUNKS", "17"), ("CB_SMS", "0"), ("CB_SMS", "100000"), ("CB_SMS", "abc"),
                         ("CB_MOE_PUSH_PCT", "100"), ("CB_MOE_TRACE", "/nonexistent-cb-trace"),
                         # empty is an error naming the knob, never "unset" (issue 32 N24)
                         ("CB_SMS", ""), ("CB_MAX_BLOCKS", ""), ("CB_AR_LL_MAX", ""), ("CB_SHARE_GPUS", ""),
                         ("CB_MOE_TRACE", ""), ("CB_FAULT", "")):
            env = dict(os.environ, **{var: val})
            cmd = ["timeout", "120", mpirun, *flags, "-x", var, "-np", "2", cb, "allreduce", "-b", "8", "-e", "8",
                   "-n", "1", "-w", "0"]
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=150, env=env)
            except subprocess.TimeoutExpired:
                fail(f"{var}={val}: still running after 150 s")
                continue
            if p.returncode != 2:
                fail(f"{var}={val}: exit {p.returncode}, expected 2\n  stderr: {p.stderr[-800:]!r}")
            if val == "" and var != "CB_MOE_TRACE":
                if f"{var} is set but empty" not in p.stderr:
                    fail(f"{var}=: stderr does not say the knob is empty: {p.stderr[-800:]!r}")
            elif f"{var}='{val}'" not in p.stderr and f"{var}={val}:" not in p.stderr:
                fail(f"{var}={val}: stderr does not name the knob and its value: {p.stderr[-800:]!r}")
        # CB_SMS's former name: refused, pointing at CB_SMS (a job written for it must not run uncapped)
        expect(["timeout", "120", mpirun, *flags, "-x", "CB_SM_COUNT=8", "-np", "2", cb, "allreduce", "-b", "8", "-e",
                "8", "-n", "1", "-w", "0"], 2, stderr_has=("CB_SM_COUNT is no longer read", "CB_SMS=8"), timeout=150)
        # A knob that differs between ranks (mpirun forwards CB_* to other hosts only with -x), and
        # a bad value on rank 1 alone: exit 2 on every rank, rank 0 naming the variable.
        base = ["allreduce", "-b", "8", "-e", "8", "-n", "1", "-w", "0"]
        for left, right, want in ((["-x", "CB_MOE_PUSH_PCT=40"], ["-x", "CB_MOE_PUSH_PCT=50"],
                                   "CB_MOE_PUSH_PCT differs between ranks (40 to 50)"),
                                  (["-x", "CB_AR_LL_MAX=65536"], [], "CB_AR_LL_MAX differs between ranks"),
                                  ([], ["-x", "CB_MAX_BLOCKS=0x"], "CB_MAX_BLOCKS='0x'")):
            cmd = ["timeout", "120", mpirun, *flags, "-np", "1", *left, cb, *base, ":", "-np", "1", *right, cb, *base]
            expect(cmd, 2, stderr_has=(want,), timeout=150)
    elif case == "nogpu":
        if have_gpu():
            print("test_cli: a GPU is present: the no-GPU case does not apply here")
        else:
            env_flags = list(flags)
            for np in ("1", "2"):
                r = expect(["timeout", "120", mpirun, *env_flags, "-np", np, cb, "allreduce", "-b", "8", "-e", "8",
                            "-n", "1", "-w", "0"], 5, stderr_has=("no CUDA GPU",), timeout=150)
                if r and r[0] == 124:
                    fail(f"-np {np}: mpirun hung until timeout 120")
                if r and r[3] > 60:
                    fail(f"-np {np}: took {r[3]:.1f} s to report no GPU")
    else:
        fail(f"unknown case {case}")
    if problems:
        print(f"test_cli {case}: {len(problems)} problem(s)")
        return 1
    print(f"test_cli {case}: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
