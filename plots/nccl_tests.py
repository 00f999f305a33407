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
warning. The file is read by plots/infile.py (no symlink followed, at most MAX_BYTES, UTF-8;
JSON at most infile.MAX_DEPTH deep, no NaN or overflow); every value is checked before it becomes
a row: numbers in ASCII decimal, finite, counts whole and not negative, names (type, redop) one
short word, hosts and GPU names one line, thread and GPU counts in range, at most MAX_ROWS rows.
Bad input raises cbcsv.InputError: one line naming the file (a value quoted as a short, escaped
excerpt); the command line exits 2.

usage: nccl_tests.py [--family F] [--out DIR] FILE
  writes DIR/<family>/results.csv and results.json (meta.tool "nccl-tests") per family found
  (plots/nccl_tests_import.py) and prints each folder; --family names the collective of tables
  that do not name their binary. DIR defaults to ./nccl-tests-<FILE's name without extension>.
"""
import argparse
import json
import os
import re
import sys

sys.dont_write_bytecode = True
import cbcsv  # noqa: E402
import infile  # noqa: E402

MAX_BYTES = 64 << 20  # a whole nccl-tests sweep with NCCL_DEBUG=INFO is a few MB
MAX_ROWS = 1 << 16  # result rows of one file: a sweep of every type and op is a few thousand
MAX_RANKS = 1 << 16  # ranks of one run (threads x GPUs x processes)
MAX_PER_PROCESS = 1024  # nccl-tests -t threads and -g GPUs of one process, each
COUNT_MAX = 10 ** 9  # iterations, warmup iterations, graph launches
NAME = re.compile(r"[A-Za-z0-9_]{1,32}")  # a type or redop as nccl-tests names them
ALGO = "nccl-tests"
FAMILIES = {"all_reduce": "allreduce", "all_gather": "allgather", "reduce_scatter": "reducescatter",
            "alltoall": "alltoall", "sendrecv": "sendrecv"}
DTYPES = {"f8e4m3": "fp8e4m3", "f8e5m2": "fp8e5m2"}  # nccl-tests' names where collbench's differ
COLUMNS = ("family", "algo", "dtype", "op", "bytes", "count", "inplace", "ranks", "nodes", "gpu",
           "time_us_mean", "algbw_gbs", "busbw_gbs", "wrong", "note", "mode", "iters")
DEFAULT_HEADER = "size count type redop root time algbw busbw #wrong time algbw busbw #wrong".split()
RANK_LINE = re.compile(r"#\s+Rank\s+(\d+)\s+Group\s+\d+\s+Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)"
                       r"\s+\[([^\]]*)\]\s*(.*)", re.ASCII)
NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
# #wrong is printed with %6g: 1e+06 and more wrong elements read in exponent form
DEFAULT_ROW = re.compile(rf"\s*\d+\s+\d+\s+\w+\s+\w+\s+-?\d+(?:\s+{NUM}\s+{NUM}\s+{NUM}\s+(?:{NUM}|N/A)){{2}}\s*",
                         re.ASCII)  # ASCII: \d alone also matches '٨'
DIGITS = re.compile(r"[0-9]+")
VERSION_KEYS = ("nccl_tests_version", "nccl_version_code", "nccl_headers_code")


def family_of(program, where, strict=False):
    """all_reduce_perf (any path, .exe) -> allreduce. A binary collbench has no family for:
    InputError when strict, else None and a warning (its table is skipped)."""
    name = re.sub(r"(_perf)?(\.exe)?$", "", os.path.basename(program.strip()))
    if name in FAMILIES:
        return FAMILIES[name]
    why = (f"{where}: {infile.excerpt(program.strip(), 80, quote=False)}: collbench has no family for it (it reads "
           f"{', '.join(k + '_perf' for k in FAMILIES)})")
    if strict:
        raise cbcsv.InputError(why)
    print(f"plots: warning: {why}; table skipped", file=sys.stderr)
    return None


def read_text_file(path):
    """The file's text: infile's reader rule (no symlink, regular, at most MAX_BYTES, UTF-8), not empty."""
    text = infile.read_text(path, MAX_BYTES)
    if not text.strip():
        raise cbcsv.InputError(f"{cbcsv.shown(path)}: empty file")
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
    rows, metas, tables, nrows = [], {}, [], 0
    run, devices, program, table = {}, [], None, None
    where = cbcsv.shown(where)

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
                devices.append(_rank_line(m, f"{where}:{n}"))
                if len(devices) > MAX_RANKS:
                    raise cbcsv.InputError(f"{where}:{n}: more than {MAX_RANKS} Rank lines: not one run")
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
                    m = re.search(pat, line, re.ASCII)
                    if m:
                        run[key] = infile.number(m[1], f"{where}:{n}", key, 0, COUNT_MAX, integer=True)
                run["mode"] = "graph" if run.get("graph") else "eager"
            elif body[:5] == DEFAULT_HEADER[:5]:
                close(None)
                table = _Table(body, n, program)
            elif body[:1] == ["Out"] or body[:2] == ["Avg", "bus"]:
                pass  # footer lines before "concluded"
            continue
        if not toks or not DIGITS.fullmatch(toks[0]):
            continue  # NCCL INFO lines, build output, section headings
        if table is None:
            if not DEFAULT_ROW.fullmatch(line):
                continue  # a number-led line outside any table is not a row
            table = _Table(DEFAULT_HEADER, n, program)
        table.rows.append(_text_row(table.header, toks, f"{where}:{n}"))
        nrows += 2
        if nrows > MAX_ROWS:
            raise cbcsv.InputError(f"{where}:{n}: more than {MAX_ROWS} result rows: not one nccl-tests run (cut the "
                                   "log to its tables)")
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
    meta = {"nccl_tests_version": body[2]} if len(body) > 2 and infile.one_line(body[2], 32) else {}
    for tok in body[3:]:
        key, _, val = tok.partition("=")
        code = infile.decimal(val, integer=True)
        if key in ("nccl-headers", "nccl-library") and code is not None and 0 <= code <= COUNT_MAX:
            meta["nccl_headers_code" if key == "nccl-headers" else "nccl_version_code"] = code
    return meta


def _rank_line(m, where):
    """(rank, host, device, bus id, GPU name) of a "#  Rank" line's match, each checked."""
    rank = infile.number(m[1], where, "the rank", 0, MAX_RANKS, integer=True)
    device = infile.number(m[3], where, "the device", 0, MAX_RANKS, integer=True)
    for what, v in (("host", m[2]), ("bus id", m[4]), ("GPU name", m[5].strip())):
        if not infile.one_line(v):
            raise cbcsv.InputError(f"{where}: the {what} {infile.excerpt(v)} is not one line of at most 256 "
                                   "characters")
    return rank, m[2], device, m[4], m[5].strip()


