"""The verdict of an nccl-tests import (plots/nccl_tests.py --verdict DIR, which plots/plot
--nccl-tests runs for each folder): plots/verdict.py --find against results/reference, with what
only the import knows said where it matters.

- An output without its "# Using devices" lines (a log excerpt) leaves the run's GPU model or
  rank count unknown (meta.devices_note), and a reference is chosen by both: instead of a NO
  REFERENCE that blames the references, the verdict section names that cause and the options
  that supply them (--gpu NAME --ranks N).
- One node assumed for an output without hosts (meta.nodes_note, --ranks without --nodes) is
  said below the verdict.
- A `-g N` run (nGpus N: one process, one thread driving N GPUs) launches every collective on
  its GPUs in turn, so its small-size latency is not collbench's (one process per GPU): the
  section says so, with the file's own figures.
The section is written into DIR/summary.md by verdict.write_section (plots/outfile.py's writer).
"""
import contextlib
import io
import os
import sys

import cbcsv
import cbmeta

REFERENCES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "results", "reference")


def latency_note(meta):
    """The -g note of an import's metadata, or ""."""
    gpus, threads = meta.get("gpus_per_process"), meta.get("threads_per_process")
    if not isinstance(gpus, int) or gpus < 2:
        return ""
    return (f"**nccl-tests ran with nGpus {gpus}** (`-g {gpus}`: one process{f', {threads} thread(s)' if threads else ''}"
            f" driving {gpus} GPUs): it launches each collective on its GPUs one after another, so its latency at "
            f"small sizes includes {gpus} launches from one thread, where collbench runs one process per GPU; to "
            f"compare latency like for like run nccl-tests with `mpirun -np {gpus} ... -g 1`. Bandwidth at large "
            "sizes is not affected.")


def main(run_dir, options):
    """Writes the verdict section of the import run_dir; options are verdict.py's own (before
    --find). Returns verdict.py's exit status (2 on bad input)."""
    import verdict  # plots/verdict.py: the verdict itself
    meta = cbmeta.load(run_dir)
    family = meta.get("family") or os.path.basename(os.path.normpath(run_dir))
    summary = os.path.join(run_dir, "summary.md")
    note = meta.get("devices_note")
    if note:
        text = (f"## Verdict: {family}\n\n**NO VERDICT** for this nccl-tests import: {cbcsv.shown(note)}. A reference "
                f"is chosen by GPU model and rank count (and node count); import the file again with them, e.g. "
                f"`plots/plot --nccl-tests FILE --gpu 'NVIDIA H200' --ranks 2`.\n")
        print(text)
        return verdict.write_section(summary, text)
    out = io.StringIO()
    argv = sys.argv
    sys.argv = ["verdict.py", *options, "--find", REFERENCES, run_dir]
    try:
        with contextlib.redirect_stdout(out):
            rc = verdict.main()
    finally:
        sys.argv = argv
    text = out.getvalue().rstrip("\n")
    if rc == 2 or not text:
        sys.stdout.write(out.getvalue())
        return rc or 2
    extra = [n for n in (meta.get("nodes_note"), latency_note(meta)) if n]
    text += "".join(f"\n\n{cbcsv.shown(n)}" for n in extra) + "\n"
    print(text)
    wrote = verdict.write_section(summary, text)
    return wrote or rc
