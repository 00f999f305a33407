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
- the file `-J FILE` writes (read by plots/nccl_tests_json.py; JSON_FILE_VERSION 3,
  src/util.cu of nccl-tests 2.19.6): "args"
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

usage: nccl_tests.py [--family F] [--gpu NAME] [--ranks N] [--nodes N] [--out DIR] FILE
  writes DIR/<family>/results.csv and results.json (meta.tool "nccl-tests") per family found
  (plots/nccl_tests_import.py) and prints each folder; --family names the collective of tables
  that do not name their binary, --gpu, --ranks and --nodes the GPU model, rank and node
  count of an output without its "# Using devices" lines (they must agree with the lines
  where there are some; --ranks alone assumes one node, and the verdict says so).
  DIR defaults to ./nccl-tests-<FILE's name without extension>. plots/verdict.py judges each
  folder, with what only the import knows (plots/nccl_tests_verdict.py).
A `-g N` run's nGpus and nThread, and its validation flag, are kept in meta; an in-place #wrong
of N/A in a run that validates is a collective nccl-tests does not run in place (alltoall,
sendrecv): those rows are kept as skipped, never read as unchecked (-c 0).
"""
import argparse
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
            "alltoall": "alltoall", "sendrecv": "sendrecv", "broadcast": "broadcast", "reduce": "reduce",
            "gather": "gather", "scatter": "scatter", "hypercube": "hypercube", "alltoallv": "alltoallv"}
# collbench's drop-in (build/nccl-tests/*_perf) heads each table with the algorithm it ran; its
# default, the family's nccl algorithm, reads as nccl-tests' own rows (algo ALGO), any other as
# that algorithm's name
DROPIN_ALGO = re.compile(r"# collbench algorithm: ([A-Za-z0-9_]{1,31})\s*")
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


def in_place_unsupported(inplace, wrong, other_wrong, validation):
    """Whether an in-place group's #wrong of N/A (None) means the binary does not support the
    collective in place (alltoall, sendrecv: nccl-tests then times it but never checks it), not
    -c 0: the run validates (validation 1, or the out-of-place group has a count)."""
    return inplace == 1 and wrong is None and validation != 0 and (validation == 1 or other_wrong is not None)


def make_row(family, dtype, op, size, count, inplace, time, algbw, busbw, wrong, note, run, unsupported=False):
    """One collbench CSV row (dict by column). A 0-byte or non-positive time row is kept as
    skipped, and so is an in-place row of a collective nccl-tests does not run in place."""
    measured = size > 0 and time is not None and time > 0 and not unsupported
    if unsupported:
        note = "; ".join(n for n in (note, f"nccl-tests does not run {family} in place (#wrong N/A: timed, never "
                                           "checked, not an in-place result): not charted") if n)
    elif not measured:
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
    def __init__(self, header, line, program, algo=None):
        self.header, self.line, self.program, self.rows = header, line, program, []
        self.algo = ALGO if algo in (None, "nccl") else algo


def parse_text(lines, where, family=None):
    """Rows and per-family run metadata ({family: meta}) of nccl-tests text output (a list of
    lines); where names the input in messages. family: for tables that do not name their binary."""
    rows, metas, tables, nrows = [], {}, [], 0
    run, devices, program, table, algo = {}, [], None, None, None
    where = cbcsv.shown(where)

    def close(prog):
        nonlocal table
        if table is None:
            return
        name = prog or table.program
        fam = family_of(name, f"{where}:{table.line}") if name else family
        if fam is None and not name:
            raise cbcsv.InputError(f"{where}:{table.line}: a table with no 'Collective test starting:' or "
                                   "'concluded:' line naming its binary: cannot tell the collective (give --family "
                                   f"{'|'.join(sorted(FAMILIES.values()))})")
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
                for key, pat, hi in (("iters", r"(?:^|[^a-z] )iters: (\d+)", COUNT_MAX),
                                     ("warmup", r"warmup iters: (\d+)", COUNT_MAX), ("graph", r"\bgraph: (\d+)", COUNT_MAX),
                                     ("validation", r"\bvalidation: (\d+)", COUNT_MAX),
                                     ("threads_per_process", r"^# nThread (\d+)", MAX_PER_PROCESS),
                                     ("gpus_per_process", r"\bnGpus (\d+)", MAX_PER_PROCESS)):
                    m = re.search(pat, line, re.ASCII)
                    if m:
                        run[key] = infile.number(m[1], f"{where}:{n}", key, 0, hi, integer=True)
                run["mode"] = "graph" if run.get("graph") else "eager"
            elif DROPIN_ALGO.fullmatch(line):
                close(None)
                algo = DROPIN_ALGO.fullmatch(line)[1]
            elif body[:5] == DEFAULT_HEADER[:5]:
                close(None)
                table, algo = _Table(body, n, program, algo), None
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
        metas[fam]["algos"] = sorted(set(metas[fam].get("algos", [])) | {t.algo})
        for r in t.rows:
            rows.extend(dict(make_row(fam, *r[:2], *r[2:4], ip, *grp, "", meta, in_place_unsupported(
                ip, grp[3], r[4][3], meta.get("validation"))), algo=t.algo) for ip, grp in ((0, r[4]), (1, r[5])))
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
    if len(toks) == times[1] + 3 and re.fullmatch(r"-?\d+", toks[3], re.ASCII):
        toks = toks[:3] + [""] + toks[3:]  # hypercube_perf prints an empty redop field
    if len(toks) < times[1] + 4:
        raise cbcsv.InputError(f"{where}: {len(toks)} fields, the table has at least {times[1] + 4}")
    size, count = whole(toks[0], where, "size"), whole(toks[1], where, "count")
    for what, v in (("type", toks[2]), ("redop", toks[3])):
        if not NAME.fullmatch(v) and not (what == "redop" and v == ""):
            raise cbcsv.InputError(f"{where}: malformed nccl-tests row (the {what} {infile.excerpt(v)} is not a name)")
    groups = []
    for t in times:
        if toks[t:t + 4] == ["N/A"] * 4:  # collbench's drop-in: a form the family does not have
            groups.append((None, None, None, None))
            continue
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


def check_gpu(gpu, what="--gpu"):
    """A GPU model as the user names it (--gpu): one line of 1 to 64 characters."""
    if not infile.one_line(gpu, 64) or not gpu.strip():
        raise cbcsv.InputError(f"{what} {infile.excerpt(gpu)}: expected a GPU model such as 'NVIDIA H200' (one line, "
                               "at most 64 characters)")
    return gpu.strip()


def check_ranks(ranks):
    """A rank count as the user gives it (--ranks): a whole number from 1 to MAX_RANKS."""
    return infile.number(ranks, "--ranks", "the rank count", 1, MAX_RANKS, integer=True)


def check_nodes(nodes):
    """A node count as the user gives it (--nodes): a whole number from 1 to MAX_RANKS."""
    return infile.number(nodes, "--nodes", "the node count", 1, MAX_RANKS, integer=True)


def apply_devices(rows, metas, where, gpu=None, ranks=None, nodes=None):
    """The GPU model, rank and node count of each family: the file's own ("# Using devices"
    lines, the JSON's devices), else gpu, ranks and nodes (--gpu, --ranks, --nodes; with --ranks
    alone one node is assumed, and meta.nodes_note says so); what stays unknown is named in
    meta.devices_note (the verdict cannot choose a reference without it)."""
    for fam, meta in metas.items():
        if meta.get("rank_info"):
            for opt, mine, given in (("gpu", meta.get("gpu"), gpu), ("ranks", meta.get("ranks"), ranks),
                                     ("nodes", meta.get("nodes"), nodes)):
                if given is not None and mine and mine != given:
                    raise cbcsv.InputError(f"{where}: its '# Using devices' lines give {fam} {opt} {mine!r}, "
                                           f"--{opt} says {given!r}")
            continue
        meta.update({k: v for k, v in (("gpu", gpu), ("ranks", ranks), ("nodes", nodes)) if v is not None})
        if ranks is not None and nodes is None:
            meta["nodes"] = 1
            meta["nodes_note"] = "one node assumed: the nccl-tests output does not name its hosts (--nodes N)"
        unknown = [w for w, k in (("GPU model (--gpu NAME)", "gpu"), ("rank count (--ranks N)", "ranks"))
                   if not meta.get(k)]
        if unknown:
            meta["devices_note"] = (f"{where} has no '# Using devices' lines (nccl-tests prints them before each "
                                    f"table): its {' and '.join(unknown)} unknown")
    for r in rows:
        r.update({k: metas[r["family"]].get(k, "") for k in ("gpu", "ranks", "nodes")})


def read(path, family=None, gpu=None, ranks=None, nodes=None):
    """(rows, {family: meta}, format) of an nccl-tests text or JSON file; gpu, ranks and nodes
    (--gpu, --ranks, --nodes) stand in where the file does not say (apply_devices)."""
    text = read_text_file(path)
    if text.lstrip().startswith("{"):
        import nccl_tests_json  # the -J reader (it imports this module)
        rows, metas = nccl_tests_json.parse_json(text, path)
        fmt = "json"
    else:
        rows, metas = parse_text(text.splitlines(), path, family)
        fmt = "text"
    if not rows:
        raise cbcsv.InputError(f"{cbcsv.shown(path)}: no nccl-tests result rows (expected the table of an nccl-tests *_perf "
                               "run, or its -J JSON file)")
    seen = {}
    for r in rows:
        key = (r["family"], r["algo"], r["dtype"], r["op"], r["bytes"], r["inplace"], r["mode"])
        if key in seen:
            raise cbcsv.InputError(f"{cbcsv.shown(path)}: {r['family']} {r['dtype']} {r['op']} {r['bytes']} B "
                                   f"{'in' if r['inplace'] else 'out-of'}-place appears twice (two runs, or -N "
                                   "repeats, in one file): give one run per file")
        seen[key] = r
    apply_devices(rows, metas, cbcsv.shown(path), gpu, ranks, nodes)
    return rows, metas, fmt


class _Args(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2), as every bad input of plots/ gets."""

    def error(self, message):
        raise cbcsv.InputError(message)


def main(argv):
    ap = _Args(prog="nccl_tests.py", description="nccl-tests output -> collbench run folders")
    ap.add_argument("--out", metavar="DIR")
    ap.add_argument("--family", choices=sorted(FAMILIES.values()))
    ap.add_argument("--gpu", type=check_gpu, metavar="NAME")
    ap.add_argument("--ranks", type=check_ranks, metavar="N")
    ap.add_argument("--nodes", type=check_nodes, metavar="N")
    ap.add_argument("file")
    a = ap.parse_args(argv)
    import nccl_tests_import  # the folders' writer (it imports this module)
    for d in nccl_tests_import.write_runs(a.file, a.out, a.family, a.gpu, a.ranks, a.nodes):
        print(d)
    return 0


if __name__ == "__main__":
    sys.stdout.reconfigure(errors="surrogateescape")  # a folder name that is not UTF-8: its own bytes
    try:
        sys.exit(main(sys.argv[1:]))
    except cbcsv.InputError as e:
        print(f"plots: {e}", file=sys.stderr)
        sys.exit(cbcsv.EXIT_INPUT)
