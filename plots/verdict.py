#!/usr/bin/env python3
"""plots/verdict.py: "is my number normal?" — compares a run with a reference run of the same
family, GPU model, rank and node count and prints a markdown verdict that opens with one line:

  **OK**: 28 variants; auto 8 GiB 379 GB/s = 79 % of NVLink

then the reference and why it was chosen, the likely causes when something is SLOW, and the
tables, folded (<details>): per variant (algorithm, dtype, op, placement, mode, MoE model,
ringattn pass, causal form and shape) the measures of its family (plots/judge.py: busbw and p50
latency for collectives, remote GB/s and the share of copy_ce for MoE, TFLOP/s with overlap and
r/single for ring attention), measured / reference, each

  OK    within the tolerance: throughputs at least 90 % of the reference, latency at most 125 %
        (or at most 0.5 µs above it: launch and timer granularity)
  SLOW  below that
  FAST  above it the other way: a better machine or setup, or a reference taken under load;
        worth a look, not a failure

(--bw-tol / --lat-tol change the 10 % and 25 %. Small messages jitter more from run to run than
large ones: two 2 x H200 runs of the same build, 100 and 20 iterations, differ by up to 21 % at
3-4 µs graph latencies and by under 1 % in busbw at 4-8 GiB, hence the wider latency band.)
When anything is SLOW it lists the likely causes it can see in the two runs' metadata and
measures: CPU binding (NUMA) unbound or different, peer access missing, fewer NVLink GB/s than
the reference, another NCCL version, driver or NCCL_* environment, ring attention's overlap,
MoE's share of copy_ce. Then the run against its hardware (plots/limits.py), reference or not.
Only like is compared with like: a reference of another family, GPU model, rank or node count
gives no verdict, and neither does a run or a reference whose ranks share a GPU ("NOT
COMPARABLE: ranks share a GPU (correctness only)"), each with its reason. A run judged against
itself (the same folder, or a committed reference found among the references) says so. An
nccl-tests import (plots/nccl_tests.py) whose output did not say its GPU model or rank count gets
NO VERDICT naming that cause, and its -g N and assumed-node notes (plots/nccl_tests_verdict.py).

usage: verdict.py [--bw-tol F] [--lat-tol F] [--write FILE.md] [--fail-on slow] REFERENCE_DIR RUN_DIR
       verdict.py --find REFERENCE_ROOT RUN_DIR   pick the reference among the runs under
                  REFERENCE_ROOT (results/reference; the git-tracked ones where git tracks any):
                  same family, GPU model, rank and node count, ranks on GPUs of their own, then
                  the most shared rows; names it and why, and the same family's runs it refused
                  with their reasons; without one, says so
--write FILE.md  also put the verdict into FILE.md (RUN_DIR/summary.md): replaces the file's
                 "## Verdict" section (always the last one), or appends it; creates the file.
                 A file git tracks (a committed reference's summary.md) is never rewritten.
                 With --write, stdout shows each folded table as its one summary line.
--fail-on slow   exit 6 when the verdict is SLOW (below the bar the user set).
Exit: 0 verdict printed (whatever it says), 2 bad input, 6 SLOW with --fail-on slow.
"""
import argparse
import os
import subprocess
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cbcsv  # noqa: E402
import attn  # noqa: E402
import cbmeta  # noqa: E402
import outfile  # noqa: E402
import ce_rate  # noqa: E402
import groups as G  # noqa: E402
import headline  # noqa: E402
import infile  # noqa: E402
import judge  # noqa: E402
import limits  # noqa: E402
import nccl_tests_verdict as imported  # noqa: E402

REPO = os.path.dirname(HERE)
REFERENCES = os.path.join(REPO, "results", "reference")  # where the machines' copy-engine figures come from
HEADING = "## Verdict"
FAIL_ON = {"slow": "SLOW"}  # --fail-on WORD: the verdict that makes the exit code EXIT_FAIL_ON
EXIT_FAIL_ON = 6  # below the performance bar the user set (README "Failures and exit codes")