def _text_row(header, toks, where):
    """(dtype, op, size, count, out-of-place group, in-place group) of one table row."""
    times = [i for i, h in enumerate(header) if h in ("time", "cputime")]
    if len(times) != 2 or header[:5] != DEFAULT_HEADER[:5]:
        raise cbcsv.InputError(f"{where}: the table header is not nccl-tests' (size count type redop root, "
                               "then two time algbw busbw #wrong groups)")
    if len(toks) < times[1] + 4:
        raise cbcsv.InputError(f"{where}: {len(toks)} fields, the table has at least {times[1] + 4}")
    size, count = whole(toks[0], where, "size"), whole(toks[1], where, "count")
    for what, v in (("type", toks[2]), ("redop", toks[3])):
        if not NAME.fullmatch(v):
            raise cbcsv.InputError(f"{where}: malformed nccl-tests row (the {what} {infile.excerpt(v)} is not a name)")
    groups = []
    for t in times:
        time = finite(toks[t], where, "time")
        algbw, busbw = (finite(toks[t + k], where, "a bandwidth", 0) for k in (1, 2))
        wrong = None if toks[t + 3] == "N/A" else nwrong(infile.decimal(toks[t + 3]), toks[t + 3], where)
        groups.append((time, algbw, busbw, wrong))
    return toks[2], toks[3], size, count, groups[0], groups[1]


def whole(s, where, what):
    """A size or count: a whole number within what collbench's readers take (cbcsv.NUMBER_MAX)."""
    v = infile.decimal(s, integer=True)
    if v is None or not 0 <= v <= cbcsv.NUMBER_MAX:
        raise cbcsv.InputError(f"{where}: malformed nccl-tests row (the {what} {infile.excerpt(s)} is out of range: "
                               f"a whole number from 0 to {cbcsv.NUMBER_MAX:g})")
    return v


