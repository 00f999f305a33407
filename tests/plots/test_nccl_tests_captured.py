#!/usr/bin/env python3
"""The nccl-tests reader (plots/nccl_tests.py) on output real nccl-tests binaries wrote: every
capture folder under DIR (data/nccl-tests/captured/README.md says how one is made) holds NAME.txt (a *_perf binary's stdout) and NAME.json (its -J file, same
run). For each pair:
- both files are that binary's own, of one run: the version, "starting"/"concluded" and "Writing
  JSON output to NAME.json" lines in the text; in the JSON args[0] and -J, version 3, end_time
  (the writer finished), no whitespace (util.cu writes none; a re-serialised file has some), and
  the text's Rank line's pid and host in its devices;
- the reader gives the same rows from both: sizes, counts, dtype, op, in-place, #wrong, and each
  time/algbw/busbw of the text is the JSON's value printed as util.cu's getFloatStr prints it
  (width 7 or 6, 2 decimals down to none, then an exponent);
- the same family (from the binary's name), ranks (the text's Rank lines; the JSON's devices x
  nthreads x ngpus; -g of the command), GPU name, hosts, iterations, mode, NCCL library version;
- the JSON's env holds only PATH, LD_LIBRARY_PATH, CUDA_VISIBLE_DEVICES and NCCL_* (the capture
  script runs the binaries under env -i: a committed fixture must not carry a machine's env);
- the command line imports both (exit 0, one folder each, as many CSV rows as the reader's) and
  plots/plot --nccl-tests charts the JSON and writes its summary (real gnuplot);
- six edits of the first pair (a busbw 0.02 off, a row gone, another pid, the env left in, the
  JSON re-serialised or cut off) are each refused: the checks can fail.
Exits 77 (CTest: skipped) with the reason when DIR holds no capture yet.
usage: test_nccl_tests_captured.py DIR WORKDIR   (WORKDIR is wiped first)
"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
READER = os.path.join(ROOT, "plots", "nccl_tests.py")
PLOT = os.path.join(ROOT, "plots", "plot")
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "plots"))
import nccl_tests  # noqa: E402
SKIP = 77
ENV_KEYS = ("PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES")
WIDTHS = {"time_us_mean": 7, "algbw_gbs": 6, "busbw_gbs": 6}  # util.cu: char timeStr[8], algBwStr[7]


class Failed(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failed(what)


def float_str(value, width):
    """util.cu's getFloatStr: the widest of %.2f, %.1f, %.0f that fits width, else an exponent."""
    for fmt in ("%*.2f", "%*.1f", "%*.0f"):
        s = fmt % (width, value)
        if len(s) <= width:
            return s
    return ("%*.1e" if width >= 7 else "%*.0e") % (width, value)


def captures(top):
    """{folder: [NAME, ...]} of every folder under top holding NAME.txt or NAME.json files."""
    found = {}
    for d, _, files in os.walk(top):
        names = sorted({os.path.splitext(f)[0] for f in files if f.endswith((".txt", ".json"))})
        if names:
            found[d] = names
    return found


def check_raw(name, text, raw, doc):
    """Both files are the binary NAME's own, written in one run."""
    lines = text.splitlines()
    for want in (f"# Collective test starting: {name}", f"# Collective test concluded: {name}"):
        expect(want in lines, f"{name}.txt: no '{want}' line")
    expect(any(re.fullmatch(r"# nccl-tests version \S+ nccl-headers=\d+ nccl-library=\d+", ln) for ln in lines),
           f"{name}.txt: no '# nccl-tests version' line")
    wrote = [ln.split(" to ", 1)[1] for ln in lines if ln.startswith("# Writing JSON output to ")]
    expect([os.path.basename(w) for w in wrote] == [f"{name}.json"],
           f"{name}.txt: 'Writing JSON output to' names {wrote}, not {name}.json (another run's file?)")
    expect(doc.get("version") == 3, f"{name}.json: version {doc.get('version')}, nccl-tests 2.19.6 writes 3")
    args = doc.get("args", [])
    expect(args and os.path.basename(args[0]) == name, f"{name}.json: args[0] is {args[:1]}")
    expect("-J" in args[:-1] and os.path.basename(args[args.index("-J") + 1]) == f"{name}.json",
           f"{name}.json: args {args} do not write {name}.json")
    expect(isinstance(doc.get("end_time"), str), f"{name}.json: no end_time: the run did not finish")
    expect(not re.search(r"\s", raw.replace(" ", "")) and not raw.endswith("\n") and '": ' not in raw,
           f"{name}.json: holds whitespace between tokens: not as util.cu writes it (re-serialised?)")
    rank = nccl_tests.RANK_LINE.match(next((ln for ln in lines if nccl_tests.RANK_LINE.match(ln)), ""))
    dev = (doc.get("config", {}).get("devices") or [{}])[0]
    expect(rank is not None, f"{name}.txt: no '#  Rank' line")
    pid = re.search(r"Pid\s+(\d+)", rank[0])[1]
    expect((dev.get("pid"), dev.get("hostname")) == (int(pid), rank[2]),
           f"{name}: the JSON's pid/host {dev.get('pid')}/{dev.get('hostname')} are not the text's {pid}/{rank[2]}")
    bad_env = [e for e in doc.get("env", []) if not (e.split("=", 1)[0] in ENV_KEYS or e.startswith("NCCL_"))]
    expect(not bad_env, f"{name}.json: env holds {len(bad_env)} entries beyond PATH and NCCL_* "
                        f"(first: {bad_env[0][:40] if bad_env else ''}): run the binaries under env -i")
    expect(doc.get("out_of_bounds", {}).get("okay") == "true" and "# Out of bounds values : 0 OK" in lines,
           f"{name}: out-of-bounds values reported")
    gflag = int(args[args.index("-g") + 1]) if "-g" in args[:-1] else 1
    return gflag


