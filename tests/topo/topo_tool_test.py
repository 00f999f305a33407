#!/usr/bin/env python3
"""CPU tests of the collbench-topo command (labels: cpu).

  topo_tool_test.py TOOL TOPODIR WORKDIR json
      --json on every fixture parses back with Python's json, has the documented fields,
      agrees with the table, and --ranks / --gpus / --fake-gpus shape it as documented.
  topo_tool_test.py TOOL TOPODIR WORKDIR rankfile FIXTURE EXPECTED [TOOL ARGS...]
      --rankfile output equals a hand-checked file under tests/topo/expected/.
  topo_tool_test.py TOOL TOPODIR WORKDIR errors NOGPU_XML
      every error case exits non-zero (2 for usage/bad input) with a message on stderr that
      names the file or the problem, and never crashes.
"""
import json
import os
import re
import stat
import subprocess
import sys

GPUS = {  # per fixture: GPU count (also hand-checked in topo_fixtures_test.c)
    "h200x2-vm.xml": 2,
    "hwloc-test-2socket-pci-k40m.xml": 3,
    "hwloc-test-nvidia-dgx2.xml": 16,
    "mpibind-aws-g4dn-metal.xml": 8,
    "mpibind-coral-lassen.xml": 4,
}
SPLITTABLE = [f for f in GPUS if f != "hwloc-test-nvidia-dgx2.xml"]
failures = []


def run(tool, *args):
    p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def ranges(v):
    """[0,1,2,5] -> '0-2,5', the table's notation."""
    out, i = [], 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and v[j + 1] == v[j] + 1:
            j += 1
        out.append(str(v[i]) if i == j else "%d-%d" % (v[i], v[j]))
        i = j + 1
    return ",".join(out)


def check_plan(name, plan, ngpus, exclusive=True):
    expect(isinstance(plan, list) and len(plan) == ngpus, f"{name}: {len(plan)} objects, expected {ngpus}")
    seen = set()
    for i, r in enumerate(plan):
        for key, typ in (("local_rank", int), ("gpu_pci_busid", str), ("numa_os_index", int),
                         ("package_logical_index", int), ("cores", list), ("pus", list),
                         ("local_pus", list), ("exclusive", bool)):
            expect(isinstance(r.get(key), typ), f"{name}: rank {i}: {key} missing or not {typ.__name__}")
        expect(r.get("local_rank") == i, f"{name}: local_rank {r.get('local_rank')} at position {i}")
        expect(r.get("exclusive") is exclusive, f"{name}: rank {i} exclusive={r.get('exclusive')}")
        expect(r["cores"] and all(isinstance(c, int) for c in r["cores"] + r["pus"]),
               f"{name}: rank {i}: empty or non-integer cores/pus")
        expect(set(r["pus"]) <= set(r["local_pus"]), f"{name}: rank {i}: PUs not local to its GPU")
        if exclusive:
            expect(not (seen & set(r["cores"])), f"{name}: rank {i}: cores shared with another rank")
            seen |= set(r["cores"])
    busids = [r["gpu_pci_busid"] for r in plan]
    expect(busids == sorted(busids), f"{name}: GPUs not in bus-id order: {busids}")


def test_json(tool, topodir, work):
    for f in GPUS:
        path = os.path.join(topodir, f)
        args = ["--xml", path, "--json"] + (["--gpus"] if f not in SPLITTABLE else [])
        rc, out, err = run(tool, *args)
        expect(rc == 0, f"{f}: --json exit {rc}: {err}")
        if rc:
            continue
        plan = json.loads(out)
        check_plan(f, plan, GPUS[f], exclusive=f in SPLITTABLE)
        expect(all(r["topology"] == path for r in plan), f"{f}: topology field")
        # The table shows the same plan.
        rc, table, err = run(tool, *[a for a in args if a != "--json"])
        rows = [l.split() for l in table.splitlines()[2:]]
        expect(len(rows) == len(plan), f"{f}: table has {len(rows)} rows")
        for r, row in zip(plan, rows):
            expect(row[2] == r["gpu_pci_busid"] and row[5] == ranges(r["cores"])
                   and row[6] == ranges(r["pus"]), f"{f}: table row {row} vs JSON {r['cores']}")
    # --ranks N: the first N ranks only.
    g4dn = os.path.join(topodir, "mpibind-aws-g4dn-metal.xml")
    rc, out, err = run(tool, "--xml", g4dn, "--json", "--ranks", "3")
    expect(rc == 0 and len(json.loads(out)) == 3, f"--ranks 3: exit {rc}, {err}")
    # --fake-gpus on an XML: 4 ranks over 2 NUMA nodes.
    rc, out, err = run(tool, "--xml", g4dn, "--json", "--fake-gpus", "4")
    plan = json.loads(out) if rc == 0 else []
    check_plan("fake-gpus 4", plan, 4)
    expect([r["numa_os_index"] for r in plan] == [0, 0, 1, 1], "fake GPUs not spread over NUMA nodes")