class Side:
    """One run: rows by comparison key, its limits, and what identifies its hardware."""

    def __init__(self, run_dir):
        self.run = cbcsv.load(run_dir, warn=False)
        self.dir = run_dir
        self.meta = cbmeta.load(self.run.run_dir)  # its shape checked
        # a run imported from nccl-tests (plots/nccl_tests.py): its rows are NCCL's, so they are
        # compared with a collbench reference's `nccl` rows; it can never be a reference itself
        self.imported = self.meta.get("tool") == "nccl-tests"
        self.limits = limits.read(self.run.run_dir, self.meta)
        self.link = self.limits.get("nvlink_gbs") or None
        rows = [r for r in self.run.measured if r["wrong"] == 0]
        self.family = self.run.rows[0]["family"]
        gpus = {ri.get("gpu", "") for ri in self.meta.get("rank_info", [])} or {r["gpu"] for r in self.run.rows}
        self.gpu = " + ".join(sorted(g for g in gpus if g)) or "unknown GPU"
        self.ranks = self.meta.get("ranks") or (self.run.rows[0]["ranks"] or "?")
        self.nodes = self.meta.get("nodes") or (self.run.rows[0]["nodes"] or "?")
        self.points = {}  # key -> {x: row}
        one_rank = str(self.ranks) == "1"
        for r in rows:
            if r["family"] == "moe" and r["phase"] not in ("", "roundtrip"):
                continue
            if r["family"] == "ringattn" and one_rank and not attn.is_single(r["algo"]):
                continue  # P = 1: every scheme runs its block kernel alone, as single does
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


def shown(path):
    """A folder as the verdict names it: relative to the repository for the committed runs
    (results/reference/h200x2/allreduce, the same on every checkout), else as given."""
    a = os.path.realpath(path)
    results = os.path.realpath(os.path.join(REPO, "results"))
    if a == results or a.startswith(results + os.sep):
        return os.path.relpath(a, os.path.realpath(REPO))
    return os.path.normpath(path)


class Verdict:
    """What main() prints and writes: the overall word, the opening line and the lines below."""

    def __init__(self, title, word, opener, body):
        self.title, self.word, self.opener, self.body = title, word, opener, body


def table_lines(judged):
    """The per-variant table (folded), one header per family kind."""
    heads = judge.HEADERS[judge.kind(judged[0].key[0])]
    out = ["| algo | variant | " + " | ".join(heads) + " | verdict |", "|---" * (len(heads) + 3) + "|"]
    out += [f"| {j.key[1]} | {judge.variant_name(j.key)} | " + " | ".join(j.cells) + f" | **{j.verdict}** |"
            for j in judged]
    return out


def counted(judged):
    """'28 variants, 2 SLOW (twoshot float eager, ...)' for the opening line."""
    n = len(judged)
    text = f"{n} variant{'' if n == 1 else 's'}"
    for word in ("SLOW", "FAST"):
        hit = [j for j in judged if j.verdict == word]
        if hit:
            names = [f"{j.key[1]} {judge.variant_name(j.key)}" for j in hit[:3]] + (["…"] if len(hit) > 3 else [])
            text += f", {len(hit)} {word} ({'; '.join(names)})"
    return text


def compared(ref, run, ref_path, bw_tol, lat_tol, found_by=""):
    """The Verdict of run against ref (both loaded Sides); ref_path names the reference."""
    title = f"{HEADING}: {run.family} against {shown(ref_path)}"
    lead = [found_by, ""] if found_by else []
    why = refusal(ref, run)
    if why:
        if shared_gpu(run):
            return Verdict(title, "NOT COMPARABLE", not_comparable(run), [])
        if run.imported and imported.unknown(run.meta):
            return devices_unknown(title, run)
        return Verdict(title, "NO VERDICT", f"**NO VERDICT**: {why}.", lead + [
            f"The reference is {ref.family} on {ref.label()}; this run is {run.family} on {run.label()}. Compare "
            f"runs of the same family, GPU model, rank and node count, with a GPU per rank.", ""])
    if os.path.realpath(ref.run.csv_path) == os.path.realpath(run.run.csv_path):
        return Verdict(title, "SAME RUN", f"**SAME RUN**: the reference and the run are one file "
                                          f"(`{shown(run.run.csv_path)}`): nothing to compare", [])
    judged = judge.compare(ref.points, run.points, bw_tol, lat_tol)
    if not judged:
        return Verdict(title, "NO VERDICT", "**NO VERDICT**: the two runs share no measured row (algorithm, dtype, "
                                            "op, mode and size).", lead)
    seen = {j.verdict for j in judged}
    word = "SLOW" if "SLOW" in seen else "FAST" if "FAST" in seen else "OK"
    body = lead
    if word == "SLOW":
        body += ["Likely causes (from the two runs' metadata and measures):", ""] + \
            [f"- {c}" for c in judge.likely_causes(judged) + causes(ref, run)] + [""]
    bw, lat = f"≥ {100 * (1 - bw_tol):.0f} %", f"≤ {100 * (1 + lat_tol):.0f} %"
    ok = {"ringattn": f"TFLOP/s {bw}", "moe": f"remote GB/s {bw} and p50 round trip {lat}"}.get(
        run.family, f"busbw {bw} and p50 latency {lat}")
    how = f"{run.label()}; measured / reference, OK = {ok} of the reference"
    body += limits.fold(f"{len(judged)} variants against the reference: {how}", table_lines(judged))
    return Verdict(title, word, f"**{word}**: {counted(judged)}", body)