def check_rows(name, rows_t, rows_j, results):
    expect(rows_t and len(rows_t) == len(rows_j) == 2 * len(results),
           f"{name}: {len(rows_t)} text rows, {len(rows_j)} JSON rows, {len(results)} JSON results")
    for t, j in zip(rows_t, rows_j):
        at = f"{name} {t['bytes']} B {'in' if t['inplace'] else 'out-of'}-place"
        same = ("family", "algo", "dtype", "op", "bytes", "count", "inplace", "wrong", "ranks", "nodes", "gpu",
                "mode", "iters")
        diff = {k: (t[k], j[k]) for k in same if t[k] != j[k]}
        expect(not diff, f"{at}: text and JSON differ: {diff}")
        for k, w in WIDTHS.items():
            if t[k] == "" or j[k] == "":
                expect(t[k] == j[k], f"{at}: {k} text {t[k]!r}, JSON {j[k]!r}")
                continue
            printed = float_str(j[k], w)
            expect(float(printed) == t[k], f"{at}: {k}: text {t[k]}, JSON {j[k]} prints as {printed.strip()}")


def check_meta(name, mt, mj, doc, gflag):
    fam = nccl_tests.FAMILIES[name[:-len("_perf")]]
    expect(list(mt) == [fam] and list(mj) == [fam], f"{name}: families {list(mt)} (text), {list(mj)} (JSON)")
    mt, mj = mt[fam], mj[fam]
    cfg = doc["config"]
    ranks = len(cfg["devices"]) * cfg["nthreads"] * cfg["ngpus"]
    expect(mt["ranks"] == mj["ranks"] == ranks and cfg["ngpus"] == gflag,
           f"{name}: ranks {mt['ranks']} (text Rank lines), {mj['ranks']} (JSON), {ranks} (config), -g {gflag}")
    expect(mt["gpu"] and mt["gpu"] == mj["gpu"], f"{name}: GPU {mt['gpu']!r} (text), {mj['gpu']!r} (JSON)")
    for k in ("hosts", "nodes", "iters", "mode", "nccl_version_code"):
        expect(mt.get(k) == mj.get(k) and mt.get(k) not in (None, ""), f"{name}: {k} {mt.get(k)!r} (text), "
                                                                       f"{mj.get(k)!r} (JSON)")
    expect(os.path.basename(mt["program"]) == os.path.basename(mj["program"]) == name,
           f"{name}: programs {mt['program']!r}, {mj['program']!r}")
    expect(mt.get("nccl_tests_version"), f"{name}: the text's nccl-tests version was not read")


def check_cli(name, folder, work):
    """The command line imports both files: one folder each, the reader's rows."""
    counts = []
    for ext in ("txt", "json"):
        out = os.path.join(work, f"{os.path.basename(folder)}-{name}-{ext}")
        p = subprocess.run([sys.executable, READER, "--out", out, os.path.join(folder, f"{name}.{ext}")],
                           capture_output=True, text=True)
        expect(p.returncode == 0 and not p.stderr, f"nccl_tests.py {name}.{ext}: rc {p.returncode}\n{p.stderr}")
        made = p.stdout.split()
        expect(len(made) == 1, f"nccl_tests.py {name}.{ext}: folders {made}")
        with open(os.path.join(made[0], "results.csv"), newline="") as f:
            counts.append(len(list(csv.DictReader(f))))
    expect(counts[0] == counts[1], f"{name}: CSV rows {counts[0]} (text), {counts[1]} (JSON)")
    out = os.path.join(work, f"{os.path.basename(folder)}-{name}-plot")
    p = subprocess.run([PLOT, "--nccl-tests", os.path.join(folder, f"{name}.json"), "--out", out],
                       capture_output=True, text=True)
    fam = nccl_tests.FAMILIES[name[:-len("_perf")]]
    expect(p.returncode == 0 and os.path.isfile(os.path.join(out, fam, "summary.md")),
           f"plots/plot --nccl-tests {name}.json: rc {p.returncode}\n{p.stderr}")