def test_rankfile(tool, topodir, work, fixture, expected, extra):
    out = os.path.join(work, os.path.basename(expected) + ".out")
    if os.path.exists(out):
        os.remove(out)
    rc, _, err = run(tool, "--xml", os.path.join(topodir, fixture), "--rankfile", out, *extra)
    expect(rc == 0, f"{fixture}: exit {rc}: {err}")
    if rc == 0:
        got, want = open(out).read(), open(expected).read()
        expect(got == want, f"{fixture}: rankfile differs from {expected}:\n--- got\n{got}--- expected\n{want}")


def test_errors(tool, topodir, work, nogpu):
    h200 = os.path.join(topodir, "h200x2-vm.xml")
    dgx2 = os.path.join(topodir, "hwloc-test-nvidia-dgx2.xml")
    truncated = os.path.join(work, "truncated.xml")
    with open(h200) as src, open(truncated, "w") as dst:
        dst.write(src.read()[:3000])
    notxml = os.path.join(work, "notxml.xml")
    with open(notxml, "w") as f:
        f.write("this is not XML\n")
    empty = os.path.join(work, "empty.xml")
    open(empty, "w").close()
    missing = os.path.join(work, "no-such-file.xml")
    # hwloc 2.9 (and lstopo) crash on an object without complete_cpuset: contained, exit 2
    no_cpuset = os.path.join(work, "no-complete-cpuset.xml")
    with open(h200) as src, open(no_cpuset, "w") as dst:
        dst.write(re.sub(r' complete_cpuset="[^"]*"', "", src.read(), count=1))
    rf = os.path.join(work, "err.rankfile")
    cases = [  # (args, exit code, fragments that stderr must contain)
        (["--xml", missing], 2, [missing, "No such file"]),
        (["--xml", truncated], 2, [truncated, "not a valid hwloc XML"]),
        (["--xml", notxml], 2, [notxml, "not a valid hwloc XML"]),
        (["--xml", empty], 2, [empty, "empty"]),
        (["--xml", work], 2, [work, "not a regular file"]),
        (["--xml", no_cpuset], 2, [no_cpuset, "hwloc crashed reading it"]),
        (["--xml", no_cpuset, "--rankfile", rf, "--hosts", "a"], 2, [no_cpuset, "hwloc crashed"]),
        (["--xml", "/proc/cpuinfo"], 2, ["/proc/cpuinfo", "not a valid hwloc XML"]),  # size 0 on stat, not empty
        (["--xml", "/proc/self/status"], 2, ["/proc/self/status", "not a valid hwloc XML"]),
        (["--xml", nogpu], 2, [nogpu, "no GPUs"]),
        (["--xml", dgx2], 2, [dgx2, "free core", "cannot give each rank its own core"]),
        (["--xml", dgx2, "--rankfile", rf, "--hosts", "a"], 2, [dgx2, "free core"]),
        (["--xml", h200, "--ranks", "3"], 2, [h200, "--ranks 3", "2 GPU"]),
        (["--xml", h200, "--ranks", "3", "--rankfile", rf, "--hosts", "a,b"], 2, ["--ranks 3"]),
        (["--xml", h200, "--gpus", "--rankfile", rf, "--hosts", "a"], 2, ["--gpus"]),
        (["--bogus"], 2, ["unknown option '--bogus'"]),
        (["stray"], 2, ["unexpected argument 'stray'"]),
        (["--xml"], 2, ["--xml needs a value"]),
        (["--xml="], 2, ["--xml needs a non-empty value"]),
        (["--xml", h200, "--xml", h200], 2, ["--xml given twice"]),
        (["--ranks"], 2, ["--ranks needs a value"]),
        (["--ranks", "abc"], 2, ["--ranks", "'abc' is not a positive integer"]),
        (["--ranks", "0"], 2, ["'0' is not a positive integer"]),
        (["--fake-gpus", "-1"], 2, ["'-1' is not a positive integer"]),
        (["--xml", h200, "--rankfile", rf], 2, ["--rankfile needs --hosts"]),
        (["--xml", h200, "--hosts", "a"], 2, ["--hosts needs --rankfile"]),
        (["--xml", h200, "--rankfile", rf, "--hosts", "a,,b"], 2, ["'a,,b'", "non-empty"]),
        (["--xml", h200, "--rankfile", rf, "--hosts", "a,a"], 2, ["'a' is listed twice"]),
        (["--xml", h200, "--rankfile", os.path.join(work, "no-dir", "rf"), "--hosts", "a"], 2,
         [os.path.join(work, "no-dir", "rf"), "cannot write rankfile"]),
    ]
    for args, code, fragments in cases:
        if os.path.exists(rf):
            os.remove(rf)
        rc, out, err = run(tool, *args)
        expect(rc == code, f"{args}: exit {rc}, expected {code}; stderr: {err.strip()}")
        for frag in fragments:
            expect(frag in err, f"{args}: stderr lacks '{frag}': {err.strip()}")
        expect(not os.path.exists(rf), f"{args}: left a rankfile behind")
        print(f"ok {args} -> {rc}: {err.strip()}")
    rc, out, err = run(tool, "--help")
    expect(rc == 0 and "usage:" in out and "--rankfile" in out, "--help")
    # The live machine: GPUs found (exit 0) or "no GPUs" with exit 5; never anything else.
    rc, out, err = run(tool)
    expect(rc == 0 or (rc == 5 and "no GPUs" in err), f"live: exit {rc}: {err.strip()}")