def devices_unknown(title, run):
    """The Verdict of an nccl-tests import whose GPU model or rank count its output did not say:
    that is the cause, not the references (plots/nccl_tests_verdict.py)."""
    return Verdict(title, "NO VERDICT", f"**NO VERDICT** for this nccl-tests import: {imported.unknown(run.meta)}.",
                   imported.advice())


def causes(ref, run):
    """Differences in the recorded setup that commonly make a run slow."""
    if run.imported:  # nccl-tests records no binding, NVLink figure or NCCL_* environment
        return ["an nccl-tests import: its placement, NVLink figure and NCCL_* environment are not recorded, so "
                "compare them with the reference's by hand (placement.txt, results.json's limits and env); also "
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
        found.append(f"NVLink figure of this run unknown (none recorded: results.json meta.limits, or link_gbs in "
                     f"an older folder; the reference has {ref.link:g} GB/s): check `nvidia-smi nvlink -s`")
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


def reference_dirs(root, committed=None):
    """The run folders (holding results.csv) under root, at any depth, as paths relative to it:
    the git-tracked ones, or all of them where git tracks none (outside a work tree, copies).
    committed: a list that gets True appended when they are the git-tracked ones."""
    dirs = sorted(os.path.relpath(d, root) for d, _, names in os.walk(root) if "results.csv" in names)
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "--", "*results.csv"], capture_output=True,
                             text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return dirs
    if out.returncode != 0:
        return dirs
    tracked = {os.path.normpath(os.path.dirname(p) or ".") for p in out.stdout.splitlines()}
    if tracked and committed is not None:
        committed.append(True)
    return [d for d in dirs if os.path.normpath(d) in tracked] if tracked else dirs



def find_reference(root, run_dir, load=Side):
    """(run, best, refused, itself): best = (shared rows, path, why chosen) or None; refused =
    [(path, reason)] for the runs of the same family that could not be the reference; itself:
    the path under root that is the run's own folder when git tracks it (a committed reference),
    else None (a run in an untracked tree is judged against the others)."""
    run = load(run_dir)
    me = os.path.realpath(run.run.run_dir)  # a CSV path names its folder's run too
    best, refused, itself, committed = None, [], None, []  # best: ((shared rows, date, folder), path)
    for d in reference_dirs(root, committed):
        path = os.path.join(root, d)
        if os.path.realpath(path) == me:
            itself = path if committed else None
            continue
        try:
            cand = load(path)
        except cbcsv.InputError:
            continue
        why = refusal(cand, run)
        if why:
            if cand.family == run.family:
                refused.append((shown(path), why))
            continue
        shared = sum(len(set(cand.points[k]) & set(run.points[k])) for k in set(cand.points) & set(run.points))
        # among references sharing as many rows, the one made mostly of them (the same sweep),
        # not a larger sweep that happens to contain them (ringattn-batch-seq holds ringattn's
        # B 1 rows among 140), then the newest
        extent = shared / max(1, sum(len(v) for v in cand.points.values()))
        date = str(cand.meta.get("date", "")) if isinstance(cand.meta, dict) else ""
        if shared and (best is None or (shared, extent, date, d) > best[0]):
            best = ((shared, extent, date, d), path)
    if best is None:
        return run, None, refused, itself
    why = (f"chosen because it is the same family ({run.family}), GPU model ({run.gpu}), rank count "
           f"({run.ranks}) and node count ({run.nodes}), its ranks each have a GPU of their own, and it shares "
           f"the most measured rows with this run ({best[0][0]})")
    return run, (best[0][0], best[1], why), refused, itself


def refused_lines(refused):
    if not refused:
        return []
    return limits.fold(f"{len(refused)} run(s) of the same family not used as the reference",
                       [f"- `{p}`: {why}" for p, why in refused])


