"""What the verdict (plots/verdict.py) says of an nccl-tests import that only the import knows,
read from the metadata plots/nccl_tests.py wrote:

- An output without its "# Using devices" lines (a log excerpt) leaves the run's GPU model or
  rank count unknown (meta.devices_note), and a reference is chosen by both: the verdict is NO
  VERDICT naming that cause and the options that supply them (--gpu NAME --ranks N), never a
  NO REFERENCE that blames the references (unknown(), advice()).
- One node assumed for an output without hosts (meta.nodes_note, --ranks without --nodes) and
  a `-g N` run (nGpus N: one process, one thread driving N GPUs, which launches every
  collective on its GPUs in turn, so its small-size latency is not collbench's one process per
  GPU) are said below the verdict, with the file's own figures (notes()).
A note is text from a results.json that may come from anywhere: shown escaped (cbcsv.shown) and
cut at NOTE_MAX characters.
"""
import cbcsv

NOTE_MAX = 400


def _note(meta, key):
    v = meta.get(key)
    return cbcsv.shown(v)[:NOTE_MAX] if isinstance(v, str) and v else ""


def unknown(meta):
    """Why an import's GPU model or rank count is unknown (meta.devices_note), or ""."""
    return _note(meta, "devices_note")


def advice():
    """The lines below a NO VERDICT for unknown devices: what chooses a reference, how to say it."""
    return ["A reference is chosen by GPU model and rank count (and node count); import the file again with them, "
            "e.g. `plots/plot --nccl-tests FILE --gpu 'NVIDIA H200' --ranks 2`.", ""]


def latency_note(meta):
    """The -g note of an import's metadata, or ""."""
    gpus, threads = meta.get("gpus_per_process"), meta.get("threads_per_process")
    if isinstance(gpus, bool) or not isinstance(gpus, int) or not 2 <= gpus <= 1024:
        return ""
    threads = threads if isinstance(threads, int) and not isinstance(threads, bool) and 0 < threads <= 1024 else None
    return (f"**nccl-tests ran with nGpus {gpus}** (`-g {gpus}`: one process{f', {threads} thread(s)' if threads else ''}"
            f" driving {gpus} GPUs): it launches each collective on its GPUs one after another, so its latency at "
            f"small sizes includes {gpus} launches from one thread, where collbench runs one process per GPU; to "
            f"compare latency like for like run nccl-tests with `mpirun -np {gpus} ... -g 1`. Bandwidth at large "
            "sizes is not affected.")


def notes(meta):
    """The paragraphs said below an import's verdict (each followed by an empty line)."""
    out = []
    for n in (_note(meta, "nodes_note"), latency_note(meta)):
        if n:
            out += [n, ""]
    return out
