#!/usr/bin/env python3
"""Reads NVIDIA nccl-tests output into collbench result rows, so that a cluster's own
nccl-tests run can be charted and judged beside collbench's (plots/plot --nccl-tests).

Two formats, told apart by the first character ('{' is JSON):
- the text table the *_perf binaries print: "#  size count type redop root" and two column
  groups (out-of-place, in-place) of "time algbw busbw #wrong" (per-iteration columns and a
  timestamp may follow; the header line says where each group starts). A table whose header was
  cut away (a log excerpt) is read with the default layout, 13 fields. The binary comes from
  "# Collective test starting: X" before the table or "# Collective test concluded: X" after it;
  ranks, hosts and GPUs from the "#  Rank N Group G Pid P on HOST device D [BUS] NAME" lines,
  the versions from "# nccl-tests version V nccl-headers=H nccl-library=L" (printed just before
  "starting"; L is what the JSON calls nccl_version).
- the file `-J FILE` writes (JSON_FILE_VERSION 3; src/util.cu of nccl-tests 2.19.6): "args"
  (args[0] names the binary), "config" (ngpus, nthreads, iterations, graph, "devices": one
  entry per process, parsed from its first GPU's "#  Rank" line) and "results", one object per
  size with "out_of_place"/"in_place"
  {"time" or "cpu_time", "alg_bw", "bus_bw", "nwrong": number or null}. That writer prints a NaN
  as the string "nan" and an infinity as a bare inf (not JSON): both are refused, as the text
  table's nan is. Test plot_nccl_tests_captured reads the files real binaries wrote
  (tests/plots/data/nccl-tests/captured/: the text and the JSON of one run give the same rows).
Each becomes collbench's CSV row (docs/results-format.md): algo "nccl-tests", the family from
the binary (all_reduce_perf -> allreduce ...), nccl-tests' own size and count (collbench uses
the same definitions). Tables of a binary collbench has no family for are skipped with a
warning. Bad input (not UTF-8, empty, over MAX_BYTES, a malformed row, JSON of another shape)
raises cbcsv.InputError: one line naming the file; the command line exits 2.

usage: nccl_tests.py [--family F] --out DIR FILE
  writes DIR/<family>/results.csv and results.json (meta.tool "nccl-tests") per family found
  and prints each folder; --family names the collective of tables that do not name their binary.
"""
import argparse
import json
import math
import os
import re
import sys

sys.dont_write_bytecode = True
import cbcsv  # noqa: E402

MAX_BYTES = 64 << 20  # a whole nccl-tests sweep with NCCL_DEBUG=INFO is a few MB
ALGO = "nccl-tests"
FAMILIES = {"all_reduce": "allreduce", "all_gather": "allgather", "reduce_scatter": "reducescatter",
            "alltoall": "alltoall", "sendrecv": "sendrecv"}
DTYPES = {"f8e4m3": "fp8e4m3", "f8e5m2": "fp8e5m2"}  # nccl-tests' names where collbench's differ
COLUMNS = ("family", "algo", "dtype", "op", "bytes", "count", "inplace", "ranks", "nodes", "gpu",
           "time_us_mean", "algbw_gbs", "busbw_gbs", "wrong", "note", "mode", "iters")
DEFAULT_HEADER = "size count type redop root time algbw busbw #wrong time algbw busbw #wrong".split()
RANK_LINE = re.compile(r"#\s+Rank\s+(\d+)\s+Group\s+\d+\s+Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)"
                       r"\s+\[([^\]]*)\]\s*(.*)")
NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
# #wrong is printed with %6g: 1e+06 and more wrong elements read in exponent form
DEFAULT_ROW = re.compile(rf"\s*\d+\s+\d+\s+\w+\s+\w+\s+-?\d+(?:\s+{NUM}\s+{NUM}\s+{NUM}\s+(?:{NUM}|N/A)){{2}}\s*")
VERSION_KEYS = ("nccl_tests_version", "nccl_version_code", "nccl_headers_code")


