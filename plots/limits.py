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
and ring attention define their own bytes (docs/) and get no shares.

The one-node figure is cross-checked where copy-engine rows measured the link (plots/ce_rate.py:
moe copy_ce, ringattn ring, allreduce twoshot_ce), the run's own or else its reference's: the
measured per-direction rate beside the figure and as a share of it. A copy cannot outrun its
link, so a rate above ABOVE x the figure says the figure is wrong or low (the shares still use
it and say so); with no figure the rate is stated as information, never taken as the limit.
A run whose ranks share a GPU claims neither shares nor a link measurement."""
import os

import cbcsv
import ce_rate
import hwfigures

FAR_BELOW = 0.5  # a row under half of its limit is flagged
ABOVE = 1.05  # a row over its limit: the limit recorded is the wrong one (flagged too)
CLASSIC = ("allreduce", "alltoall", "allgather", "reducescatter", "sendrecv")
PCIE_GTS = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0, 6: 64.0}


def pcie_gbs(gen, width):
    """PCIe bandwidth per direction in GB/s: GT/s x lanes x line encoding / 8 bits."""
    enc = 0.8 if gen <= 2 else 128 / 130 if gen <= 5 else 242 / 256
    return PCIE_GTS[gen] * width * enc / 8


def _number(v):
    return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v < 1e9)


def _check(lim, where):
    """lim as a limits object must be: numbers (or null) where the verdict computes; else exit 2."""
    if not isinstance(lim, dict):
        raise cbcsv.InputError(f"{where}: limits is not a JSON object")
    pcie, nics = lim.get("pcie") or {}, lim.get("nics") or []
    if not isinstance(pcie, dict) or not isinstance(nics, list) or not all(isinstance(n, dict) for n in nics):
        raise cbcsv.InputError(f"{where}: limits.pcie must be an object and limits.nics a list of objects")
    values = [lim.get("nvlink_gbs"), lim.get("nvlink_links"), pcie.get("gen"), pcie.get("width")]
    if not all(_number(v) for v in values + [n.get("gbs") for n in nics]):
        raise cbcsv.InputError(f"{where}: a limits figure is not a number >= 0 or null")
    return lim


def load_limits(run_dir, meta, link):
    """The limits object of a run ({} when nothing was recorded), with "nvlink_from": whose
    nvlink_gbs it is (NVML's active links x per-link rate, or nvidia-smi's sum in link_gbs);
    link is the run's link_gbs figure (cbcsv.read_link: None when absent)."""
    lim = dict(_check(meta.get("limits") or {}, os.path.join(run_dir, "results.json")))
    if lim.get("nvlink_gbs"):
        links = lim.get("nvlink_links")
        known = isinstance(links, int) and links > 0
        lim["nvlink_from"] = "NVML" + (f": {links} links × {lim['nvlink_gbs'] / links:.1f} GB/s" if known else "")
    path = os.path.join(run_dir, "limits.json")
    side = hwfigures.read_limits(path)  # plots/infile.py's reader rule, hwfigures' ranges
    if side is not None:  # collbench-run's nvidia-smi figures fill what collbench's NVML left unknown
        for k, v in _check(side, path).items():
            if lim.get(k) in (None, [], {}) and v not in (None, [], {}):
                lim[k] = v
                if k == "nvlink_gbs":
                    lim["nvlink_from"] = "nvidia-smi nvlink -s: limits.json"
    if not lim.get("nvlink_gbs") and link:
        lim["nvlink_gbs"], lim["nvlink_from"] = link, "nvidia-smi nvlink -s: link_gbs"
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
    link = one_node(lim)
    if link:
        return link[0], f"{link[1]}'s {link[0]:.0f} GB/s per direction"
    return None, "limit unknown: neither NVLink nor PCIe figures were recorded"


def one_node(lim):
    """(GB/s per direction, name, source) of a one-node run's limit: NVLink, else PCIe; None
    when neither is known."""
    if lim.get("nvlink_gbs"):
        return float(lim["nvlink_gbs"]), "NVLink", lim.get("nvlink_from", "recorded")
    pcie = lim.get("pcie") or {}
    if pcie.get("gen") in PCIE_GTS and pcie.get("width"):
        name = f"PCIe Gen{pcie['gen']} x{pcie['width']}"
        return pcie_gbs(pcie["gen"], pcie["width"]), name, "the link as it ran at start"
    return None