def found(a, run, best, refused, itself, load):
    """The Verdict of --find: against the reference found, or why there is none."""
    title = f"{HEADING}: {run.family}"
    if shared_gpu(run):
        return Verdict(title, "NOT COMPARABLE", not_comparable(run), [])
    if itself:
        return Verdict(title, "REFERENCE", f"**REFERENCE**: this run is the committed reference `{shown(itself)}` "
                                           f"for {run.family} on {run.label()}", [
            "Judged against itself it is OK by definition: nothing is compared, and its tracked files are left as "
            "they are. Judge a new run of this machine against it, or another reference of its kind.", ""])
    if run.imported and imported.unknown(run.meta):
        return devices_unknown(title, run)
    if best is None and not run.points:
        # nothing measured correctly: never suggest it as a reference
        return Verdict(title, "NO VERDICT", "**NO VERDICT**: this run has no correct measured row to compare", [
            "Every row is wrong, skipped or not supported: fix that first. Do not make it a reference.", ""])
    where = f"for {run.family} on {run.label()} in {shown(a.ref)}"
    if best is None and run.imported:
        return Verdict(title, "NO REFERENCE", f"**NO REFERENCE** {where}", [
            "No collbench run of the same family, GPU model, rank and node count has `nccl` rows at these sizes to "
            "compare this nccl-tests import with (an import never becomes a reference: run collbench on this "
            "machine).", ""] + refused_lines(refused))
    if best is None:
        return Verdict(title, "NO REFERENCE", f"**NO REFERENCE** {where}", [
            f"None of the same family, GPU model, rank and node count, with a GPU per rank, shares a row with it. If "
            f"this machine is healthy, this run can become the reference: copy it to "
            f"results/reference/<gpu><count>[-<N>nodes]/{run.family}/, list it in results/README.md and commit it "
            f"(in a git checkout only committed runs count).", ""] + refused_lines(refused))
    v = compared(load(best[1]), run, best[1], a.bw_tol, a.lat_tol,
                 found_by=f"Reference `{shown(best[1])}` (found automatically), {best[2]}.")
    v.body += refused_lines(refused)
    return v


def machine_ce(side, load, shared):
    """The machine's copy-engine figure (ce_rate.figure) for a loaded run: its own copy_ce rows
    and those of the committed references of the same GPU model, rank and node count."""
    if not limits.can_measure_link(side, shared):
        return None
    others = [(path, m) for path, machine, m in committed_rates(load) if machine == (side.gpu, str(side.ranks),
                                                                                     str(side.nodes))]
    return ce_rate.figure(ce_rate.measure(side.run), others)


_RATES = []  # committed_rates' one scan per process: the committed references do not change under it


def committed_rates(load):
    """[(path, (GPU model, ranks, nodes), ce_rate.measure())] of the committed references that
    can measure a link and hold copy_ce rows (read once per process)."""
    if not _RATES:
        found = []
        for d in reference_dirs(REFERENCES) if os.path.isdir(REFERENCES) else []:
            path = os.path.join(REFERENCES, d)
            try:  # only a run with copy_ce rows is parsed (the rest cost a second of CSV and JSON)
                if ",copy_ce," not in infile.read_text(os.path.join(path, "results.csv"), cbcsv.CSV_MAX_BYTES):
                    continue
                cand = load(path)
            except cbcsv.InputError:
                continue
            m = ce_rate.measure(cand.run)
            if m and limits.can_measure_link(cand, shared_gpu):
                found.append((shown(path), (cand.gpu, str(cand.ranks), str(cand.nodes)), m))
        _RATES.append(found)
    return _RATES[0]


def incomplete_note(run_dir):
    """[the INCOMPLETE line, ""] for a run collbench-run cut short (RUN_DIR/incomplete.txt)."""
    try:
        why = cbcsv.read_incomplete(run_dir)
    except cbcsv.InputError as e:
        why = str(e)
    if why is None:
        return []
    return [f"**INCOMPLETE: interrupted** ({why}): only the rows finished before it stopped are "
            "compared; rerun it, and do not commit it as a reference.", ""]