def family_of(program, where, strict=False):
    """all_reduce_perf (any path, .exe) -> allreduce. A binary collbench has no family for:
    InputError when strict, else None and a warning (its table is skipped)."""
    name = re.sub(r"(_perf)?(\.exe)?$", "", os.path.basename(program.strip()))
    if name in FAMILIES:
        return FAMILIES[name]
    why = (f"{where}: {program.strip()}: collbench has no family for it (it reads "
           f"{', '.join(k + '_perf' for k in FAMILIES)})")
    if strict:
        raise cbcsv.InputError(why)
    print(f"plots: warning: {why}; table skipped", file=sys.stderr)
    return None


def read_text_file(path):
    """The file's text: regular, at most MAX_BYTES, UTF-8, not empty."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise cbcsv.InputError(f"{path}: cannot read ({e.strerror})")
    if not os.path.isfile(path):
        raise cbcsv.InputError(f"{path}: not a regular file")
    if st.st_size > MAX_BYTES:
        raise cbcsv.InputError(f"{path}: {st.st_size} bytes, more than the {MAX_BYTES >> 20} MiB an nccl-tests "
                               "output can be (cut the log to its tables)")
    try:
        with open(path, "rb") as f:
            text = f.read(MAX_BYTES + 1).decode("utf-8")
    except UnicodeDecodeError as e:
        raise cbcsv.InputError(f"{path}: not UTF-8 text (byte {e.start}): not nccl-tests output")
    except OSError as e:
        raise cbcsv.InputError(f"{path}: cannot read ({e.strerror})")
    if not text.strip():
        raise cbcsv.InputError(f"{path}: empty file")
    return text


def make_row(family, dtype, op, size, count, inplace, time, algbw, busbw, wrong, note, run):
    """One collbench CSV row (dict by column). A 0-byte or non-positive time row is kept as skipped."""
    measured = size > 0 and time is not None and time > 0
    if not measured:
        note = "; ".join(n for n in (note, f"{size} B, time {time}: nccl-tests timed no transfer, not charted") if n)
    return {"family": family, "algo": ALGO, "dtype": DTYPES.get(dtype, dtype), "op": op, "bytes": size,
            "count": count, "inplace": inplace, "ranks": run.get("ranks", ""), "nodes": run.get("nodes", ""),
            "gpu": run.get("gpu", ""), "time_us_mean": time if measured else "",
            "algbw_gbs": algbw if measured else "", "busbw_gbs": busbw if measured else "",
            "wrong": "" if wrong is None else wrong, "note": note, "mode": run.get("mode", "eager"),
            "iters": run.get("iters", "")}


def devices_meta(devices, ranks):
    """ranks, nodes, hosts, gpu, rank_info from (rank, host, device, bus, gpu name) tuples."""
    hosts = sorted({d[1] for d in devices})
    gpus = sorted({d[4] for d in devices if d[4]})
    meta = {"ranks": ranks, "hosts": hosts, "nodes": len(hosts) or "",
            "rank_info": [{"rank": r, "host": h, "device": dev, "pci_busid": bus, "gpu": g}
                          for r, h, dev, bus, g in devices]}
    meta["gpu"] = gpus[0] if len(gpus) == 1 else ""
    return meta


class _Table:
    def __init__(self, header, line, program):
        self.header, self.line, self.program, self.rows = header, line, program, []


def parse_text(lines, where, family=None):
    """Rows and per-family run metadata ({family: meta}) of nccl-tests text output (a list of
    lines); where names the input in messages. family: for tables that do not name their binary."""
    rows, metas, tables = [], {}, []
    run, devices, program, table = {}, [], None, None

    def close(prog):
        nonlocal table
        if table is None:
            return
        name = prog or table.program
        fam = family_of(name, f"{where}:{table.line}") if name else family
        if fam is None and not name:
            raise cbcsv.InputError(f"{where}:{table.line}: a table with no 'Collective test starting:' or "
                                   "'concluded:' line naming its binary: cannot tell the collective (--family)")
        if fam is not None:
            meta = dict(run, **devices_meta(devices, len(devices) or ""))
            meta["program"] = name or ""
            tables.append((fam, table, meta))
        table = None

    for n, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n")
        toks = line.split()
        if line.startswith("#"):
            body = line[1:].split()
            m = RANK_LINE.match(line)
            if m:
                devices.append((int(m[1]), m[2], int(m[3]), m[4], m[5].strip()))
            elif line.startswith("# nccl-tests version"):
                close(None)  # a table still open (its "concluded" line cut away) is the previous run's
                run.update(_version_meta(body))
            elif line.startswith("# Collective test starting:"):
                close(None)  # the version line just before belongs to this run
                program, devices = line.split(":", 1)[1].strip(), []
                run = {k: run[k] for k in VERSION_KEYS if k in run}
            elif line.startswith("# Collective test concluded:"):
                close(line.split(":", 1)[1].strip())
                program = None
            elif line.startswith("# nThread"):
                for key, pat in (("iters", r"(?:^|[^a-z] )iters: (\d+)"), ("warmup", r"warmup iters: (\d+)"),
                                 ("graph", r"\bgraph: (\d+)")):
                    m = re.search(pat, line)
                    if m:
                        run[key] = int(m[1])
                run["mode"] = "graph" if run.get("graph") else "eager"
            elif body[:5] == DEFAULT_HEADER[:5]:
                close(None)
                table = _Table(body, n, program)
            elif body[:1] == ["Out"] or body[:2] == ["Avg", "bus"]:
                pass  # footer lines before "concluded"
            continue
        if not toks or not toks[0].isdigit():
            continue  # NCCL INFO lines, build output, section headings
        if table is None:
            if not DEFAULT_ROW.fullmatch(line):
                continue  # a number-led line outside any table is not a row
            table = _Table(DEFAULT_HEADER, n, program)
        table.rows.append(_text_row(table.header, toks, f"{where}:{n}"))
    close(None)
    for fam, t, meta in tables:
        if fam in metas and metas[fam].get("ranks") and meta.get("ranks") and metas[fam]["ranks"] != meta["ranks"]:
            raise cbcsv.InputError(f"{where}:{t.line}: this {fam} table has {meta['ranks']} ranks, an earlier one "
                                   f"{metas[fam]['ranks']}: one run per file")
        if fam not in metas or (meta.get("ranks") and not metas[fam].get("ranks")):
            metas[fam] = meta
        for r in t.rows:
            rows.extend(make_row(fam, *r[:2], *r[2:4], ip, *grp, "", meta) for ip, grp in ((0, r[4]), (1, r[5])))
    return rows, metas


def _version_meta(body):
    """nccl_tests_version, nccl_headers_code and nccl_version_code (the library's, as the JSON's
    nccl_version) of "# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22803"."""
    meta = {"nccl_tests_version": body[2]} if len(body) > 2 else {}
    for tok in body[3:]:
        key, _, val = tok.partition("=")
        if key in ("nccl-headers", "nccl-library") and val.isdigit():
            meta["nccl_headers_code" if key == "nccl-headers" else "nccl_version_code"] = int(val)
    return meta


def _text_row(header, toks, where):
    """(dtype, op, size, count, out-of-place group, in-place group) of one table row."""
    times = [i for i, h in enumerate(header) if h in ("time", "cputime")]
    if len(times) != 2 or header[:5] != DEFAULT_HEADER[:5]:
        raise cbcsv.InputError(f"{where}: the table header is not nccl-tests' (size count type redop root, "
                               "then two time algbw busbw #wrong groups)")
    if len(toks) < times[1] + 4:
        raise cbcsv.InputError(f"{where}: {len(toks)} fields, the table has at least {times[1] + 4}")
    try:
        size, count = whole(toks[0]), whole(toks[1])
        groups = []
        for t in times:
            time, algbw, busbw = (finite(toks[t + k]) for k in range(3))
            wrong = None if toks[t + 3] == "N/A" else int(finite(toks[t + 3]))
            groups.append((time, algbw, busbw, wrong))
    except ValueError as e:
        raise cbcsv.InputError(f"{where}: malformed nccl-tests row ({e})")
    return toks[2], toks[3], size, count, groups[0], groups[1]


def whole(s):
    """A size or count: a whole number within what collbench's readers take (cbcsv.NUMBER_MAX)."""
    v = int(s)
    if v < 0 or v > cbcsv.NUMBER_MAX:
        raise ValueError(f"'{s}' is out of range (0 to {cbcsv.NUMBER_MAX:g})")
    return v


