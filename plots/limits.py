"""'Is my number normal?' against the hardware (issue 33): each algorithm's bus bandwidth at the
largest measured size as a share of the limit that bounds it, with or without a reference run.

The limit of a row, in order:
  ranks = 1          none: busbw is 0 by definition (nothing crosses a link)
  nodes > 1          the slowest NIC's line rate (meta limits.nics[].gbs; sysfs
                     /sys/class/infiniband/*/ports/*/rate or /sys/class/net/*/speed); a NIC
                     whose rate could not be read (gbs null) gives "limit unknown", never a guess
  one node, NVLink   NVLink per direction per GPU (meta limits.nvlink_gbs: active links x
                     per-link rate from NVML, else the run's link_gbs file from nvidia-smi)
  one node, no NVLink  PCIe per direction from limits.pcie {gen, width} (GT/s x lanes x encoding)
Sources: results.json meta "limits" (launcher/hw_limits.c), else RUN/limits.json (the same object,
written by collbench-run), else RUN/link_gbs. Rows below FAR_BELOW of their limit are flagged
with the usual causes. Only the classic collectives (nccl-tests bus bandwidth) are judged: MoE
and ring attention define their own bytes (docs/) and are left out."""
import json
import os

import cbcsv

FAR_BELOW = 0.5  # a row under half of its limit is flagged
ABOVE = 1.05  # a row over its limit: the limit recorded is the wrong one (flagged too)
CLASSIC = ("allreduce", "alltoall", "allgather", "reducescatter", "sendrecv")
PCIE_GTS = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0, 6: 64.0}


def pcie_gbs(gen, width):
    """PCIe bandwidth per direction in GB/s: GT/s x lanes x line encoding / 8 bits."""
    enc = 0.8 if gen <= 2 else 128 / 130 if gen <= 5 else 242 / 256
    return PCIE_GTS[gen] * width * enc / 8


def load_limits(run_dir, meta):
    """The limits object of a run ({} when nothing was recorded)."""
    lim = dict(meta.get("limits") or {})
    path = os.path.join(run_dir, "limits.json")
    if os.path.isfile(path):  # collbench-run's nvidia-smi figures fill what collbench's NVML left unknown
        try:
            with open(path, encoding="utf-8") as f:
                side = json.load(f)
        except (OSError, ValueError) as e:
            raise cbcsv.InputError(f"{path}: unreadable limits ({e})")
        if not isinstance(side, dict):
            raise cbcsv.InputError(f"{path}: not a JSON object")
        for k, v in side.items():
            if lim.get(k) in (None, [], {}) and v not in (None, [], {}):
                lim[k] = v
    if not lim.get("nvlink_gbs"):
        link = cbcsv.read_link(run_dir)
        if link:
            lim["nvlink_gbs"] = link
    return lim


def bound(lim, ranks, nodes):
    """(limit GB/s or None, what it is) for a run of `ranks` ranks on `nodes` nodes."""
    if ranks <= 1:
        return None, "one rank: busbw is 0 by definition (nothing crosses a link; collectives need 2 or more GPUs)"
    if nodes > 1:
        nics = lim.get("nics") or []
        if not nics:
            return None, "limit unknown: no NIC rate recorded for this multi-node run"
        unread = [n.get("name", "?") for n in nics if not n.get("gbs")]
        if unread:
            return None, f"limit unknown: the rate of NIC {', '.join(unread)} could not be read"
        slow = min(nics, key=lambda n: n["gbs"])
        return float(slow["gbs"]), f"the NIC's {slow['gbs']:.0f} GB/s ({slow.get('name', '?')} line rate)"
    if lim.get("nvlink_gbs"):
        return float(lim["nvlink_gbs"]), f"NVLink's {float(lim['nvlink_gbs']):.0f} GB/s per direction"
    pcie = lim.get("pcie") or {}
    if pcie.get("gen") in PCIE_GTS and pcie.get("width"):
        g = pcie_gbs(pcie["gen"], pcie["width"])
        return g, f"PCIe Gen{pcie['gen']} x{pcie['width']}'s {g:.0f} GB/s per direction"
    return None, "limit unknown: neither NVLink nor PCIe figures were recorded"


def fmt_size(b):
    for unit, k in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if b >= 1 << k and b % (1 << k) == 0:
            return f"{b >> k} {unit}"
    return f"{b} B"


def section(run_arg, load_meta):
    """Markdown lines: one per algorithm (and dtype, mode) at its largest measured size.
    load_meta(run_dir) gives the run's results.json meta (verdict.py's reader)."""
    run = cbcsv.load(run_arg, warn=False)
    meta = load_meta(run.run_dir)
    rows = [r for r in run.measured if r["wrong"] == 0 and r["family"] in CLASSIC]
    if not rows:
        return []
    ranks = int(meta.get("ranks") or rows[0]["ranks"] or 0)
    nodes = int(meta.get("nodes") or rows[0]["nodes"] or 1)
    limit, what = bound(load_limits(run.run_dir, meta), ranks, nodes)
    lines = ["### Against the hardware", ""]
    if limit is None:
        return lines + [f"No share of a limit: {what}.", ""]
    best = {}
    for r in rows:
        key = (r["algo"], r["dtype"], r["mode"])
        if key not in best or r["bytes"] > best[key]["bytes"]:
            best[key] = r
    far = []
    for (algo, dtype, mode), r in sorted(best.items()):
        share = r["busbw"] / limit
        flag = " — **far below**" if share < FAR_BELOW else ""
        above = " — **above the limit**: the recorded figure is not what bounds this run" if share > ABOVE else ""
        lines.append(f"- {algo} {dtype} {mode} {fmt_size(r['bytes'])}: {r['busbw']:.0f} GB/s = "
                     f"{100 * share:.0f} % of {what}{flag}{above}")
        if flag:
            far.append(algo)
    lines.append("")
    if far:
        lines += [f"Below {100 * FAR_BELOW:.0f} % of the limit ({', '.join(sorted(set(far)))}): the largest size may "
                  f"still be latency-bound (run larger -e), the GPUs may be throttled or shared (nvidia-smi -q -d "
                  f"PERFORMANCE), peer memory may be off (see the header), or across nodes the traffic may leave "
                  f"through a slower NIC than the one recorded.", ""]
    return lines
