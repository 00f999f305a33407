"""The -J FILE reader of plots/nccl_tests.py: the JSON nccl-tests writes (JSON_FILE_VERSION 3,
src/util.cu of nccl-tests 2.19.6: "args", "config", "results"; plots/nccl_tests.py's docstring
has the layout) into collbench rows and run metadata, every value checked as the text reader
checks it (plots/infile.py's JSON rules first: nesting, NaN, overflow).
"""
import json
import re

import cbcsv
import infile
import nccl_tests as nt


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
    fam = nt.family_of(args[0], where, strict=True)
    devs = need(config, "devices", list, "config.")
    if len(devs) > nt.MAX_RANKS:
        raise cbcsv.InputError(f"{where}: config.devices lists {len(devs)} processes, more than {nt.MAX_RANKS}")
    devices = []
    for i, d in enumerate(devs):
        at = f"config.devices[{i}]."
        devices.append((need(d, "rank", int, at, 0, nt.MAX_RANKS), need(d, "hostname", str, at),
                        need(d, "device", int, at, 0, nt.MAX_RANKS), need(d, "device_hex", str, at),
                        need(d, "device_info", str, at)))
    per_proc = (need(config, "nthreads", int, "config.", 1, nt.MAX_PER_PROCESS) *
                need(config, "ngpus", int, "config.", 1, nt.MAX_PER_PROCESS))
    if len(devices) * per_proc > nt.MAX_RANKS:
        raise cbcsv.InputError(f"{where}: {len(devices)} processes x {per_proc} GPUs each is more than {nt.MAX_RANKS} ranks")
    graph = need(config, "graph", int, "config.", 0, nt.COUNT_MAX)
    validation = config.get("validation")
    if validation is not None and not infile.json_number(validation, 0, nt.COUNT_MAX, integer=True):
        raise cbcsv.InputError(f"{where}: config.validation is {infile.json_excerpt(validation)}, not 0 or 1")
    version = doc.get("nccl_version")
    if version is not None and not infile.json_number(version, 0, nt.COUNT_MAX, integer=True):
        raise cbcsv.InputError(f"{where}: nccl_version is {infile.json_excerpt(version)}, not a version code")
    times = {k: doc.get(k) for k in ("start_time", "end_time")}
    if not all(v is None or infile.one_line(v, 64) for v in times.values()):
        raise cbcsv.InputError(f"{where}: start_time or end_time is not one line of text")
    meta = dict(nt.devices_meta(devices, len(devices) * per_proc or ""), program=args[0], command=" ".join(args),
                mode="graph" if graph else "eager", iters=need(config, "iterations", int, "config.", 0, nt.COUNT_MAX),
                warmup=need(config, "warmup_iters", int, "config.", 0, nt.COUNT_MAX), graph=graph,
                nccl_version_code=version, env=_nccl_env(doc.get("env")), validation=validation,
                threads_per_process=config["nthreads"], gpus_per_process=config["ngpus"], **times)
    if 2 * len(results) > nt.MAX_ROWS:
        raise cbcsv.InputError(f"{where}: {len(results)} results, more than the {nt.MAX_ROWS // 2} of one nccl-tests run")
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
            if not nt.NAME.fullmatch(v):
                raise cbcsv.InputError(f"{where}: {at}{what} {infile.excerpt(v)} is not a name")
        nw_out = r["out_of_place"].get("nwrong") if isinstance(r.get("out_of_place"), dict) else None
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
            wrong = None if nw is None else nt.nwrong(nw, json.dumps(nw), f"{where}: {at}{key}.nwrong")
            note = "cpu time (nccl-tests -C 1)" if tkey == "cpu_time" else ""
            rows.append(nt.make_row(fam, dtype, op, size, count, ip, time, algbw, busbw, wrong, note, meta,
                                 nt.in_place_unsupported(ip, wrong, nw_out, validation)))
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
