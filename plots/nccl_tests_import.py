"""The run folders of an nccl-tests import (plots/nccl_tests.py --out DIR, plots/plot
--nccl-tests): DIR/<family>/results.csv and results.json, written only when every one of them
can be, and only in a form plots/ reads back.

Before anything is written:
- DIR and the input's name hold no line break or control character (the folder names are
  printed one per line, and the charts' titles carry them);
- DIR, when it is the default ./nccl-tests-NAME (a predictable name in the current folder), is
  not a symlink, and no DIR/<family> is a symlink or anything but a folder: the files land in
  the folder named, never where a planted link points;
- a DIR/<family> that exists holds an earlier import and nothing else: only the names an
  import and plots/plot write (results.csv, results.json, summary.md, charts), results.json an
  import's (schema, meta.tool "nccl-tests", its format) and results.csv rows of algo
  "nccl-tests" only; a collbench run (output.txt, command.txt, link_gbs ...) or a planted
  31-byte results.json never passes;
- each file's text is made in memory and read back by the readers that will read it
  (cbcsv.parse, cbmeta.validate): a row they would refuse (a negative count, a line break in a
  name, an impossible rank count) or a file over their caps is refused here, with nothing on disk.
Then each file goes through plots/outfile.py (a new file renamed over the name).
"""
import json
import os
import re

import cbcsv
import cbmeta
import infile
import nccl_tests
import outfile

SCHEMA = "collbench-results/1"
CHART = re.compile(r"[A-Za-z0-9_.+-]+\.(png|svg)")  # plots/plot's chart names
IMPORT_FILES = ("results.csv", "results.json", "summary.md")


def default_out(path):
    """./nccl-tests-<the input's name without its extension>."""
    return "nccl-tests-" + os.path.splitext(os.path.basename(path))[0]


def check_names(path, out):
    """A line break or control character in the input's name or in DIR: refused."""
    for what, name in (("the nccl-tests file's name", path), ("--out", out)):
        if any(ord(c) < 32 or ord(c) == 127 for c in name):
            raise cbcsv.InputError(f"{what} {infile.excerpt(name)} holds a line break or another control character: "
                                   "not supported (rename it)")


def _csv_field(v):
    s = f"{v:.6g}" if isinstance(v, float) else str(v)
    return '"' + s.replace('"', '""') + '"' if any(c in s for c in ',"\n\r') else s


def _files(d, fam, mine, meta):
    """(results.csv text, results.json text) of one family, checked by the readers of plots/."""
    csv_text = ",".join(nccl_tests.COLUMNS) + "\n" + "".join(
        ",".join(_csv_field(r[c]) for c in nccl_tests.COLUMNS) + "\n" for r in mine)
    doc = {"schema": SCHEMA, "meta": meta, "rows": mine, "complete": True,
           "summary": {"rows": len(mine), "skipped": sum(1 for r in mine if r["time_us_mean"] == ""),
                       "wrong": sum(1 for r in mine if r["wrong"] not in ("", 0))}}
    json_text = json.dumps(doc, indent=1) + "\n"
    for name, text, cap in (("results.csv", csv_text, cbcsv.CSV_MAX_BYTES),
                            ("results.json", json_text, cbmeta.META_MAX_BYTES)):
        if len(text.encode("utf-8")) > min(cap, outfile.MAX_BYTES):
            raise cbcsv.InputError(f"{cbcsv.shown(d)}: its {name} would be larger than the {cap >> 20} MiB plots/ "
                                   "reads: cut the nccl-tests output to fewer tables")
    try:
        cbcsv.parse(csv_text, os.path.join(d, "results.csv"), d, fam, warn=False)
        cbmeta.validate(cbmeta.parse(json_text.encode("utf-8"), os.path.join(d, "results.json")), d)
    except cbcsv.InputError as e:
        raise cbcsv.InputError(f"the import would write what plots/ refuses: {e}")
    return csv_text, json_text


def _earlier_import(d):
    """Whether the existing folder d holds an earlier import and nothing else (the module's rule)."""
    names = os.listdir(d)
    if not names:
        return True
    if any(n not in IMPORT_FILES and not CHART.fullmatch(n) for n in names):
        return False
    try:
        doc = infile.read_json(os.path.join(d, "results.json"), cbmeta.META_MAX_BYTES)
        run = cbcsv.load(d, warn=False)
    except cbcsv.InputError:
        return False
    meta = doc.get("meta") if isinstance(doc, dict) else None
    return (isinstance(meta, dict) and doc.get("schema") == SCHEMA and meta.get("tool") == nccl_tests.ALGO
            and meta.get("format") in ("text", "json") and isinstance(doc.get("rows"), list)
            and len(doc["rows"]) == len(run.rows)
            and all(r["algo"] in (meta.get("algos") or [nccl_tests.ALGO]) for r in run.rows))


def _family_folder(out, fam, out_is_default):
    """DIR/<family>, checked as the module says (InputError otherwise); whether it exists."""
    d = os.path.join(out, fam)
    if out_is_default and os.path.islink(out):
        raise cbcsv.InputError(f"{cbcsv.shown(out)}: the default output folder is a symbolic link (never followed): "
                               "remove it or choose --out")
    if os.path.islink(d):
        raise cbcsv.InputError(f"{cbcsv.shown(d)}: a symbolic link (never followed): remove it or choose another --out")
    if not os.path.lexists(d):
        return d, False
    if not os.path.isdir(d):
        raise cbcsv.InputError(f"{cbcsv.shown(d)}: exists and is not a folder: choose another --out")
    if not _earlier_import(d):
        raise cbcsv.InputError(f"{cbcsv.shown(d)}: holds files of a run that is not an nccl-tests import (a "
                               "collbench run?): choose another --out")
    return d, True


def write_runs(path, out=None, family=None, gpu=None, ranks=None, nodes=None):
    """DIR/<family>/results.csv + results.json for each family of path (DIR: out, default
    default_out(path); gpu, ranks and nodes: nccl_tests.read's); returns the folders. Nothing is
    written unless every file can be."""
    out_is_default = out is None
    out = default_out(path) if out is None else out
    check_names(path, out)
    rows, metas, fmt = nccl_tests.read(path, family, gpu, ranks, nodes)
    plan = []
    for fam in sorted(metas):
        d, exists = _family_folder(out, fam, out_is_default)
        mine = [r for r in rows if r["family"] == fam]
        meta = dict(metas[fam], tool=nccl_tests.ALGO, source=os.path.abspath(path), format=fmt, family=fam)
        meta = {k: v for k, v in meta.items() if v not in (None, "")}
        plan.append((d, exists) + _files(d, fam, mine, meta))
    for d, exists, csv_text, json_text in plan:
        try:
            if not exists:
                os.makedirs(out, exist_ok=True)
                os.mkdir(d)
            outfile.write_new(os.path.join(d, "results.csv"), csv_text)
            outfile.write_new(os.path.join(d, "results.json"), json_text)
        except OSError as e:
            raise cbcsv.InputError(f"{cbcsv.shown(d)}: cannot write ({e.strerror})")
    return [d for d, *_ in plan]
