"""Reads and validates a collbench results CSV for the chart and summary scripts.

Columns are found by header name, never by position, so collbench can add columns without
breaking the charts. Bad input raises InputError with one line naming the file and the
problem; the command-line scripts print it and exit 2 (no traceback for a malformed file).
A row is "skipped" when its time_us_mean is empty (collbench then puts the reason in note).
Files are read through plots/infile.py (no symlink followed, a size cap, UTF-8, ASCII decimal
numbers); parse() checks a CSV's text the same way (the nccl-tests import checks what it writes).
"""
import csv
import io
import os
import sys

import infile
import hwfigures
from infile import InputError, excerpt, shown  # noqa: F401  (every reader of plots/ raises this one error)

EXIT_INPUT = 2
# The largest magnitude any numeric column may have: 2^60 bytes and 10^18 us are far past any
# run, and the charts' axis arithmetic (x 1.3, logarithms) stays finite in gnuplot (1e308
# tokens made it fail).
NUMBER_MAX = 1e18
# The largest results.csv read: the biggest committed one is 0.2 MB; parsing takes about 15 times
# the file's size in memory, so 64 MiB stays near 1 GB (a 3 GB file once ran out of memory).
CSV_MAX_BYTES = 64 << 20
# Text columns that must stay on one line: they become headings, titles and table cells (a
# newline in dtype once made a "## Verdict" heading in summary.md). Only note may hold any text.
PASSES = ("", "fwd", "bwd", "both")  # ringattn --pass; empty: a row from before it, or another family
ONE_LINE = ("family", "algo", "dtype", "op", "mode", "phase", "pass") + ("ranks", "nodes", "gpu", "model", "routing")
INCOMPLETE_FILE = "incomplete.txt"  # written by launcher/collbench-run into a run it cut short
INCOMPLETE_MAX_BYTES = 64 << 10  # one line of collbench-run's
LINK_MAX_BYTES = 4096  # link_gbs: one number

# Columns every chart needs; moe rows additionally need MOE_REQUIRED, ringattn rows ATTN_REQUIRED.
REQUIRED = ("family", "algo", "dtype", "op", "bytes", "inplace", "mode",
            "time_us_mean", "busbw_gbs", "wrong", "note")
MOE_REQUIRED = ("tokens", "phase")
ATTN_REQUIRED = ("seq", "causal")
# ringattn columns (CSVs older than the family lack them: then None for every row; ulysses and
# ring, the row's U x R, came later).
ATTN_INT = ("seq", "batch", "heads", "kv_heads", "head_dim", "causal", "ulysses", "ring")
LAYOUTS = ("", "contiguous", "zigzag", "stripe")  # ringattn's layout column (empty: before it, or another family)
ATTN_FLOAT = ("tflops", "comm_us", "compute_us", "overlap_eff", "ring_over_single", "err_max",
              "err_mean")
# Read when present, empty otherwise (titles and MoE configuration only).
OPTIONAL = ("ranks", "nodes", "gpu", "model", "hidden", "topk", "experts", "routing")


class Run:
    """One results CSV: where it came from and its parsed rows."""

    def __init__(self, csv_path, run_dir, name, rows):
        self.csv_path = csv_path
        self.run_dir = run_dir
        self.name = name
        self.rows = rows  # list of dict, see _parse_row

    @property
    def measured(self):
        return [r for r in self.rows if not r["skipped"]]


def read_incomplete(run_dir):
    """Why the run was cut short (RUN_DIR/incomplete.txt, one line), or None when it was not."""
    data = infile.read_bytes(os.path.join(run_dir, INCOMPLETE_FILE), INCOMPLETE_MAX_BYTES, absent_ok=True)
    if data is None:
        return None
    text = shown(data.decode("utf-8", "replace").splitlines()[0] if data.strip() else "").strip()
    return text[:200] or "no reason recorded"


def resolve(arg):
    """RESULTS_DIR_OR_CSV -> (csv path, results dir, run name for labels). A folder's results.csv
    and a named CSV are read by load() without following a symlink."""
    if os.path.isdir(arg):
        path = os.path.join(arg, "results.csv")
        if not os.path.lexists(path):
            raise InputError(f"{shown(path)}: no such file (a results folder holds results.csv)")
        run_dir = arg
    elif os.path.lexists(arg) and not os.path.isdir(arg):
        path, run_dir = arg, os.path.dirname(arg) or "."
    else:
        raise InputError(f"{shown(arg)}: no such file or folder")
    if os.path.basename(path) == "results.csv":
        name = os.path.basename(os.path.normpath(os.path.abspath(run_dir)))
    else:
        name = os.path.splitext(os.path.basename(path))[0]
    return path, run_dir, shown(name)