def finite(s):
    v = float(s)
    if not math.isfinite(v) or abs(v) > cbcsv.NUMBER_MAX:
        raise ValueError(f"'{s}' is not a finite number")
    return v


def parse_json(text, where):
    """Rows and {family: meta} of a -J file (util.cu's writer: the key names and nesting above)."""
    try:
        doc = json.loads(text)
    except ValueError as e:
        bare_inf = re.search(r"[:,\[]-?inf[,}\]]", text)
        raise cbcsv.InputError(f"{where}: not valid JSON ({e})" + (
            f"; it holds {bare_inf[0][1:-1]} (nccl-tests writes an infinite value so): not a finite number"
            if bare_inf else ""))

    def need(obj, key, kind, at):
        v = obj.get(key) if isinstance(obj, dict) else None
        if v == "nan" and kind == (int, float):
            raise cbcsv.InputError(f"{where}: {at}{key} is \"nan\" (nccl-tests writes NaN so): not a finite number")
        if not isinstance(v, kind) or isinstance(v, bool):
            raise cbcsv.InputError(f"{where}: {at}{key} is {json.dumps(v)[:40]}, expected "
                                   f"{getattr(kind, '__name__', 'a number')} (is this an nccl-tests -J file?)")
        return v
    args = need(doc, "args", list, "")
    config = need(doc, "config", dict, "")
    results = need(doc, "results", list, "")
    if not args or not isinstance(args[0], str):
        raise cbcsv.InputError(f"{where}: args is empty: cannot tell the binary")
    fam = family_of(args[0], where, strict=True)
    devs = need(config, "devices", list, "config.")
    devices = [(need(d, "rank", int, f"config.devices[{i}]."), need(d, "hostname", str, f"config.devices[{i}]."),
                need(d, "device", int, f"config.devices[{i}]."), need(d, "device_hex", str, f"config.devices[{i}]."),
                need(d, "device_info", str, f"config.devices[{i}].")) for i, d in enumerate(devs)]
    per_proc = need(config, "nthreads", int, "config.") * need(config, "ngpus", int, "config.")
    graph = need(config, "graph", int, "config.")
    meta = dict(devices_meta(devices, len(devices) * per_proc or ""), program=args[0], command=" ".join(map(str, args)),
                mode="graph" if graph else "eager", iters=need(config, "iterations", int, "config."),
                warmup=need(config, "warmup_iters", int, "config."), graph=graph,
                nccl_version_code=doc.get("nccl_version"), env=_nccl_env(doc.get("env")),
                start_time=doc.get("start_time"), end_time=doc.get("end_time"))
    rows = []
    for i, r in enumerate(results):
        at = f"results[{i}]."
        size, count = need(r, "size", int, at), need(r, "count", int, at)
        try:
            whole(size), whole(count)
        except ValueError as e:
            raise cbcsv.InputError(f"{where}: {at}size or count {e}")
        dtype, op = need(r, "type", str, at), need(r, "redop", str, at)
        for ip, key in ((0, "out_of_place"), (1, "in_place")):
            g = r.get(key) if isinstance(r, dict) else None
            if g is None:
                continue  # util.cu writes null when there is no such body (trace replay)
            if not isinstance(g, dict):
                raise cbcsv.InputError(f"{where}: {at}{key} is {json.dumps(g)[:40]}, expected an object or null")
            tkey = "cpu_time" if "cpu_time" in g else "time"
            vals = [need(g, k, (int, float), at + key + ".") for k in (tkey, "alg_bw", "bus_bw")]
            if not all(math.isfinite(v) and abs(v) <= cbcsv.NUMBER_MAX for v in vals):
                raise cbcsv.InputError(f"{where}: {at}{key} holds a value out of range")
            wrong = None if g.get("nwrong") is None else int(need(g, "nwrong", (int, float), at + key + "."))
            note = "cpu time (nccl-tests -C 1)" if tkey == "cpu_time" else ""
            rows.append(make_row(fam, dtype, op, size, count, ip, *vals, wrong, note, meta))
    return rows, {fam: meta}


