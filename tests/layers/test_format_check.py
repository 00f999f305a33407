#!/usr/bin/env python3
"""Self-test of tools/format-check on a scratch tree with the real .clang-format: a formatted
file passes; a misformatted one and a line past 120 columns it cannot break fail, listed by name (and line);
--fix rewrites the first and leaves the second to be fixed by hand; results/ and build*/ are
left out; in a git work tree, untracked files count and ignored ones do not.

usage: test_format_check.py FORMAT_CHECK CLANG_FORMAT_FILE SCRATCH
Exit status: 0 passed, 1 failed, 77 no clang-format 14 here (ctest: Skipped)."""
import os
import shutil
import subprocess
import sys

GOOD = "int add(int a, int b) { return a + b; }\n"
BAD = "int  add(int a,int b)\n{\n    return a+b;\n}\n"
LONG = '#include "%s.h"\n' % ("x" * 120)  # clang-format breaks long strings, not an #include

failures = []


def check(what, cond, detail=""):
    if not cond:
        failures.append("%s%s" % (what, (": " + detail) if detail else ""))


def write(root, name, text):
    path = os.path.join(root, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def run(tool, root, *extra):
    p = subprocess.run([sys.executable, tool, "--root", root, *extra], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


def main():
    tool, style, scratch = sys.argv[1:4]
    shutil.rmtree(scratch, ignore_errors=True)
    root = os.path.join(scratch, "tree")
    os.makedirs(root)
    shutil.copy(style, os.path.join(root, ".clang-format"))
    write(root, "base/good.c", GOOD)
    write(root, "kernels/bad.cu", BAD)
    write(root, "results/old-probe.c", BAD)  # data, not code: left out
    write(root, "build/generated.h", BAD)  # a build folder: left out

    rc, out = run(tool, root)
    if rc == 77:
        print("test_format_check: skipped: " + out.strip())
        return 77
    check("a misformatted file fails", rc == 1, "exit %d: %s" % (rc, out))
    check("the misformatted file is listed", "kernels/bad.cu" in out, out)
    check("the formatted file is not listed", "good.c" not in out, out)
    check("results/ and build/ are left out", "old-probe" not in out and "generated.h" not in out, out)

    rc, out = run(tool, root, "base/good.c")
    check("a formatted FILE passes", rc == 0, "exit %d: %s" % (rc, out))

    write(root, "launcher/long.c", LONG)
    rc, out = run(tool, root, "--fix")
    check("--fix with a long string still fails", rc == 1, "exit %d: %s" % (rc, out))
    check("the long line is named with its line", "launcher/long.c:1:" in out, out)
    with open(os.path.join(root, "kernels/bad.cu")) as f:
        fixed = f.read()
    check("--fix rewrote the misformatted file", fixed == "int add(int a, int b) { return a + b; }\n", repr(fixed))
    with open(os.path.join(root, "results/old-probe.c")) as f:
        check("--fix left results/ alone", f.read() == BAD)

    os.remove(os.path.join(root, "launcher/long.c"))
    rc, out = run(tool, root)
    check("the fixed tree passes", rc == 0, "exit %d: %s" % (rc, out))

    # a git work tree: git's list, so an untracked file counts and an ignored one does not
    git = ["git", "-C", root]
    subprocess.run(git + ["init", "-q"], check=True)
    write(root, ".gitignore", "ignored/\n")
    write(root, "ignored/bad.c", BAD)
    write(root, "topologies/untracked.c", BAD)
    rc, out = run(tool, root)
    check("git tree: an untracked misformatted file fails", rc == 1 and "topologies/untracked.c" in out, out)
    check("git tree: an ignored file is left out", "ignored/bad.c" not in out, out)

    rc, out = run(tool, root, "no/such/file.c")
    check("a missing FILE is a usage error", rc == 2, "exit %d: %s" % (rc, out))

    for f in failures:
        print("test_format_check: FAIL: " + f)
    if failures:
        return 1
    print("test_format_check: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