def finite(s, where, what, lo=-cbcsv.NUMBER_MAX):
    """A time or bandwidth: a finite number within +-cbcsv.NUMBER_MAX (bandwidths not negative)."""
    v = infile.decimal(s)
    if v is None or not lo <= v <= cbcsv.NUMBER_MAX:
        raise cbcsv.InputError(f"{where}: malformed nccl-tests row ({what} {infile.excerpt(s)} is not a finite "
                               f"number{' >= 0' if lo == 0 else ''})")
    return v


def nwrong(v, shown_as, where):
    """A #wrong count (printed with %6g: 1e+06 and more in exponent form; the JSON writes it as a
    double): a whole number from 0 to cbcsv.NUMBER_MAX."""
    if v is None or not infile.json_number(v, 0, cbcsv.NUMBER_MAX) or not float(v).is_integer():
        raise cbcsv.InputError(f"{where}: #wrong {infile.excerpt(shown_as)} is not a count of wrong elements (a whole "
                               "number >= 0, finite)")
    return int(v)


def parse_json(text, where):
    """Rows and {family: meta} of a -J file (util.cu's writer: the key names and nesting above)."""
    where = cbcsv.shown(where)
    try:
        doc = infile.parse_json(text, where)
    except cbcsv.InputError as e:
        bare_inf = re.search(r"[:,\[]-?inf[,}\]]", text)
        if not bare_inf:
            raise
        raise cbcsv.InputError(f"{e}; it holds {bare_inf[0][1:-1]} (nccl-tests writes an infinite value so): not a "
                               "finite number")

    def need(obj, key, kind, at, lo=None, hi=None):
        v = obj.get(key) if isinstance(obj, dict) else None
        if v == "nan" and kind == (int, float):
            raise cbcsv.InputError(f"{where}: {at}{key} is \"nan\" (nccl-tests writes NaN so): not a finite number")
        if not isinstance(v, kind) or isinstance(v, bool):
            raise cbcsv.InputError(f"{where}: {at}{key} is {infile.json_excerpt(v)}, expected "
                                   f"{getattr(kind, '__name__', 'a number')} (is this an nccl-tests -J file?)")
        if lo is not None and not lo <= v <= hi:
            raise cbcsv.InputError(f"{where}: {at}{key} is {infile.json_excerpt(v)}, out of range ({lo:g} to "
                                   f"{hi:g})")
        if kind is str and not infile.one_line(v):
            raise cbcsv.InputError(f"{where}: {at}{key} {infile.excerpt(v)} is not one line of at most 256 characters")
        return v
    args = need(doc, "args", list, "")
    config = need(doc, "config", dict, "")
    results = need(doc, "results", list, "")
    if not args or not isinstance(args[0], str):
        raise cbcsv.InputError(f"{where}: args is empty: cannot tell the binary")
    if not all(infile.one_line(a, 4096) for a in args):
        raise cbcsv.InputError(f"{where}: args holds a value that is not one line of text")
    fam = family_of(args[0], where, strict=True)
    devs = need(config, "devices", list, "config.")
    if len(devs) > MAX_RANKS:
        raise cbcsv.InputError(f"{where}: config.devices lists {len(devs)} processes, more than {MAX_RANKS}")
    devices = []
    for i, d in enumerate(devs):
        at = f"config.devices[{i}]."
        devices.append((need(d, "rank", int, at, 0, MAX_RANKS), need(d, "hostname", str, at),
                        need(d, "device", int, at, 0, MAX_RANKS), need(d, "device_hex", str, at),
                        need(d, "device_info", str, at)))
    per_proc = (need(config, "nthreads", int, "config.", 1, MAX_PER_PROCESS) *
                need(config, "ngpus", int, "config.", 1, MAX_PER_PROCESS))
    if len(devices) * per_proc > MAX_RANKS:
        raise cbcsv.InputError(f"{where}: {len(devices)} processes x {per_proc} GPUs each is more than {MAX_RANKS} ranks")
    graph = need(config, "graph", int, "config.", 0, COUNT_MAX)
    version = doc.get("nccl_version")
    if version is not None and not infile.json_number(version, 0, COUNT_MAX, integer=True):
        raise cbcsv.InputError(f"{where}: nccl_version is {infile.json_excerpt(version)}, not a version code")
    times = {k: doc.get(k) for k in ("start_time", "end_time")}
    if not all(v is None or infile.one_line(v, 64) for v in times.values()):
        raise cbcsv.InputError(f"{where}: start_time or end_time is not one line of text")
    meta = dict(devices_meta(devices, len(devices) * per_proc or ""), program=args[0], command=" ".join(args),
                mode="graph" if graph else "eager", iters=need(config, "iterations", int, "config.", 0, COUNT_MAX),
                warmup=need(config, "warmup_iters", int, "config.", 0, COUNT_MAX), graph=graph,
                nccl_version_code=version, env=_nccl_env(doc.get("env")), **times)
    if 2 * len(results) > MAX_ROWS:
        raise cbcsv.InputError(f"{where}: {len(results)} results, more than the {MAX_ROWS // 2} of one nccl-tests run")
    rows = []
    for i, r in enumerate(results):
        at = f"results[{i}]."
        size, count = need(r, "size", int, at), need(r, "count", int, at)
        for v in (size, count):
            if not 0 <= v <= cbcsv.NUMBER_MAX:
                raise cbcsv.InputError(f"{where}: {at}size or count {infile.excerpt(str(v))} is out of range (0 to "
                                       f"{cbcsv.NUMBER_MAX:g})")
        dtype, op = need(r, "type", str, at), need(r, "redop", str, at)
        for what, v in (("type", dtype), ("redop", op)):
            if not NAME.fullmatch(v):
                raise cbcsv.InputError(f"{where}: {at}{what} {infile.excerpt(v)} is not a name")
        for ip, key in ((0, "out_of_place"), (1, "in_place")):
            g = r.get(key)
            if g is None:
                continue  # util.cu writes null when there is no such body (trace replay)
            if not isinstance(g, dict):
                raise cbcsv.InputError(f"{where}: {at}{key} is {infile.json_excerpt(g)}, expected an object or null")
            tkey = "cpu_time" if "cpu_time" in g else "time"
            time = need(g, tkey, (int, float), at + key + ".", -cbcsv.NUMBER_MAX, cbcsv.NUMBER_MAX)
            algbw, busbw = (need(g, k, (int, float), at + key + ".", 0, cbcsv.NUMBER_MAX) for k in ("alg_bw", "bus_bw"))
            nw = g.get("nwrong")
            wrong = None if nw is None else nwrong(nw, json.dumps(nw), f"{where}: {at}{key}.nwrong")
            note = "cpu time (nccl-tests -C 1)" if tkey == "cpu_time" else ""
            rows.append(make_row(fam, dtype, op, size, count, ip, time, algbw, busbw, wrong, note, meta))
    return rows, {fam: meta}