def test_rankfile_targets(tool, topodir, work):
    """--rankfile never deletes or blocks on what it cannot write: a directory, a FIFO, a
    device node (through a symlink to /dev/null) and a read-only file (as a non-root user)
    are refused with exit 2 and left as they were; a failed plan leaves an existing file and
    no temporary file behind."""
    h200 = os.path.join(topodir, "h200x2-vm.xml")
    dgx2 = os.path.join(topodir, "hwloc-test-nvidia-dgx2.xml")
    adir = os.path.join(work, "a-directory")
    os.makedirs(adir, exist_ok=True)
    fifo = os.path.join(work, "a-fifo")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    devlink = os.path.join(work, "dev-null-link")
    if not os.path.lexists(devlink):
        os.symlink("/dev/null", devlink)
    targets = [(adir, os.path.isdir), (fifo, lambda p: stat.S_ISFIFO(os.stat(p).st_mode)),
               (devlink, lambda p: stat.S_ISCHR(os.stat(p).st_mode))]
    if os.geteuid() != 0:  # root may write a read-only file, as with any tool
        ro = os.path.join(work, "read-only.rankfile")
        with open(ro, "w") as f:
            f.write("keep me\n")
        os.chmod(ro, 0o444)
        targets.append((ro, lambda p: open(p).read() == "keep me\n"))
    for path, intact in targets:
        try:
            p = subprocess.run([tool, "--xml", h200, "--rankfile", path, "--hosts", "a"], capture_output=True,
                               text=True, timeout=20)
        except subprocess.TimeoutExpired:
            expect(False, f"--rankfile {path}: still running after 20 s")
            continue
        expect(p.returncode == 2 and "cannot write rankfile" in p.stderr,
               f"--rankfile {path}: exit {p.returncode}, stderr {p.stderr.strip()!r}")
        expect(os.path.lexists(path) and intact(path), f"--rankfile {path}: changed or deleted")
    existing = os.path.join(work, "existing.rankfile")
    with open(existing, "w") as f:
        f.write("old\n")
    rc, _, err = run(tool, "--xml", dgx2, "--rankfile", existing, "--hosts", "a")
    expect(rc == 2 and open(existing).read() == "old\n", f"failed plan: exit {rc}, existing file changed")
    rc, _, err = run(tool, "--xml", h200, "--rankfile", existing, "--hosts", "a")
    expect(rc == 0 and open(existing).read().startswith("rank 0=a"), f"rewrite: exit {rc}: {err.strip()}")
    left = [n for n in os.listdir(work) if n.startswith("existing.rankfile.")]
    expect(not left, f"temporary files left behind: {left}")


def main():
    tool, topodir, work, mode = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    if mode == "json":
        test_json(tool, topodir, work)
    elif mode == "rankfile":
        test_rankfile(tool, topodir, work, sys.argv[5], sys.argv[6], sys.argv[7:])
    elif mode == "targets":
        test_rankfile_targets(tool, topodir, work)
    elif mode == "errors":
        test_errors(tool, topodir, work, sys.argv[5])
    else:
        sys.exit(f"unknown mode {mode}")
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("all ok")


if __name__ == "__main__":
    main()
