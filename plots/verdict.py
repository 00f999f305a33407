#!/usr/bin/env python3
"""plots/verdict.py: "is my number normal?" — compares a run with a reference run of the same
GPU model and rank count and prints a short markdown verdict.

Per algorithm (and dtype, op, placement, mode, moe phase) the two runs share: bus bandwidth at
the largest common sizes and latency at the smallest, each as measured / reference, with

  OK    within the tolerance: busbw at least 90 % of the reference, latency at most 125 % (or
        at most 0.5 µs above it: launch and timer granularity)
  SLOW  below that (busbw < 90 %, or latency > 125 % and more than 0.5 µs above)
  FAST  above it the other way (busbw > 110 %, latency < 75 %): a better machine or setup, or
        a reference taken under load; worth a look, not a failure

(--bw-tol / --lat-tol change the 10 % and 25 %. Small messages jitter more from run to run than
large ones: two 2 x H200 runs of the same build, 100 and 20 iterations, differ by up to 21 % at
3-4 µs graph latencies and by under 1 % in busbw at 4-8 GiB, hence the wider latency band.) When anything is SLOW it lists the likely causes it
can see in the two runs' metadata (results.json, link_gbs): CPU binding (NUMA) unbound or
different, peer access missing, fewer NVLink GB/s than the reference, another NCCL version,
driver or NCCL_* environment. Only like is compared with like: a reference of another family,
GPU model, rank or node count gives no verdict, and neither does a run or a reference whose
ranks share a GPU (virtual nodes on the same GPUs, CB_SHARE_GPUS=1: "NOT COMPARABLE: ranks
share a GPU (correctness only)"), each with its reason.

usage: verdict.py [--bw-tol F] [--lat-tol F] [--write FILE.md] REFERENCE_DIR RUN_DIR
       verdict.py --find REFERENCE_ROOT RUN_DIR   pick the reference among the runs under
                  REFERENCE_ROOT (results/reference; the git-tracked ones where git tracks any):
                  same family, GPU model, rank and node count, ranks on GPUs of their own, then
                  the most shared rows; names it and why, and the same family's runs it refused
                  with their reasons; without one, says so
--write FILE.md  also put the verdict into FILE.md (RUN_DIR/summary.md): replaces the file's
                 "## Verdict" section (always the last one), or appends it; creates the file.
Exit: 0 verdict printed (whatever it says), 2 bad input.
"""
import argparse
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cbcsv  # noqa: E402
import cbmeta  # noqa: E402
import outfile  # noqa: E402
import attn  # noqa: E402
import groups as G  # noqa: E402
import limits  # noqa: E402

NPOINTS = 2  # largest / smallest common sizes compared
LAT_FLOOR_US = 0.5  # latency differences below this are never SLOW/FAST


class Side:
    """One run: rows by comparison key, and what identifies its hardware."""

    def __init__(self, run_dir):
        self.run = cbcsv.load(run_dir, warn=False)
        self.dir = run_dir
        self.meta = cbmeta.load(self.run.run_dir)  # its shape checked
        # a run imported from nccl-tests (plots/nccl_tests.py): its rows are NCCL's, so they are
        # compared with a collbench reference's `nccl` rows; it can never be a reference itself
        self.imported = self.meta.get("tool") == "nccl-tests"
        self.link = cbcsv.read_link(self.run.run_dir)
        rows = [r for r in self.run.measured if r["wrong"] == 0]
        self.family = self.run.rows[0]["family"]
        gpus = {ri.get("gpu", "") for ri in self.meta.get("rank_info", [])} or {r["gpu"] for r in self.run.rows}
        self.gpu = " + ".join(sorted(g for g in gpus if g)) or "unknown GPU"
        self.ranks = self.meta.get("ranks") or (self.run.rows[0]["ranks"] or "?")
        self.nodes = self.meta.get("nodes") or (self.run.rows[0]["nodes"] or "?")
        self.points = {}  # key -> {x: row}
        for r in rows:
            if r["family"] == "moe" and r["phase"] not in ("", "roundtrip"):
                continue
            # ringattn: the pass (cbcsv reads an empty one as fwd), causal and the attention
            # shape tell its variants apart (else one overwrites the other at the same S, and a
            # backward row would be judged against a forward one)
            variant = ((r["pass"],) + tuple(r.get(c) for c in ("causal",) + G.ATTN_SHAPE)
                       if r["family"] == "ringattn" else ())
            algo = "nccl" if self.imported and r["algo"] == "nccl-tests" else r["algo"]
            key = (r["family"], algo, r["dtype"], r["op"], r["inplace"], r["mode"], r["model"], r["routing"]) + variant
            self.points.setdefault(key, {})[G.xkey(r)] = r

    def label(self):
        return f"{self.gpu} × {self.ranks} ranks, {self.nodes} node(s)"


