"""Reads and validates the metadata of a collbench results folder (results.json's "meta", or
the first line of results.json.partial.jsonl for a run that ended early) for plots/verdict.py.

The JSON may come from anywhere (a folder copied from another machine), so it is read by
plots/infile.py (no symlink followed, a regular file, a size cap, UTF-8, nesting, no NaN) and
its shape is checked before anything uses it: a file larger than META_MAX_BYTES, a field of the
wrong type or a hardware figure out of range (plots/hwfigures.py) raises cbcsv.InputError with
one line naming the file and the field.
"""
import os

import cbcsv
import hwfigures
import infile

# results.json holds the rows too: the largest committed one is under 1 MB.
META_MAX_BYTES = 64 << 20
# meta fields the verdict reads and the JSON types each may have (absent is always fine)
SCALAR = (str, int, float, bool, type(None))
FIELDS = {"rank_info": list, "ranks": (int, str), "nodes": (int, str), "peer_memory": (bool, type(None)),
          "peer_memory_note": (str, type(None)), "nccl_version": SCALAR, "driver": SCALAR,
          "cuda_runtime": SCALAR, "env": dict, "options": dict}
RANK_FIELDS = {"gpu": str, "binding": str}


def parse(data, path):
    """JSON bytes -> the document; InputError for anything but valid, not too deep UTF-8 JSON
    (infile.parse_json's rules)."""
    if len(data) > META_MAX_BYTES:
        raise cbcsv.InputError(f"{cbcsv.shown(path)}: larger than {META_MAX_BYTES >> 20} MiB (is this collbench's JSON?)")
    return infile.parse_json(data, path)


def validate(doc, path):
    """The "meta" object of a parsed document, its fields checked; InputError names the first
    field of the wrong type."""
    if not isinstance(doc, dict):
        raise cbcsv.InputError(f"{path}: expected a JSON object, got {type(doc).__name__}")
    meta = doc.get("meta", {})
    if not isinstance(meta, dict):
        raise cbcsv.InputError(f"{path}: \"meta\" is {type(meta).__name__}, expected an object")
    for key, want in FIELDS.items():
        if key in meta and not isinstance(meta[key], want):
            raise cbcsv.InputError(f"{path}: meta.{key} is {type(meta[key]).__name__}, of the wrong type")
    for i, ri in enumerate(meta.get("rank_info", [])):
        if not isinstance(ri, dict):
            raise cbcsv.InputError(f"{path}: meta.rank_info[{i}] is {type(ri).__name__}, expected an object")
        for key, want in RANK_FIELDS.items():
            if key in ri and not isinstance(ri[key], want):
                raise cbcsv.InputError(f"{path}: meta.rank_info[{i}].{key} is {type(ri[key]).__name__}, "
                                       "expected a string")
    if meta.get("limits") is not None:
        hwfigures.limits_object(meta["limits"], f"{path}: meta.limits")
    for key in ("env", "options"):
        for k, v in meta.get(key, {}).items():
            if not isinstance(v, SCALAR):
                raise cbcsv.InputError(f"{path}: meta.{key}.{cbcsv.shown(k)} is {type(v).__name__}, expected a value")
    return meta


def load(run_dir):
    """The metadata of a results folder: results.json, else the .partial.jsonl stream's first
    line (a run that ended early), else {}. A malformed partial stream counts as absent (the run
    died mid-write); a malformed results.json is an error."""
    path = os.path.join(run_dir, "results.json")
    data = infile.read_bytes(path, META_MAX_BYTES, absent_ok=True)
    if data is not None:
        return validate(parse(data, path), path)
    partial = path + ".partial.jsonl"
    data = infile.read_bytes(partial, META_MAX_BYTES, absent_ok=True)
    if data is None:
        return {}
    try:
        return validate(parse(data.split(b"\n", 1)[0], partial), partial)
    except cbcsv.InputError:
        return {}


def tool_label(run):
    """Which tool measured a loaded run (cbcsv.Run), for --compare labels: "nccl-tests NAME" for
    an nccl-tests import (every row's algo is nccl-tests; NAME its binary, from meta.program
    when results.json says), else "collbench"."""
    if not run.rows or any(r["algo"] != "nccl-tests" for r in run.rows):
        return "collbench"
    try:
        program = load(run.run_dir).get("program")
    except cbcsv.InputError:
        program = None
    name = os.path.basename(program) if isinstance(program, str) and infile.one_line(program, 4096) else ""
    return f"nccl-tests {name}".strip()


def compare_label(tool, algo):
    """A --compare line's label after "A: ": the tool, and the algorithm where the tool has several."""
    return tool if tool.startswith("nccl-tests") else f"{tool} {algo}"