def check_pair(folder, name, work):
    txt, jsn = (os.path.join(folder, f"{name}.{ext}") for ext in ("txt", "json"))
    for path in (txt, jsn):
        expect(os.path.isfile(path), f"{path}: missing (a capture is the pair NAME.txt + NAME.json of one run)")
    expect(name.endswith("_perf") and name[:-len("_perf")] in nccl_tests.FAMILIES,
           f"{folder}: {name}: not an nccl-tests binary collbench reads")
    with open(txt, encoding="utf-8") as f:
        text = f.read()
    with open(jsn, encoding="utf-8") as f:
        raw = f.read()
    doc = json.loads(raw)
    gflag = check_raw(name, text, raw, doc)
    rows_t, mt, ft = nccl_tests.read(txt)
    rows_j, mj, fj = nccl_tests.read(jsn)
    expect((ft, fj) == ("text", "json"), f"{name}: formats {ft}, {fj}")
    check_rows(name, rows_t, rows_j, doc["results"])
    check_meta(name, mt, mj, doc, gflag)
    check_cli(name, folder, work)
    m = mt[rows_t[0]["family"]]
    return f"{name}: {len(rows_t)} rows, {m['ranks']} rank(s), {m['gpu']}, NCCL {m['nccl_version_code']}"


def mutants(text, raw):
    """(what, text, raw) edits of a real pair each of which check_pair must refuse: the checks can fail."""
    doc = json.loads(raw)
    first = doc["results"][-1]["out_of_place"]
    bumped = dict(doc, results=doc["results"][:-1] + [dict(doc["results"][-1], out_of_place=dict(
        first, bus_bw=first["bus_bw"] + 0.02))])
    pid = re.search(r'"pid":(\d+)', raw)[1]
    lines = text.splitlines(keepends=True)
    row = next(i for i, ln in enumerate(lines) if nccl_tests.DEFAULT_ROW.fullmatch(ln.rstrip("\n")))
    return [("a busbw 0.02 off", text, json.dumps(bumped, separators=(",", ":"))),
            ("re-serialised with indent", text, json.dumps(doc, indent=1)),
            ("another run's pid", text, raw.replace(f'"pid":{pid}', f'"pid":{int(pid) + 1}', 1)),
            ("the environment left in", text, raw.replace('"env":[', '"env":["HOME=\\/root",', 1)),
            ("a row missing in the text", "".join(lines[:row] + lines[row + 1:]), raw),
            ("the writer cut off", text, raw[:raw.rindex(',"end_time"')] + "}")]


def check_mutants(folder, name, work):
    with open(os.path.join(folder, f"{name}.txt"), encoding="utf-8") as f:
        text = f.read()
    with open(os.path.join(folder, f"{name}.json"), encoding="utf-8") as f:
        raw = f.read()
    for i, (what, t, r) in enumerate(mutants(text, raw)):
        d = os.path.join(work, f"mutant{i}")
        os.makedirs(d)
        for ext, data in (("txt", t), ("json", r)):
            with open(os.path.join(d, f"{name}.{ext}"), "w", encoding="utf-8") as f:
                f.write(data)
        try:
            check_pair(d, name, work)
        except (Failed, nccl_tests.cbcsv.InputError) as e:
            print(f"mutant refused ({what}): {str(e)[:100]}")
            continue
        raise Failed(f"{name} with {what}: accepted")


def main(argv):
    if len(argv) != 3:
        print(f"usage: {argv[0]} DIR WORKDIR", file=sys.stderr)
        return 2
    top, work = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    found = captures(top) if os.path.isdir(top) else {}
    if not found:
        print(f"skipped: no captured nccl-tests output under {top} (README.md there says how to make "
              "one on a GPU machine)")
        return SKIP
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    failed = 0
    for folder, names in sorted(found.items()):
        for name in names:
            try:
                print(f"{os.path.relpath(folder, top)}: {check_pair(folder, name, work)}")
            except (Failed, nccl_tests.cbcsv.InputError, ValueError, KeyError, TypeError) as e:
                print(f"FAIL {os.path.relpath(folder, top)}/{name}: {type(e).__name__}: {e}", file=sys.stderr)
                failed += 1
    if not failed:
        try:
            check_mutants(*next((f, n[0]) for f, n in sorted(found.items())), work)
        except Failed as e:
            print(f"FAIL: {e}", file=sys.stderr)
            failed += 1
    print(f"nccl-tests captured: {'ok' if not failed else f'{failed} failed'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