def read_link(run_dir):
    """The per-direction link limit from RUN_DIR/link_gbs, or None when the file is absent."""
    path = os.path.join(run_dir, "link_gbs")
    text = infile.read_text(path, LINK_MAX_BYTES, absent_ok=True)
    return None if text is None else parse_link(text.strip(), path)


def parse_link(text, where):
    """A link rate (link_gbs's text, --link's value) in GB/s: hwfigures' one rule."""
    return hwfigures.link_gbs(text, where)


def load(arg, warn=True):
    """Parses RESULTS_DIR_OR_CSV into a Run; raises InputError on anything malformed.
    warn=False drops the stderr warning about a cut-off last row (a caller already said it)."""
    path, run_dir, name = resolve(arg)
    text = infile.read_text(path, CSV_MAX_BYTES, bom=True)
    return parse(text, path, run_dir, name, warn)


def parse(text, path, run_dir, name, warn=True):
    """The Run of a results CSV's text (path names it in messages); load() without the file."""
    if not text.strip():
        raise InputError(f"{shown(path)}: empty file (no header, no rows)")
    path = shown(path)
    try:
        reader = csv.reader(io.StringIO(text, newline=""), strict=True)
        records = [(reader.line_num, rec) for rec in reader]  # line_num: where the record ends
    except csv.Error as e:
        raise InputError(f"{path}:{reader.line_num}: malformed CSV ({e})")
    header = [h.strip() for h in records[0][1]]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise InputError(f"{path}: header lacks required column(s) {', '.join(missing)} "
                         f"(is this a collbench results CSV?)")
    dup = sorted({h for h in header if header.count(h) > 1})
    if dup:
        raise InputError(f"{path}: the header names column(s) {', '.join(excerpt(d, quote=False) for d in dup)} more than once")
    col = {h: i for i, h in enumerate(header)}
    rows = []
    for k, (n, rec) in enumerate(records[1:], start=1):
        if not rec or all(not c.strip() for c in rec):
            continue
        if len(rec) != len(header):
            # collbench streams rows, so a crashed run can leave a cut-off last line: warn, keep the rest.
            if k == len(records) - 1 and not text.endswith("\n") and len(rec) < len(header):
                if warn:
                    print(f"plots: warning: {path}:{n}: last row is incomplete "
                          f"({len(rec)} of {len(header)} fields; the run stopped mid-write?), "
                          "ignored", file=sys.stderr)
                continue
            raise InputError(f"{path}:{n}: {len(rec)} fields, the header has {len(header)}")
        rows.append(_parse_row(rec, col, path, n))
    if not rows:
        raise InputError(f"{path}: no data rows (only a header)")
    if any(r["family"] == "moe" for r in rows):
        missing = [c for c in MOE_REQUIRED if c not in col]
        if missing:
            raise InputError(f"{path}: moe rows present but header lacks {', '.join(missing)}")
    if any(r["family"] == "ringattn" for r in rows):
        missing = [c for c in ATTN_REQUIRED if c not in col]
        if missing:
            raise InputError(f"{path}: ringattn rows present but header lacks {', '.join(missing)}")
    return Run(path, run_dir, name, rows)


def keep_algo(run, algo, which):
    """run's rows of algorithm algo (--compare-algo); InputError naming the ones it has when
    it has none of algo."""
    have = sorted({r["algo"] for r in run.rows})
    if algo not in have:
        raise InputError(f"--compare-algo {excerpt(algo)}: {which} ({shown(run.csv_path)}) has no such algorithm "
                         f"(it has: {', '.join(have)})")
    return [r for r in run.rows if r["algo"] == algo]


def _number(rec, col, name, path, n, kind):
    """Field NAME as int/float; None when empty. Rejects text, non-finite values and numbers
    outside +-NUMBER_MAX (infile.decimal: ASCII decimal digits only)."""
    if name not in col:
        return None
    s = rec[col[name]].strip()
    if s == "":
        return None
    v = infile.decimal(s, integer=kind is int)
    if v is None:
        what = "an integer" if kind is int else "a finite number"
        raise InputError(f"{path}:{n}: column {name} is {excerpt(s)}, expected {what}")
    if abs(v) > NUMBER_MAX:
        raise InputError(f"{path}:{n}: column {name} is {excerpt(s)}, out of range (at most {NUMBER_MAX:g})")
    return v