def reader():
    """A Side loader for one invocation of main(): the verdict, the refusal check, the reference
    search and the section against the hardware all ask for the run and its reference, and each
    Side parses and checks a whole CSV and results.json, so each folder is read once. Keyed by
    the resolved folder and the CSV's name ("x", "x/" and "x/results.csv" are one run). Callers
    without one read afresh (load=Side: tests/fuzz/fuzz_json.py rewrites a folder between calls)."""
    sides = {}

    def load(arg):
        csv_path, run_dir, _ = cbcsv.resolve(arg)
        key = os.path.join(os.path.realpath(run_dir), os.path.basename(csv_path))
        if key not in sides:
            sides[key] = Side(arg)
        return sides[key]
    return load


def judge(m, r, bw, bw_tol, lat_tol):
    """m measured, r reference; bw: higher is better, else (latency, µs) lower is better."""
    ratio = m / r
    if bw:
        return "SLOW" if ratio < 1 - bw_tol else "FAST" if ratio > 1 + bw_tol else "OK"
    if abs(m - r) <= LAT_FLOOR_US:
        return "OK"
    return "SLOW" if ratio > 1 + lat_tol else "FAST" if ratio < 1 - lat_tol else "OK"


def fmt_x(family, x):
    if family == "moe":
        return f"{x} tokens"
    return f"S = {attn.human_seq(x)}" if family == "ringattn" else G.human_bytes(x)


def compare(ref, run, bw_tol, lat_tol):
    """Table rows (cells) and the set of verdicts seen."""
    out, seen = [], set()
    for key in sorted(set(ref.points) & set(run.points), key=lambda k: (G.is_nccl(k[1]) is False, k)):
        common = sorted(set(ref.points[key]) & set(run.points[key]))
        if not common:
            continue
        big, small = common[-NPOINTS:], common[:NPOINTS]
        cells, worst = [], "OK"
        for pts, bw in ((big, True), (small, False)):
            if bw and any(run.points[key][x]["busbw"] is None or ref.points[key][x]["busbw"] in (None, 0) for x in pts):
                cells.append("–")
                continue
            col = "busbw" if bw else "time"
            m = sum(run.points[key][x][col] for x in pts) / len(pts)
            r = sum(ref.points[key][x][col] for x in pts) / len(pts)
            v = judge(m, r, bw, bw_tol, lat_tol)
            seen.add(v)
            if v == "SLOW" or (v == "FAST" and worst == "OK"):
                worst = v
            unit = "GB/s" if bw else "µs"
            where = fmt_x(key[0], pts[0]) + (f"–{fmt_x(key[0], pts[-1])}" if len(pts) > 1 else "")
            cells.append(f"{m:.1f} / {r:.1f} {unit} ({m / r:.2f}) @ {where} **{v}**")
        family, algo, dtype, op, inplace, mode, model, routing = key[:8]
        attn_variant = ""
        if family == "ringattn":
            pas, causal, batch, heads, kv_heads, head_dim = key[8:]
            attn_variant = (f"{'' if pas == 'fwd' else pas + ' '}{'causal' if causal else 'non-causal'} "
                            f"B{batch} H{heads} KV{kv_heads} D{head_dim}")  # the forward unnamed: the default
        variant = " ".join(p for p in (model, routing, dtype, op if op not in ("", "none") else "",
                                       "in-place" if inplace else "", attn_variant, mode) if p)
        out.append([algo, variant, cells[0], cells[1], f"**{worst}**"])
    return out, seen


