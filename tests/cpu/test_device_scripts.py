#!/usr/bin/env python3
"""The GPU-machine scripts of tools/device/ (gpu-suite.sh, attention-suite.sh,
reference-sweeps.sh) on a machine without a GPU: --help prints the script's header and exits 0;
nonsense (an unknown step or run, an unknown option, --out without a folder or with a line break,
-R without a pattern) ends with exit 2 and one line naming it, before anything is built or any
folder made; tools/device/ holds only those scripts, common.sh and sdpa_anchor.py (the A/B
machinery lives on a branch); and common.sh's logs (logfile) are new files: a symlink, FIFO or
dangling link planted at a log's name in DIR/logs is refused, never written through, and a log an
earlier run left is replaced.

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


def logs_writer():
    """common.sh's steps.txt and step logs in a DIR/logs holding planted names."""
    with tempfile.TemporaryDirectory() as d:
        logs = os.path.join(d, "out", "logs")
        os.makedirs(logs)
        victim = os.path.join(d, "victim")
        with open(victim, "w") as f:
            f.write("precious\n")

        def bash(code):  # a write that blocks on the FIFO is a failure too, not a hang
            try:
                return subprocess.run(["bash", "-c", ". tools/device/common.sh; " + code, "device",
                                       os.path.join(d, "out")], cwd=ROOT, capture_output=True, text=True, timeout=60)
            except subprocess.TimeoutExpired:
                return subprocess.CompletedProcess(code, None, "", "timed out after 60 s")
        os.symlink(victim, os.path.join(logs, "steps.txt"))
        p = bash('device_args "" --out "$1"; echo reached')
        check(p.returncode == 2 and "reached" not in p.stdout and len(p.stderr.strip().splitlines()) == 1 and
              "steps.txt" in p.stderr, f"a symlink at steps.txt: exit {p.returncode}, {p.stdout!r} {p.stderr!r}")
        os.remove(os.path.join(logs, "steps.txt"))
        with open(os.path.join(logs, "old.log"), "w") as f:
            f.write("an earlier run\n")
        os.symlink(victim, os.path.join(logs, "linked.log"))
        os.symlink(victim + "-dangling", os.path.join(logs, "dangling.log"))
        os.mkfifo(os.path.join(logs, "fifo.log"))
        p = bash('device_args "" --out "$1"; step old echo new; for n in linked dangling fifo; do step $n echo x; '
                 'echo "$n=$?"; done')
        check(p.returncode == 0 and all(f"{n}=1" in p.stdout for n in ("linked", "dangling", "fifo")),
              f"planted log names refused: exit {p.returncode}, {p.stdout!r} {p.stderr[-300:]!r}")
        check(open(victim).read() == "precious\n" and not os.path.lexists(victim + "-dangling"),
              "a planted link's target is never written or created")
        check(open(os.path.join(logs, "old.log")).read() == "new\n", "an earlier run's log is replaced")
        steps = os.path.join(logs, "steps.txt")
        check(os.path.isfile(steps) and not os.path.islink(steps) and "old rc=0" in open(steps).read(),
              "steps.txt is a new file with the status lines")
        left = [n for n in os.listdir(logs) if n.startswith(".")]
        check(not left, f"no temporary left in DIR/logs: {left}")


def main():
    logs_writer()
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
