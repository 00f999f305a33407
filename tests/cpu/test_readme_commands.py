#!/usr/bin/env python3
"""README.md against the build (CPU test): every command line in README.md's ```sh blocks is run
here as far as a machine without a GPU allows, and every relative link in README.md and docs/
points at a file that exists.

Commands, from a scratch folder that mirrors the repository root (its entries linked, `build`
linked to BUILD_DIR, so files a command writes land in the scratch folder; /tmp/... arguments are
moved there too):
  build/launcher/collbench --help, FAMILY --algo help   exit 0, the expected text
  build/launcher/collbench FAMILY OPTIONS               options parse: exit 5 (no GPU), not 2;
                                                        run with CUDA_VISIBLE_DEVICES= so a GPU
                                                        machine does not benchmark
  mpirun ... [collbench-vnode N] collbench ...          the collbench part, as above
  launcher/collbench-run --help                         exit 0, its usage
  launcher/collbench-run [opts] -- FAMILY ...           the part after -- as above; the whole
                                                        command (not with --hosts) on a machine
                                                        without a GPU: its options pass, exit 5
  build/topologies/collbench-topo ...                   exit 0; the plan equals the README's
                                                        block after it; --rankfile lines quoted
                                                        in the README are in the file
  plots/plot RUN_DIR OUT                                exit 0 and OUT/summary.md (a run under
                                                        results/reference/ that this checkout
                                                        lacks is skipped with a note)
  cmake, tests/run                                      not run (the build and the suite itself)
A command of any other kind fails the test, so a new README command gets a check here.

Links: [text](path) and ![alt](path) relative to the file; a #anchor into a Markdown file must
name one of its headings. Paths another branch adds (results/reference/, PENDING below) are
skipped with a note while they are missing.

usage: test_readme_commands.py REPO_ROOT BUILD_DIR"""
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

PENDING = ("results/reference/", "docs/decisions/attention-mma-forms.md")
FAMILIES = ("allreduce", "allgather", "reducescatter", "alltoall", "sendrecv", "moe", "ringattn")
failures = []
counts = {}


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def note(msg):
    print("note: " + msg)


def count(kind):
    counts[kind] = counts.get(kind, 0) + 1


def fenced_blocks(text):
    """[(info string, [lines])] of the ``` blocks in order."""
    blocks, cur, info = [], None, ""
    for line in text.splitlines():
        if line.startswith("```"):
            if cur is None:
                cur, info = [], line[3:].strip()
            else:
                blocks.append((info, cur))
                cur = None
        elif cur is not None:
            cur.append(line)
    return blocks


def commands(lines):
    """Command lines of a sh block: comments stripped, continuations joined."""
    out, acc = [], ""
    for line in lines:
        line = re.sub(r"(^|\s)#\s.*$", "", line).rstrip()
        if line.endswith("\\"):
            acc += line[:-1] + " "
            continue
        line = (acc + line).strip()
        acc = ""
        if line:
            out.append(line)
    return out


def run(argv, work, env=None, timeout=120):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run(argv, cwd=work, env=e, capture_output=True, text=True, timeout=timeout, check=False)


def here_paths(argv, work):
    """/tmp/... arguments point into the scratch folder instead."""
    return [os.path.join(work, a[len("/tmp/"):]) if a.startswith("/tmp/") else a for a in argv]


def check_collbench(argv, work, cmd):
    """argv[0] is build/launcher/collbench."""
    if argv[1:] == ["--help"]:
        p = run(argv, work)
        if p.returncode != 0 or "sizes (classic" not in p.stdout:
            fail("%r: exit %d, no option list" % (cmd, p.returncode))
        count("collbench --help")
        return
    if len(argv) == 4 and argv[2:] == ["--algo", "help"]:
        p = run(argv, work)
        if p.returncode != 0 or not p.stdout.startswith(argv[1] + " algorithms"):
            fail("%r: exit %d, output %r" % (cmd, p.returncode, p.stdout[:80]))
        count("collbench --algo help")
        return
    if len(argv) < 2 or argv[1] not in FAMILIES:
        fail("%r: no family after collbench" % cmd)
        return
    p = run(here_paths(argv, work), work, {"CUDA_VISIBLE_DEVICES": ""})
    if p.returncode != 5 or "no CUDA GPU" not in p.stderr:
        fail("%r: expected exit 5 (options parsed, no GPU), got %d: %s" % (cmd, p.returncode, p.stderr.strip()[:300]))
    count("collbench options parse")


def collbench_part(argv):
    """The collbench command inside an mpirun line (after collbench-vnode N if present)."""
    for i, a in enumerate(argv):
        if a.endswith("launcher/collbench-vnode"):
            return argv[i + 2:]
        if a == "build/launcher/collbench":
            return argv[i:]
    return None


def gpu_here():
    try:
        p = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60, check=False)
    except OSError:
        return False
    return any(l.startswith("GPU") for l in p.stdout.splitlines())


def check_collbench_run(argv, work, cmd):
    if argv[1:] == ["--help"]:
        p = run(argv, work)
        if p.returncode != 0 or not p.stdout.startswith("usage: launcher/collbench-run"):
            fail("%r: exit %d" % (cmd, p.returncode))
        count("collbench-run --help")
        return
    if "--" in argv:
        check_collbench(["build/launcher/collbench"] + argv[argv.index("--") + 1:], work, cmd + " (its collbench part)")
    if "--hosts" in argv:
        note("%r: not run as a whole (other hosts)" % cmd)
        return
    if gpu_here():
        note("%r: not run as a whole (this machine has a GPU: it would benchmark)" % cmd)
        return
    p = run(argv, work)
    if p.returncode != 5 or "no NVIDIA GPU" not in p.stderr:
        fail("%r: expected exit 5 (options accepted, no GPU), got %d: %s" % (cmd, p.returncode, p.stderr.strip()[:300]))
    count("collbench-run options")