def _parse_row(rec, col, path, n):
    def text(name):
        return rec[col[name]].strip() if name in col else ""

    r = {"line": n}
    # pass, layout: ringattn's --pass and --layout
    for name in ("family", "algo", "dtype", "op", "mode", "note", "phase", "pass", "layout") + OPTIONAL:
        r[name] = text(name)
        if name in ONE_LINE and any(ord(c) < 32 or ord(c) == 127 for c in r[name]):
            raise InputError(f"{path}:{n}: column {name} holds a line break or another control character")
    if not r["family"] or not r["algo"]:
        raise InputError(f"{path}:{n}: empty family or algo")
    r["mode"] = r["mode"] or "eager"
    r["time"] = _number(rec, col, "time_us_mean", path, n, float)
    r["skipped"] = r["time"] is None
    r["busbw"] = _number(rec, col, "busbw_gbs", path, n, float)
    # the verdict's small-size latency (p50: a cold first iteration stays out) and MoE's measure
    r["p50"] = _number(rec, col, "time_us_p50", path, n, float)
    r["remote_gbs"] = _number(rec, col, "remote_gbs", path, n, float)
    r["bytes"] = _number(rec, col, "bytes", path, n, int)
    r["tokens"] = _number(rec, col, "tokens", path, n, int)
    r["root"] = _number(rec, col, "root", path, n, int)  # the rooted families' (None: another family, an older CSV)
    if r["root"] is not None and r["root"] < 0:
        raise InputError(f"{path}:{n}: column root is {r['root']}, expected a rank >= 0")
    r["inplace"] = _number(rec, col, "inplace", path, n, int) or 0
    if r["inplace"] not in (0, 1):
        raise InputError(f"{path}:{n}: column inplace is {r['inplace']}, expected 0 or 1")
    if r["busbw"] is not None and r["busbw"] < 0:
        raise InputError(f"{path}:{n}: column busbw_gbs is {r['busbw']:g}, expected a value >= 0")
    wrong = _number(rec, col, "wrong", path, n, int)
    r["checked"] = wrong is not None  # empty: not checked (-c 0) or skipped
    r["wrong"] = wrong or 0
    if r["wrong"] < 0:
        raise InputError(f"{path}:{n}: column wrong is {r['wrong']}, expected a count >= 0")
    _parse_attn(r, rec, col, path, n)
    if not r["skipped"]:
        x = {"moe": "tokens", "ringattn": "seq"}.get(r["family"], "bytes")
        if r[x] is None or r[x] <= 0:
            raise InputError(f"{path}:{n}: measured {r['family']} row has no positive {x}")
        if r["time"] <= 0:
            raise InputError(f"{path}:{n}: time_us_mean {r['time']} is not positive")
    return r


def _parse_attn(r, rec, col, path, n):
    """The ringattn columns of a row (None when absent or empty): counts and causal as ints,
    metrics as floats, none negative; a measured ringattn row must say causal 0 or 1."""
    for name in ATTN_INT + ATTN_FLOAT:
        r[name] = _number(rec, col, name, path, n, int if name in ATTN_INT else float)
        if r[name] is not None and r[name] < 0:
            raise InputError(f"{path}:{n}: column {name} is {r[name]}, expected a value >= 0")
    if r["causal"] not in (None, 0, 1):
        raise InputError(f"{path}:{n}: column causal is {r['causal']}, expected 0 or 1")
    if r["layout"] not in LAYOUTS:
        raise InputError(f"{path}:{n}: column layout is {excerpt(r['layout'])}, expected contiguous, zigzag, stripe or empty")
    if r["pass"] not in PASSES:
        raise InputError(f"{path}:{n}: column pass is {excerpt(r['pass'])}, expected fwd, bwd, both or empty")
    if r["family"] == "ringattn" and not r["pass"]:
        r["pass"] = "fwd"  # a ringattn row from before --pass is the forward: the readers see "fwd"
    if r["family"] == "ringattn" and not r["skipped"] and r["causal"] is None:
        raise InputError(f"{path}:{n}: measured ringattn row has no causal (0 or 1)")
