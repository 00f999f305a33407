"""Reads and validates the metadata of a collbench results folder (results.json's "meta", or
the first line of results.json.partial.jsonl for a run that ended early) for plots/verdict.py.

The JSON may come from anywhere (a folder copied from another machine), so its size, depth and
shape are checked before anything uses it: a file larger than META_MAX_BYTES, nesting deeper
than Python's parser takes, a string that is not valid Unicode (a lone surrogate) or a field of
the wrong type raises cbcsv.InputError with one line naming the file and the field.
"""
import json
import os
import stat

import cbcsv

# results.json holds the rows too: the largest committed one is under 1 MB.
META_MAX_BYTES = 64 << 20
# meta fields the verdict reads and the JSON types each may have (absent is always fine)
SCALAR = (str, int, float, bool, type(None))
FIELDS = {"rank_info": list, "ranks": (int, str), "nodes": (int, str), "peer_memory": (bool, type(None)),
          "peer_memory_note": (str, type(None)), "nccl_version": SCALAR, "driver": SCALAR,
          "cuda_runtime": SCALAR, "env": dict, "options": dict}
RANK_FIELDS = {"gpu": str, "binding": str}


def _read(path, limit):
    """The bytes of a regular file (at most limit + 1 of them), or None when it does not exist."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise cbcsv.InputError(f"{path}: cannot read ({e.strerror})")
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise cbcsv.InputError(f"{path}: not a regular file")
        try:
            return f.read(limit + 1)
        except OSError as e:
            raise cbcsv.InputError(f"{path}: cannot read ({e.strerror})")


def _unicode_ok(v):
    """True when every string in v (keys too) encodes as UTF-8 (JSON allows lone surrogates)."""
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            try:
                x.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return True


def parse(data, path):
    """JSON bytes -> the document; InputError for anything but valid, not too deep UTF-8 JSON."""
    if len(data) > META_MAX_BYTES:
        raise cbcsv.InputError(f"{path}: larger than {META_MAX_BYTES >> 20} MiB (is this collbench's JSON?)")
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise cbcsv.InputError(f"{path}: unreadable metadata ({cbcsv.shown(e)})")
    except RecursionError:
        raise cbcsv.InputError(f"{path}: unreadable metadata (nested too deeply)")
    if not _unicode_ok(doc):
        raise cbcsv.InputError(f"{path}: a string is not valid Unicode (a lone surrogate escape)")
    return doc


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
    data = _read(path, META_MAX_BYTES)
    if data is not None:
        return validate(parse(data, path), path)
    partial = path + ".partial.jsonl"
    data = _read(partial, META_MAX_BYTES)
    if data is None:
        return {}
    try:
        return validate(parse(data.split(b"\n", 1)[0], partial), partial)
    except cbcsv.InputError:
        return {}