def check_topo(argv, work, cmd, after, readme):
    p = run(here_paths(argv, work), work)
    if p.returncode != 0:
        fail("%r: exit %d: %s" % (cmd, p.returncode, p.stderr.strip()[:300]))
        return
    count("collbench-topo")
    if "--rankfile" in argv:
        path = os.path.join(work, argv[argv.index("--rankfile") + 1])
        lines = open(path, encoding="utf-8").read().splitlines() if os.path.exists(path) else []
        quoted = re.findall(r"`(rank \d+=\S+ slot=[^`]+)`", readme)
        if not lines or not quoted:
            fail("%r: no rankfile written, or README quotes none of its lines" % cmd)
        for q in quoted:
            if q not in lines:
                fail("%r: README's rankfile line %r is not in the file" % (cmd, q))
        return
    if after is None or not after[1] or not after[1][0].startswith("# "):
        fail("%r: README shows no plan after it" % cmd)
        return
    if p.stdout.splitlines() != after[1]:
        fail("%r: README's plan differs from the tool's:\n%s" % (cmd, p.stdout))


def check_plot(argv, root, work, cmd):
    pos = [a for a in argv[1:] if not a.startswith("-")]
    run_dir = pos[0] if pos else ""
    if run_dir.startswith("results/reference/") and not os.path.exists(os.path.join(root, run_dir)):
        note("%r: %s is not in this checkout: not run" % (cmd, run_dir))
        return
    argv = here_paths(argv, work)
    p = run(argv, work, timeout=240)
    out = argv[2] if len(pos) > 1 else os.path.join(work, run_dir)
    if p.returncode != 0 or not os.path.exists(os.path.join(work, out, "summary.md")):
        fail("%r: exit %d, no summary.md: %s" % (cmd, p.returncode, p.stderr.strip()[:300]))
    count("plots/plot")


def check_commands(root, build):
    readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    blocks = fenced_blocks(readme)
    with tempfile.TemporaryDirectory() as work:
        for name in os.listdir(root):
            if name != "build":
                os.symlink(os.path.join(root, name), os.path.join(work, name))
        os.symlink(os.path.abspath(build), os.path.join(work, "build"))
        for i, (info, lines) in enumerate(blocks):
            if info != "sh":
                continue
            after = blocks[i + 1] if i + 1 < len(blocks) and blocks[i + 1][0] == "" else None
            for cmd in commands(lines):
                argv = shlex.split(cmd)
                env_prefix = 0
                while env_prefix < len(argv) and re.match(r"^[A-Z_]+=", argv[env_prefix]):
                    env_prefix += 1
                argv = argv[env_prefix:]
                head = argv[0]
                if head in ("cmake", "tests/run"):
                    note("%r: not run here (the build and the suite itself)" % cmd)
                elif head == "build/launcher/collbench":
                    check_collbench(argv, work, cmd)
                elif head == "mpirun":
                    part = collbench_part(argv)
                    if part is None:
                        fail("%r: mpirun line without build/launcher/collbench" % cmd)
                    else:
                        check_collbench(part, work, cmd)
                elif head == "launcher/collbench-run":
                    check_collbench_run(argv, work, cmd)
                elif head == "build/topologies/collbench-topo":
                    check_topo(argv, work, cmd, after, readme)
                elif head == "plots/plot":
                    check_plot(argv, root, work, cmd)
                else:
                    fail("%r: a README command this test does not know how to check" % cmd)
    for kind in ("collbench --help", "collbench --algo help", "collbench options parse", "collbench-run --help",
                 "collbench-topo"):
        if not counts.get(kind):
            fail("README.md has no command of the kind %r (or none passed)" % kind)


def slug(heading):
    s = re.sub(r"[^a-z0-9 _-]", "", heading.strip().lower())
    return s.replace(" ", "-")


def anchors(path):
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return {slug(m) for m in re.findall(r"^#+\s+(.*)$", text, re.M)}


def check_links(root):
    files = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "**", "*.md"),
                                                                 recursive=True))
    nlinks = 0
    for f in files:
        text = re.sub(r"```.*?```", "", open(f, encoding="utf-8").read(), flags=re.S)
        text = re.sub(r"`[^`\n]*`", "", text)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"^[a-z]+:", target):
                continue
            nlinks += 1
            path, _, frag = target.partition("#")
            full = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            rel = os.path.relpath(full, root)
            where = "%s: link %s" % (os.path.relpath(f, root), target)
            if rel.startswith(".."):
                fail(where + " leaves the repository")
                continue
            if not os.path.exists(full):
                if any(rel == p.rstrip("/") or rel.startswith(p) for p in PENDING):
                    note(where + ": not in this checkout yet (added by another branch)")
                else:
                    fail(where + ": no such file")
                continue
            if frag and full.endswith(".md") and frag not in anchors(full):
                fail(where + ": no heading #" + frag)
    if nlinks < 10:
        fail("only %d relative links found: the link scan is broken" % nlinks)
    print("links: %d relative links in %d files" % (nlinks, len(files)))


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    root, build = os.path.abspath(sys.argv[1]), sys.argv[2]
    check_commands(root, build)
    check_links(root)
    print("commands checked: " + ", ".join("%s %d" % kv for kv in sorted(counts.items())))
    if failures:
        print("test_readme_commands: %d failure(s)" % len(failures), file=sys.stderr)
        sys.exit(1)
    print("test_readme_commands: ok")


if __name__ == "__main__":
    main()