def causes(ref, run):
    """Differences in the recorded setup that commonly make a run slow."""
    if run.imported:  # nccl-tests records no binding, NVLink figure or NCCL_* environment
        return ["an nccl-tests import: its placement, NVLink figure and NCCL_* environment are not recorded, so "
                "compare them with the reference's by hand (placement.txt, link_gbs, results.json env); also "
                "nccl-tests' own -w/-n and -G (eager here unless its log says graph)"]
    found = []
    rb = [ri.get("binding", "") for ri in run.meta.get("rank_info", [])]
    fb = [ri.get("binding", "") for ri in ref.meta.get("rank_info", [])]
    if any("unbound" in b or "no-bind" in b or not b for b in rb) and rb:
        found.append("CPU binding: rank(s) ran unbound (" + "; ".join(sorted(set(b for b in rb if "unbound" in b or not b)) or ["?"]) +
                     "): wrong NUMA node likely — run through launcher/collbench-run (rankfile) or check `collbench-topo`")
    elif rb and fb and [b.split(" (")[0] for b in rb] != [b.split(" (")[0] for b in fb]:
        found.append(f"CPU binding differs from the reference (run: {', '.join(rb)}; reference: {', '.join(fb)}): "
                     "check NUMA placement (placement.txt)")
    if ref.meta.get("peer_memory") and run.meta.get("peer_memory") is False:
        found.append("peer access missing on this run (" + (run.meta.get("peer_memory_note") or "no reason recorded") +
                     "): custom kernels could not run, NCCL may use a slower path (check IOMMU/ACS, `nvidia-smi topo -m`)")
    if ref.link and run.link and run.link < ref.link * 0.95:
        found.append(f"fewer NVLinks than the reference: {run.link:g} GB/s per GPU vs {ref.link:g} "
                     "(`nvidia-smi nvlink -s`: links down or a different board)")
    elif ref.link and not run.link:
        found.append(f"NVLink bandwidth of this run unknown (no link_gbs; the reference has {ref.link:g} GB/s): "
                     "check `nvidia-smi nvlink -s`")
    for k, what in (("nccl_version", "NCCL version"), ("driver", "driver"), ("cuda_runtime", "CUDA runtime")):
        a, b = run.meta.get(k), ref.meta.get(k)
        if a and b and a != b:
            found.append(f"{what} differs: {a} here, {b} in the reference")
    ea = {k: v for k, v in run.meta.get("env", {}).items() if k.startswith("NCCL_") and k != "NCCL_VERSION"}
    eb = {k: v for k, v in ref.meta.get("env", {}).items() if k.startswith("NCCL_") and k != "NCCL_VERSION"}
    if ea != eb:
        diff = sorted(set(ea.items()) ^ set(eb.items()))
        found.append("NCCL_* environment differs: " + ", ".join(f"{k}={v}" for k, v in diff))
    oa, ob = run.meta.get("options", {}), ref.meta.get("options", {})
    odiff = [f"{k} {oa.get(k)} vs {ob.get(k)}" for k in ("iters", "warmup") if k in oa and k in ob and oa[k] != ob[k]]
    if odiff:
        found.append("run options differ from the reference (" + ", ".join(odiff) + "): fewer iterations "
                     "measure small sizes less steadily")
    if not found:
        found.append("nothing differs in the recorded setup: other work on the GPUs, clocks or power limits "
                     "(`nvidia-smi -q -d CLOCK,POWER,PERFORMANCE`), or noise: rerun")
    return found