def main():
    ap = argparse.ArgumentParser(description="verdict of a run against a reference run", add_help=True)
    ap.add_argument("--find", action="store_true", help="first argument is the reference root to search")
    ap.add_argument("--bw-tol", type=float, default=0.10)
    ap.add_argument("--lat-tol", type=float, default=0.25)
    ap.add_argument("--write", metavar="FILE.md")
    ap.add_argument("--fail-on", metavar="WORD")
    ap.add_argument("ref")
    ap.add_argument("run")
    a = ap.parse_args()
    if not (0 < a.bw_tol < 1 and 0 < a.lat_tol < 1):
        print("verdict: --bw-tol and --lat-tol must be fractions between 0 and 1", file=sys.stderr)
        return 2
    if a.fail_on is not None and a.fail_on not in FAIL_ON:
        print(f"verdict: --fail-on '{cbcsv.shown(a.fail_on)[:40]}': unknown (known: {', '.join(FAIL_ON)})",
              file=sys.stderr)
        return 2
    load = reader()
    try:
        if a.find:
            if not os.path.isdir(a.ref):
                raise cbcsv.InputError(f"{a.ref}: not a folder")
            run, best, refused, itself = find_reference(a.ref, a.run, load)
            v = found(a, run, best, refused, itself, load)
        else:
            run = load(a.run)
            v = compared(load(a.ref), run, a.ref, a.bw_tol, a.lat_tol)
        lines = rendered(v, run, a.run, load)
    except cbcsv.InputError as e:
        print(f"verdict: {e}", file=sys.stderr)
        return 2
    text = "\n".join(lines).rstrip("\n") + "\n"
    rc = 0
    if a.write:
        written = not tracked(a.write)
        rc = write_section(a.write, text)
        print(folded(text, shown(a.write) if written and rc == 0 else None), end="")
    else:
        print(text, end="")
    if rc == 0 and a.fail_on and v.word == FAIL_ON[a.fail_on]:
        return EXIT_FAIL_ON
    return rc


def rendered(v, run, run_arg, load):
    """The verdict's lines: its heading, the opening line (v's word, then the run's headline
    figure), the INCOMPLETE note, v's body, then the run against its hardware (reference or not;
    one copy-engine figure per machine)."""
    hw = limits.Hardware(run, shared_gpu(run) if int_or(run.ranks) > 1 else "", machine_ce(run, load, shared_gpu))
    top = headline.headline(run, hw) if v.word not in ("NOT COMPARABLE", "NO VERDICT") else ""
    notes = imported.notes(run.meta) if run.imported else []  # what only an nccl-tests import knows
    return [v.title, "", v.opener + (f"; {top}" if top else ""), ""] + incomplete_note(run_arg) + v.body + notes + \
        hw.lines()


def verdict(ref_dir, run_dir, bw_tol, lat_tol, load=None):
    """The lines of run_dir's verdict against ref_dir (what main prints without --find)."""
    load = load or reader()
    run = load(run_dir)
    return rendered(compared(load(ref_dir), run, ref_dir, bw_tol, lat_tol), run, run_dir, load)


def int_or(v, default=0):
    try:
        return int(v)
    except (TypeError, ValueError):
        return default


def folded(text, path):
    """text with each <details> block shown as its summary line (the terminal's view of what
    --write put into path; None: nothing was written)."""
    out, skip = [], False
    where = f" (in {cbcsv.shown(path)})" if path else ""
    for line in text.splitlines():
        if line.startswith("<details><summary>"):
            out.append(f"▸ {line[len('<details><summary>'):-len('</summary>')]}{where}")
            skip = True
        elif line == "</details>":
            skip = False
        elif not skip:
            out.append(line)
    return "\n".join(out) + "\n"


def tracked(path):
    """True when git tracks path (a committed run's file: never rewritten by a verdict)."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        p = subprocess.run(["git", "-C", folder, "ls-files", "--error-unmatch", "--", os.path.basename(path)],
                           capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return p.returncode == 0


def split_verdict(text):
    """(body, verdict section) of a summary.md: the section is the trailing "## Verdict" one."""
    if text.startswith(HEADING):
        return "", text
    cut = text.rfind("\n" + HEADING)
    return (text, "") if cut < 0 else (text[:cut + 1], text[cut + 1:])


def write_section(path, text):
    """Replaces the trailing "## Verdict" section of path (or appends one). The file is written
    as a new one (plots/outfile.py): a symlink at path is replaced, never followed or read. A file
    git tracks is left as it is (a committed reference's summary.md). Returns the exit code."""
    if tracked(path):
        print(f"verdict: {cbcsv.shown(shown(path))}: tracked by git (a committed run): not rewritten",
              file=sys.stderr)
        return 0
    try:
        old = infile.read_replaced(path, cbcsv.CSV_MAX_BYTES)
    except cbcsv.InputError as e:
        print(f"verdict: {e}", file=sys.stderr)
        return 2
    keep, _ = split_verdict(old)
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