def _nccl_env(env):
    """NCCL_* entries of the "env" list as a dict (the verdict compares them)."""
    out = {}
    for e in env if isinstance(env, list) else []:
        if isinstance(e, str) and e.startswith("NCCL_") and "=" in e:
            k, v = e.split("=", 1)
            out[k] = v
    return out


def read(path, family=None):
    """(rows, {family: meta}, format) of an nccl-tests text or JSON file."""
    text = read_text_file(path)
    if text.lstrip().startswith("{"):
        rows, metas = parse_json(text, path)
        fmt = "json"
    else:
        rows, metas = parse_text(text.splitlines(), path, family)
        fmt = "text"
    if not rows:
        raise cbcsv.InputError(f"{path}: no nccl-tests result rows (expected the table of an nccl-tests *_perf "
                               "run, or its -J JSON file)")
    seen = {}
    for r in rows:
        key = (r["family"], r["dtype"], r["op"], r["bytes"], r["inplace"], r["mode"])
        if key in seen:
            raise cbcsv.InputError(f"{path}: {r['family']} {r['dtype']} {r['op']} {r['bytes']} B "
                                   f"{'in' if r['inplace'] else 'out-of'}-place appears twice (two runs, or -N "
                                   "repeats, in one file): give one run per file")
        seen[key] = r
    return rows, metas, fmt