def verdict(ref_dir, run_dir, bw_tol, lat_tol, found_by="", load=Side):
    ref, run = load(ref_dir), load(run_dir)
    title = f"## Verdict: {run.family} against {os.path.normpath(ref_dir)}"
    lines = [title, ""]
    if found_by:
        lines += [found_by, ""]
    why = refusal(ref, run)
    if why:
        lines += [not_comparable(run) if shared_gpu(run) else
                  f"**NO VERDICT**: {why}. The reference is {ref.family} on {ref.label()}; this run is {run.family} "
                  f"on {run.label()}. Compare runs of the same family, GPU model, rank and node count, with a GPU "
                  f"per rank.", ""]
        return lines
    table, seen = compare(ref, run, bw_tol, lat_tol)
    if not table:
        lines += ["**NO VERDICT**: the two runs share no measured row (algorithm, dtype, op, mode and size).", ""]
        return lines
    overall = "SLOW" if "SLOW" in seen else "FAST" if "FAST" in seen else "OK"
    lines += [f"**{overall}** — {run.label()}; measured / reference, OK = busbw ≥ {100 * (1 - bw_tol):.0f} % and "
              f"latency ≤ {100 * (1 + lat_tol):.0f} % of the reference.", "",
              f"| algo | variant | busbw at the largest sizes | latency at the smallest sizes | verdict |",
              "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(c) + " |" for c in table]
    lines.append("")
    if overall == "SLOW":
        lines += ["Likely causes (from the two runs' metadata):", ""] + [f"- {c}" for c in causes(ref, run)] + [""]
    return lines


SHARED = "ranks share a GPU (correctness only)"


def shared_gpu(side):
    """Why side's ranks share a GPU, from what the run recorded, or "": results.json's meta
    gpu_shared, CB_SHARE_GPUS=1 in its environment, two ranks with one host and one PCI bus id
    in its rank records (runs from before gpu_shared), or a row's note saying so (a CSV alone)."""
    meta = side.meta if isinstance(side.meta, dict) else {}
    if meta.get("gpu_shared") is True:
        return "results.json records gpu_shared: true"
    env = meta.get("env") if isinstance(meta.get("env"), dict) else {}
    if env.get("CB_SHARE_GPUS") == "1":
        return "results.json records CB_SHARE_GPUS=1"
    seen = {}
    infos = meta.get("rank_info") if isinstance(meta.get("rank_info"), list) else []
    for i, ri in enumerate(infos):
        if not isinstance(ri, dict) or not ri.get("pci_busid"):
            continue
        gpu = (str(ri.get("host", "")), str(ri["pci_busid"]))
        if gpu in seen:
            return f"ranks {seen[gpu]} and {ri.get('rank', i)} both use GPU {gpu[1]} on {gpu[0]}"
        seen[gpu] = ri.get("rank", i)
    for r in side.run.rows:
        if "ranks share a GPU" in (r.get("note") or ""):
            return f"a row's note says so ({r['algo']}: {r['note'][:120]})"
    return ""


def refusal(ref, run):
    """Why ref cannot be run's reference ("" when it can): ranks sharing a GPU on either side,
    then another family, GPU model, rank count or node count."""
    if ref.imported:
        return "an nccl-tests import, not a collbench run"
    for side, whose in ((run, "this run"), (ref, "the reference")):
        why = shared_gpu(side)
        if why:
            return f"{SHARED} in {whose}: {why}"
    for what, a, b in (("family", ref.family, run.family), ("GPU model", ref.gpu, run.gpu),
                       ("rank count", str(ref.ranks), str(run.ranks)),
                       ("node count", str(ref.nodes), str(run.nodes))):
        if a != b:
            return f"different {what}: {a} in the reference, {b} in this run"
    return ""


def not_comparable(run):
    """The verdict line of a run whose own ranks share a GPU."""
    return (f"**NOT COMPARABLE: {SHARED}** — {shared_gpu(run)}. Its ranks split one GPU's SMs and memory, so "
            f"its times are neither NVLink's nor a network's; no reference is compared with it.")


def reference_dirs(root):
    """The run folders (holding results.csv) under root, at any depth, as paths relative to it:
    the git-tracked ones, or all of them where git tracks none (outside a work tree, copies)."""
    dirs = sorted(os.path.relpath(d, root) for d, _, names in os.walk(root) if "results.csv" in names)
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "--", "*results.csv"], capture_output=True,
                             text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return dirs
    if out.returncode != 0:
        return dirs
    tracked = {os.path.normpath(os.path.dirname(p) or ".") for p in out.stdout.splitlines()}
    return [d for d in dirs if os.path.normpath(d) in tracked] if tracked else dirs


def find_reference(root, run_dir, load=Side):
    """(run, best, refused): best = (shared rows, path, why chosen) or None; refused = [(path,
    reason)] for the runs of the same family that could not be the reference."""
    run = load(run_dir)
    me = os.path.realpath(run.run.run_dir)  # a CSV path names its folder's run too
    best, refused = None, []  # best: ((shared rows, date, folder), path)
    for d in reference_dirs(root):
        path = os.path.join(root, d)
        if os.path.realpath(path) == me:
            continue
        try:
            cand = load(path)
        except cbcsv.InputError:
            continue
        why = refusal(cand, run)
        if why:
            if cand.family == run.family:
                refused.append((os.path.normpath(path), why))
            continue
        shared = sum(len(set(cand.points[k]) & set(run.points[k])) for k in set(cand.points) & set(run.points))
        date = str(cand.meta.get("date", "")) if isinstance(cand.meta, dict) else ""
        if shared and (best is None or (shared, date, d) > best[0]):
            best = ((shared, date, d), path)
    if best is None:
        return run, None, refused
    why = (f"chosen because it is the same family ({run.family}), GPU model ({run.gpu}), rank count "
           f"({run.ranks}) and node count ({run.nodes}), its ranks each have a GPU of their own, and it shares "
           f"the most measured rows with this run ({best[0][0]})")
    return run, (best[0][0], best[1], why), refused


def refused_lines(refused):
    if not refused:
        return []
    return ["Not used as the reference:", ""] + [f"- `{p}`: {why}" for p, why in refused] + [""]