def _nccl_env(env):
    """NCCL_* entries of the "env" list as a dict (the verdict compares them); entries that are
    not one line of text are left out (they are no setting nccl-tests ran with)."""
    out = {}
    for e in env if isinstance(env, list) else []:
        if isinstance(e, str) and e.startswith("NCCL_") and "=" in e and infile.one_line(e, 4096):
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
        raise cbcsv.InputError(f"{cbcsv.shown(path)}: no nccl-tests result rows (expected the table of an nccl-tests *_perf "
                               "run, or its -J JSON file)")
    seen = {}
    for r in rows:
        key = (r["family"], r["dtype"], r["op"], r["bytes"], r["inplace"], r["mode"])
        if key in seen:
            raise cbcsv.InputError(f"{cbcsv.shown(path)}: {r['family']} {r['dtype']} {r['op']} {r['bytes']} B "
                                   f"{'in' if r['inplace'] else 'out-of'}-place appears twice (two runs, or -N "
                                   "repeats, in one file): give one run per file")
        seen[key] = r
    return rows, metas, fmt


class _Args(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2), as every bad input of plots/ gets."""

    def error(self, message):
        raise cbcsv.InputError(message)


def main(argv):
    ap = _Args(prog="nccl_tests.py", description="nccl-tests output -> collbench run folders")
    ap.add_argument("--out", metavar="DIR")
    ap.add_argument("--family", choices=sorted(FAMILIES.values()))
    ap.add_argument("file")
    a = ap.parse_args(argv)
    import nccl_tests_import  # the folders' writer (it imports this module)
    for d in nccl_tests_import.write_runs(a.file, a.out, a.family):
        print(d)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except cbcsv.InputError as e:
        print(f"plots: {e}", file=sys.stderr)
        sys.exit(cbcsv.EXIT_INPUT)
