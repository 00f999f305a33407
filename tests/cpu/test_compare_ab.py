#!/usr/bin/env python3
"""tools/compare_ab.py on synthetic A/B files: the median change per row, every repetition listed
in numeric order, eager and graph rows apart, exit 1 when a row has wrong elements (timed or
not), and clear errors (exit 2, a message) for a missing folder, files of only one tree, two rows
with one key in a file, a wrong argument count and the nastiest inputs (non-UTF-8 bytes, nan,
counts past 2^64, directories and symlinks, very long names). (The tools/device/ scripts'
arguments: test_device_scripts.py.)

usage: test_compare_ab.py TOOLS_DIR/compare_ab.py"""
import os
import subprocess
import sys
import tempfile

SCRIPT = sys.argv[1]
HEAD = "family,algo,dtype,mode,tokens,phase,time_us_mean,remote_gbs,wrong\n"


def write(folder, name, rows):
    with open(os.path.join(folder, name), "w") as f:
        f.write(HEAD + "".join(rows))


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


def main():
    with tempfile.TemporaryDirectory() as d:
        for rep, (ta, tb) in enumerate([(100.0, 90.0), (102.0, 91.0), (101.0, 95.0)], 1):
            write(d, f"t4096-main-sms32-{rep}.csv", [f"moe,peer,fp8e4m3,graph,4096,dispatch,{ta},300,0\n", "moe,peer,fp8e4m3,graph,4096,layout,,,\n"])
            write(d, f"t4096-nq-sms32-{rep}.csv", [f"moe,peer,fp8e4m3,graph,4096,dispatch,{tb},330,0\n"])
        write(d, "t4096-other-sms32-1.csv", ["moe,peer,fp8e4m3,graph,4096,dispatch,7777.0,1,0\n"])
        r = run(d, "main", "nq")
        assert r.returncode == 0, r
        line = [l for l in r.stdout.splitlines() if "| dispatch | peer |" in l]
        assert len(line) == 1, r.stdout
        # medians 101 -> 91: -9.9 %; the reps in numeric order; the other tree's file ignored
        assert "| t4096-sms32 | fp8e4m3 | graph | 4096 | dispatch | peer | 100.00 102.00 101.00 | 90.00 91.00 95.00 | -9.9 % | 300 | 330 |" in line[0], line
        assert "7777" not in r.stdout
        write(d, "t4096-nq-sms32-4.csv", ["moe,peer,fp8e4m3,graph,4096,dispatch,90.0,330,3\n"])
        r = run(d, "main", "nq")
        assert r.returncode == 1 and "3 wrong elements" in r.stdout, r
        # a wrong count on a row without a time (a failed point) counts too
        os.remove(os.path.join(d, "t4096-nq-sms32-4.csv"))
        write(d, "t4096-nq-sms32-4.csv", ["moe,peer,fp8e4m3,graph,4096,layout,,,2\n"])
        r = run(d, "main", "nq")
        assert r.returncode == 1 and "2 wrong elements" in r.stdout, r
        r = run(d, "main", "absent")
        assert r.returncode == 2 and "no run of" in r.stderr, r
    with tempfile.TemporaryDirectory() as d:
        # repetitions in numeric order (10 after 2); eager and graph rows are different rows
        for rep, t in [(2, 20.0), (10, 100.0), (1, 10.0)]:
            write(d, f"x-a-{rep}.csv", [f"moe,peer,bfloat16,eager,128,roundtrip,{t},1,0\n", f"moe,peer,bfloat16,graph,128,roundtrip,{t + 1},1,0\n"])
            write(d, f"x-b-{rep}.csv", [f"moe,peer,bfloat16,eager,128,roundtrip,{t},1,0\n", f"moe,peer,bfloat16,graph,128,roundtrip,{t + 1},1,0\n"])
        r = run(d, "a", "b")
        assert r.returncode == 0, r
        assert "| x | bfloat16 | eager | 128 | roundtrip | peer | 10.00 20.00 100.00 |" in r.stdout, r.stdout
        assert "| x | bfloat16 | graph | 128 | roundtrip | peer | 11.00 21.00 101.00 |" in r.stdout, r.stdout
        # two rows of one file with the same key: an error, not a silent mix
        write(d, "x-b-3.csv", ["moe,peer,bfloat16,eager,128,roundtrip,5,1,0\n", "moe,peer,bfloat16,eager,128,roundtrip,6,1,0\n"])
        r = run(d, "a", "b")
        assert r.returncode == 2 and "two rows" in r.stderr, r
    with tempfile.TemporaryDirectory() as d:
        good = ["moe,peer,bfloat16,graph,128,roundtrip,10.0,1,0\n"]
        write(d, "x-a-1.csv", good)
        write(d, "x-b-1.csv", good)
        os.symlink(d, d + "-link")
        try:
            r = run(d + "-link", "a", "b")  # a symlink to the folder is the folder
            assert r.returncode == 0 and "| x | bfloat16 |" in r.stdout, r
        finally:
            os.remove(d + "-link")
        r = run(os.path.join(d, "x-a-1.csv"), "a", "b")  # a file, not a folder
        assert r.returncode == 2 and "not a folder" in r.stderr, r
        nasty = [
            ("x-b-2.csv", HEAD.encode() + b"moe,peer,bfloat16,graph,128,roundtrip,1\xff\xfe,1,0\n", "cannot read"),
            ("x-b-2.csv", HEAD.encode() + b"moe,peer,bfloat16,graph,128,roundtrip,10,1,abc\n", "is not a count"),
            ("x-b-2.csv", HEAD.encode() + b"moe,peer,bfloat16,graph,128,roundtrip,nan,1,0\n", "not a finite"),
            ("x-b-2.csv", HEAD.encode() + b"moe,peer,bfloat16,graph,128,roundtrip,1e999,1,0\n", "not a finite"),
            ("x-b-2.csv", b"family,dtype,time_us_mean\nmoe,bfloat16,3\n", "not a collbench MoE row"),
        ]
        for fname, data, want in nasty:
            with open(os.path.join(d, fname), "wb") as f:
                f.write(data)
            r = run(d, "a", "b")
            assert r.returncode == 2 and want in r.stderr and len(r.stderr) < 2000, (want, r)
            os.remove(os.path.join(d, fname))
        os.mkdir(os.path.join(d, "x-b-2.csv"))  # a directory with a CSV's name
        r = run(d, "a", "b")
        assert r.returncode == 2 and "cannot read" in r.stderr, r
        os.rmdir(os.path.join(d, "x-b-2.csv"))
        # a count past 2^64 is still a count: reported, exit 1
        write(d, "x-b-2.csv", [f"moe,peer,bfloat16,graph,128,roundtrip,10.0,1,{2**64 + 1}\n"])
        r = run(d, "a", "b")
        assert r.returncode == 1 and f"{2**64 + 1} wrong elements" in r.stdout, r
    for folder in ["/nonexistent-" + "x" * 5000, "/tmp/\udcff\udcfe"]:
        r = subprocess.run([sys.executable, SCRIPT, os.fsencode(folder), "a", "b"], capture_output=True)
        assert r.returncode == 2 and b"not a folder" in r.stderr and len(r.stderr) < 12000, r
    r = run("/nonexistent-folder-xyz", "a", "b")
    assert r.returncode == 2 and "not a folder" in r.stderr, r
    r = run("only-one-arg")
    assert r.returncode == 2 and "compare_ab.py DIR TREE_A TREE_B" in r.stderr, r
    print("compare_ab.py: medians, repetitions, wrong rows and bad input as expected")


if __name__ == "__main__":
    main()
