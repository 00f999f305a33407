#!/usr/bin/env python3
"""The GPU-machine scripts of tools/device/ (gpu-suite.sh, attention-suite.sh,
reference-sweeps.sh) on a machine without a GPU: --help prints the script's header and exits 0;
nonsense (an unknown step or run, an unknown option, --out without a folder or with a line break,
-R without a pattern) ends with exit 2 and one line naming it, before anything is built or any
folder made; and tools/device/ holds only those scripts, common.sh and sdpa_anchor.py (the A/B
machinery lives on a branch).

usage: test_device_scripts.py REPO"""
import os
import subprocess
import sys
import tempfile

ROOT = sys.argv[1]
DEVICE = os.path.join(ROOT, "tools", "device")
SCRIPTS = {"gpu-suite.sh": "one shared", "attention-suite.sh": "bench tests shared",
           "reference-sweeps.sh": "allreduce alltoall moe"}
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL", what)


def run(script, *args, out):
    env = dict(os.environ, OUT=out)
    return subprocess.run(["bash", os.path.join(DEVICE, script), *map(os.fsencode, args)], env=env,
                          capture_output=True, timeout=60)


def main():
    have = sorted(os.listdir(DEVICE))
    check(have == sorted(list(SCRIPTS) + ["common.sh", "sdpa_anchor.py"]), f"tools/device/ holds {have}")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out")
        for script, words in SCRIPTS.items():
            p = run(script, "--help", out=out)
            text = p.stdout.decode()
            check(p.returncode == 0 and f"tools/device/{script} [--out DIR]" in text and "#" not in text[:5],
                  f"{script} --help: exit {p.returncode}, {text[:200]!r}")
            for args, want in ((["ringatn"], b"unknown word 'ringatn' (known: "),
                               (["x" * 5000], b"unknown word"), (["moe\udcff"], b"unknown word"), ([""], b"unknown word"),
                               ([words.split()[0], "nope"], b"unknown word 'nope'"),
                               (["--sizes", "1"], b"unknown option '--sizes'"), (["--out"], b"--out needs a folder"),
                               (["--out", ""], b"--out needs a folder"), (["--out", "a\nb"], b"a line break")):
                p = run(script, *args, out=out)
                lines = (p.stdout + p.stderr).strip().splitlines()
                check(p.returncode == 2 and len(lines) == 1 and want in lines[0] and len(lines[0]) < 400,
                      f"{script} {str(args)[:60]}: exit {p.returncode}, {lines[:3]}")
                check(not os.path.exists(out), f"{script} {str(args)[:60]}: made {out} before refusing")
        p = run("gpu-suite.sh", "-R", out=out)
        check(p.returncode == 2 and b"-R needs a regular expression" in p.stderr, f"gpu-suite.sh -R: {p.returncode}")
    print(f"{len(failures)} failure(s)" if failures else "PASS tools/device scripts: help, refusals, contents")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