def fmt_size(b):
    for unit, k in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if b >= 1 << k and b % (1 << k) == 0:
            return f"{b >> k} {unit}"
    return f"{b} B"


def shape(run, meta):
    """(ranks, nodes) of a run: its meta, else its first row."""
    first = run.rows[0]
    try:
        return int(meta.get("ranks") or first["ranks"] or 0), int(meta.get("nodes") or first["nodes"] or 1)
    except (TypeError, ValueError):
        raise cbcsv.InputError(f"{run.csv_path}: its rank or node count is not a whole number")


def link_rate(side, shared):
    """The copy-engine rate of a loaded run (section's load) that can measure a link (one node,
    2 or more ranks, each on a GPU of its own: shared(side) == ""), else None."""
    ranks, nodes = shape(side.run, side.meta)
    if ranks < 2 or nodes != 1 or (shared and shared(side)):
        return None
    return ce_rate.measure(side.run, ranks)


def cross_check(lim, limit, ce, ref, judged):
    """The lead line: the figure (limit GB/s, None unknown) beside the copy-engine rate ce (None:
    not measured), ce measured in the reference ref when ref is not None."""
    where = f" in the reference `{ref}`" if ref else ""
    rate = f"copy-engine peer copy measured{where} {ce['gbs']:.0f} GB/s per direction" if ce else ""
    detail = f"({ce['what']})" if ce else ""
    if limit is None and not ce:
        return ""
    if limit is None:
        return f" C{rate[1:]} {detail}: information only (a lower bound on the link), not taken as its limit."
    _, name, src = one_node(lim)
    head = f"Limit: {name} {limit:.0f} GB/s per direction ({src})"
    if not ce:
        return (f"{head}; not cross-checked: no copy-engine rows in this run or its reference (allreduce "
                f"twoshot_ce, moe copy_ce and ringattn ring measure the link).")
    text = f"{head}; {rate} = {100 * ce['gbs'] / limit:.0f} % of it {detail}."
    if ce["gbs"] > ABOVE * limit:
        nvlink = name == "NVLink"
        who = f"{src.split()[0].rstrip(':')}'s figure" if nvlink else "the PCIe figure"
        wrong = "wrong or low" if nvlink else "not what bounds this run (an NVLink the record missed?)"
        text += (f" The reference's link carried more than this run's figure: this machine may have fewer active "
                 f"links (`nvidia-smi nvlink -s`), or {who} is {wrong}." if ref else
                 f" **{who} is {wrong}**: a copy cannot outrun its link.")
        text += f" The shares below still use {limit:.0f} GB/s: read them as too high." if judged else ""
    return text


def section(run_arg, load, shared=None, ref_dir=None):
    """Markdown lines: the figure's cross-check, then one line per algorithm (and dtype, mode) at
    its largest measured size. load(run_arg) gives a run as verdict.py's reader holds it (rows as
    .run, a cbcsv.Run; results.json meta as .meta; link_gbs as .link), so no folder is read again
    here; shared(side) why a loaded run's ranks share a GPU ("" when they do not; verdict.py's test);
    ref_dir the reference the verdict compared the run with (None: none), whose copy-engine rows
    stand in when the run has none."""
    side = load(run_arg)
    run, meta = side.run, side.meta
    good = [r for r in run.measured if r["wrong"] == 0]
    rows = [r for r in good if r["family"] in CLASSIC]
    if not good:
        return []
    ranks, nodes = shape(run, meta)
    lim = load_limits(run.run_dir, meta, side.link)
    limit, what = bound(lim, ranks, nodes)
    lines = ["### Against the hardware", ""]
    why = shared(side) if shared and ranks > 1 else ""
    if why:
        return lines + [f"No share of a limit and no link measured: ranks share a GPU ({why}).", ""] if rows else []
    ce, ref = link_rate(side, shared), None
    if ce is None and ref_dir and ranks > 1 and nodes == 1:
        ref_side = load(ref_dir)
        ce, ref = link_rate(ref_side, shared), os.path.normpath(ref_dir)
    if not rows and not ce:
        return []
    if limit is None:
        return lines + [f"No share of a limit: {what}.{cross_check(lim, None, ce, ref, rows)}", ""]
    if nodes == 1:
        lines += [cross_check(lim, limit, ce, ref, rows), ""]
    if not rows:
        return lines + ["No shares: MoE and ring attention rows count their own bytes (docs/results-format.md).", ""]
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