def write_runs(path, out, family=None):
    """DIR/<family>/results.csv + results.json for each family of path; returns the folders.
    A folder holding another run (its results.json not from nccl-tests) is never overwritten."""
    rows, metas, fmt = read(path, family)
    made = []
    for fam in sorted(metas):
        d = os.path.join(out, fam)
        old = os.path.join(d, "results.json")
        if os.path.exists(os.path.join(d, "results.csv")):
            try:
                with open(old, encoding="utf-8") as f:
                    ours = json.load(f).get("meta", {}).get("tool") == ALGO
            except (OSError, ValueError, AttributeError):
                ours = False
            if not ours:
                raise cbcsv.InputError(f"{d}: holds a results.csv that is not an nccl-tests import: "
                                       "choose another --out")
        mine = [r for r in rows if r["family"] == fam]
        meta = dict(metas[fam], tool=ALGO, source=os.path.abspath(path), format=fmt, family=fam)
        meta = {k: v for k, v in meta.items() if v not in (None, "")}
        doc = {"schema": "collbench-results/1", "meta": meta, "rows": mine, "complete": True,
               "summary": {"rows": len(mine), "skipped": sum(1 for r in mine if r["time_us_mean"] == ""),
                           "wrong": sum(1 for r in mine if r["wrong"] not in ("", 0))}}
        try:
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "results.csv"), "w", encoding="utf-8", newline="") as f:
                f.write(",".join(COLUMNS) + "\n")
                for r in mine:
                    f.write(",".join(_csv_field(r[c]) for c in COLUMNS) + "\n")
            with open(old, "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=1)
                f.write("\n")
        except OSError as e:
            raise cbcsv.InputError(f"{d}: cannot write ({e.strerror})")
        made.append(d)
    return made


def _csv_field(v):
    s = f"{v:.6g}" if isinstance(v, float) else str(v)
    return '"' + s.replace('"', '""') + '"' if any(c in s for c in ',"\n\r') else s


def main(argv):
    ap = argparse.ArgumentParser(prog="nccl_tests.py", description="nccl-tests output -> collbench run folders")
    ap.add_argument("--out", required=True, metavar="DIR")
    ap.add_argument("--family", choices=sorted(FAMILIES.values()))
    ap.add_argument("file")
    a = ap.parse_args(argv)
    for d in write_runs(a.file, a.out, a.family):
        print(d)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except cbcsv.InputError as e:
        print(f"plots: {e}", file=sys.stderr)
        sys.exit(cbcsv.EXIT_INPUT)
