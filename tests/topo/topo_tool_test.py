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
import resource
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
    # A non-UTF-8 XML path: the JSON is still valid UTF-8 (bad bytes as U+FFFD, issue 32 N9).
    odd = os.path.join(os.fsencode(work), b"odd-\xff\xfe-\x01.xml")
    with open(os.path.join(topodir, "h200x2-vm.xml"), "rb") as src, open(odd, "wb") as dst:
        dst.write(src.read())
    p = subprocess.run([os.fsencode(tool), b"--xml", odd, b"--json"], capture_output=True, timeout=60)
    try:
        plan = json.loads(p.stdout.decode("utf-8", errors="strict"))
        expect(p.returncode == 0 and "odd-\ufffd\ufffd-\x01.xml" in plan[0]["topology"],
               f"non-UTF-8 path: topology {plan[0]['topology']!r}")
    except (UnicodeDecodeError, ValueError, IndexError, KeyError) as e:
        expect(False, f"non-UTF-8 path: --json is not valid UTF-8 JSON ({e}): {p.stdout[:300]!r}")
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
    dup_busid = os.path.join(work, "dup-busid.xml")
    with open(h200) as src, open(dup_busid, "w") as dst:
        dst.write(src.read().replace('pci_busid="0000:00:07.0"', 'pci_busid="0000:00:06.0"'))
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
        # a count the plan cannot hold is a usage error (it was exit 5, "this machine cannot")
        (["--fake-gpus", "65"], 2, ["--fake-gpus", "65 is more than 64"]),
        (["--xml", h200, "--fake-gpus", "65"], 2, ["65 is more than 64"]),
        (["--ranks", "+2"], 2, ["'+2' is not a positive integer"]),
        (["--ranks", " 2"], 2, ["' 2' is not a positive integer"]),
        (["--ranks", "0x2"], 2, ["'0x2' is not a positive integer"]),
        # two GPUs at one PCI bus id: not a machine (both ranks would open one CUDA device)
        (["--xml", dup_busid], 2, [dup_busid, "two GPUs at PCI bus id 0000:00:06.0"]),
        (["--xml", h200, "--rankfile", rf], 2, ["--rankfile needs --hosts"]),
        (["--xml", h200, "--hosts", "a"], 2, ["--hosts needs --rankfile"]),
        (["--xml", h200, "--rankfile", rf, "--hosts", "a,,b"], 2, ["'a,,b'", "non-empty"]),
        (["--xml", h200, "--rankfile", rf, "--hosts", "a,a"], 2, ["'a' is listed twice"]),
        # host names that would change what Open MPI reads from the rankfile (issue 32 N10)
        (["--xml", h200, "--rankfile", rf, "--hosts", "a:4"], 2, ["--hosts: host name", "':'"]),
        (["--xml", h200, "--rankfile", rf, "--hosts", "ok,#"], 2, ["--hosts: host name", "'#'"]),
        (["--xml", h200, "--rankfile", rf, "--hosts", "a\rb"], 2, ["--hosts: host name 'a...'", "byte 0x0d"]),
        (["--xml", h200, "--rankfile", rf, "--hosts", "a\x01"], 2, ["byte 0x01"]),
        (["--xml", h200, "--rankfile", rf, "--hosts", "a b"], 2, ["' '"]),
        (["--xml", h200, "--rankfile", rf, "--hosts", "a=b"], 2, ["'='"]),
        (["--xml", h200, "--rankfile", rf, "--hosts", "x" * 256], 2, ["256 characters", "1 to 255"]),
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
    # the longest host name a rankfile takes, and the characters it does
    rc, _, err = run(tool, "--xml", h200, "--rankfile", rf, "--hosts", "x" * 255 + ",n-1.a_b")
    expect(rc == 0 and open(rf).read().count("\n") == 4, f"255-character host: exit {rc}: {err.strip()}")
    os.remove(rf)
    test_no_core_file(tool, work, no_cpuset)
    rc, out, err = run(tool, "--help")
    expect(rc == 0 and "usage:" in out and "--rankfile" in out, "--help")
    # The live machine: GPUs found (exit 0) or "no GPUs" with exit 5; never anything else.
    rc, out, err = run(tool)
    expect(rc == 0 or (rc == 5 and "no GPUs" in err), f"live: exit {rc}: {err.strip()}")


def test_no_core_file(tool, work, crashing_xml):
    """hwloc's crash on a broken XML is contained in a child process; with core dumps enabled
    (common on clusters) it must not leave a core file in the working folder (issue 32 N11)."""
    pattern = open("/proc/sys/kernel/core_pattern").read().strip()
    if pattern.startswith("|") or "/" in pattern:
        print(f"skip core-file check: core_pattern {pattern!r} does not write into the working folder")
        return
    folder = os.path.join(work, "core-check")
    os.makedirs(folder, exist_ok=True)
    for n in os.listdir(folder):
        os.remove(os.path.join(folder, n))
    unlimited = lambda: resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    p = subprocess.run([tool, "--xml", crashing_xml], capture_output=True, text=True, timeout=60, cwd=folder,
                       preexec_fn=unlimited)
    expect(p.returncode == 2 and "hwloc crashed" in p.stderr, f"crashing XML: exit {p.returncode}: {p.stderr.strip()}")
    left = os.listdir(folder)
    expect(not left, f"the contained hwloc crash left {left} in the working folder")


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
    def kept(name, mode=0o644, owner=None):
        path = os.path.join(work, name)
        if os.path.lexists(path):
            os.remove(path)
        with open(path, "w") as f:
            f.write("keep me\n")
        os.chmod(path, mode)
        if owner is not None:
            os.chown(path, owner, owner)
        return path
    unchanged = lambda p: open(p).read() == "keep me\n"
    # a read-only file stays so, for root too (access() says yes to root): the mode bits decide
    targets.append((kept("read-only.rankfile", 0o444), unchanged))
    if os.geteuid() == 0:  # another user's file (root could replace it; it must not)
        targets.append((kept("other-user.rankfile", 0o644, 65534), unchanged))
    # a symlink at the name: refused, its target (a regular file) never written (issue 32 N17)
    target = kept("symlink-target")
    link = os.path.join(work, "symlinked.rankfile")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(target, link)
    targets.append((link, lambda p: os.path.islink(p) and unchanged(target)))
    dangling = os.path.join(work, "dangling.rankfile")
    if os.path.lexists(dangling):
        os.remove(dangling)
    os.symlink(os.path.join(work, "dangling-target"), dangling)
    targets.append((dangling, lambda p: os.path.islink(p) and not os.path.exists(p)))
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