def main():
    ap = argparse.ArgumentParser(description="verdict of a run against a reference run", add_help=True)
    ap.add_argument("--find", action="store_true", help="first argument is the reference root to search")
    ap.add_argument("--bw-tol", type=float, default=0.10)
    ap.add_argument("--lat-tol", type=float, default=0.25)
    ap.add_argument("--write", metavar="FILE.md")
    ap.add_argument("ref")
    ap.add_argument("run")
    a = ap.parse_args()
    if not (0 < a.bw_tol < 1 and 0 < a.lat_tol < 1):
        print("verdict: --bw-tol and --lat-tol must be fractions between 0 and 1", file=sys.stderr)
        return 2
    load = reader()
    try:
        if a.find:
            if not os.path.isdir(a.ref):
                raise cbcsv.InputError(f"{a.ref}: not a folder")
            run, best, refused = find_reference(a.ref, a.run, load)
            lines = found_verdict(a, run, best, refused, load)
            ref_dir = best[1] if best else None
        else:
            lines = verdict(a.ref, a.run, a.bw_tol, a.lat_tol, load=load)
            ref_dir = None if refusal(load(a.ref), load(a.run)) else a.ref
        # against the hardware, reference or not; the reference's copy-engine rows stand in for the run's
        lines += limits.section(a.run, load, shared_gpu, ref_dir)
    except cbcsv.InputError as e:
        print(f"verdict: {e}", file=sys.stderr)
        return 2
    lines[1:1] = incomplete_note(a.run)
    text = "\n".join(lines)
    print(text)
    if a.write:
        return write_section(a.write, text)
    return 0


def found_verdict(a, run, best, refused, load):
    """The verdict of --find: against the reference found, or why there is none."""
    if shared_gpu(run):
        return [f"## Verdict: {run.family}", "", not_comparable(run), ""]
    if best is None and not run.points:
        # nothing measured correctly: never suggest it as a reference
        return [f"## Verdict: {run.family}", "",
                "**NO VERDICT**: this run has no correct measured row to compare (every row wrong, skipped or "
                "not supported); fix that first. Do not make it a reference.", ""]
    if best is None and run.imported:
        return [f"## Verdict: {run.family}", "",
                f"**NO REFERENCE** for {run.family} on {run.label()} in {os.path.normpath(a.ref)}: no collbench run of "
                f"the same family, GPU model, rank and node count has `nccl` rows at these sizes to compare this "
                f"nccl-tests import with (an import never becomes a reference: run collbench on this machine).",
                ""] + refused_lines(refused)
    if best is None:
        return [f"## Verdict: {run.family}", "",
                f"**NO REFERENCE** for {run.family} on {run.label()} in {os.path.normpath(a.ref)} (none of the same "
                f"family, GPU model, rank and node count, with a GPU per rank, shares a row with it). If this "
                f"machine is healthy, this run can become the reference: copy it to "
                f"results/reference/<gpu><count>[-<N>nodes]/{run.family}/, list it in results/README.md and commit "
                f"it (in a git checkout only committed runs count).",
                ""] + refused_lines(refused)
    lines = verdict(best[1], a.run, a.bw_tol, a.lat_tol,
                    found_by=f"Reference `{os.path.normpath(best[1])}` (found automatically), {best[2]}.", load=load)
    return lines + refused_lines(refused)


def incomplete_note(run_dir):
    """["", the INCOMPLETE line] for a run collbench-run cut short (RUN_DIR/incomplete.txt)."""
    try:
        why = cbcsv.read_incomplete(run_dir)
    except cbcsv.InputError as e:
        why = str(e)
    if why is None:
        return []
    return ["", f"**INCOMPLETE: interrupted** ({why}): only the rows finished before it stopped are "
                "compared; rerun it, and do not commit it as a reference."]


def write_section(path, text):
    """Replaces the trailing "## Verdict" section of path (or appends one). The file is written
    as a new one (plots/outfile.py): a symlink at path is replaced, never followed or read."""
    try:
        old = outfile.read_existing(path, cbcsv.CSV_MAX_BYTES)
    except OSError as e:
        print(f"verdict: {cbcsv.shown(path)}: cannot read ({e.strerror})", file=sys.stderr)
        return 2
    cut = old.rfind("\n## Verdict")
    if cut < 0 and old.startswith("## Verdict"):
        cut = 0
    keep = old if cut < 0 else old[:cut + 1]
    if keep and not keep.endswith("\n\n"):
        keep = keep.rstrip("\n") + "\n\n"
    try:
        outfile.write_new(path, keep + text.rstrip("\n") + "\n")
    except OSError as e:
        print(f"verdict: {cbcsv.shown(path)}: cannot write ({e.strerror})", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    # a folder name that is not UTF-8 prints as \xNN, never as a traceback
    sys.stdout.reconfigure(errors="backslashreplace")
    sys.exit(main())
