"""The hardware limits of a run, read in one place, and the verdict's section against them
("is my number normal?" without a reference, issue 33; each row against the limit that bounds
it, issue 44).

The record (read()): results.json's meta "limits", which collbench writes itself
(launcher/hw_limits.c): every rank reads its own GPU's NVLink (active links x the per-link rate)
and PCIe link through NVML, rank 0 its node's NICs from sysfs, and the slowest GPU is kept. It
is measured there because only the ranks run on every node and GPU of a job. Folders written
before that record (the committed references up to late 2026-11) carry what collbench-run then
measured beside the CSV instead: limits.json (the same shape, nvidia-smi and sysfs on the
launching host), else link_gbs (nvidia-smi nvlink -s, GPU 0). read() takes those only when
results.json has no "limits": one source per run, never a merge of two.

The limit of a row (bound()):
  ranks = 1            none: busbw is 0 by definition (nothing crosses a link)
  virtual nodes        none: nodes named on one host (collbench-run --vnodes) are joined by
                       NCCL's socket transport, which no NIC line rate bounds
  nodes > 1            the slowest NIC's line rate; a NIC whose rate was not read: unknown
  one node             NVLink per direction per GPU; with no active NVLink, PCIe per direction
                       (GT/s x lanes x encoding)
Which rows a limit judges (Hardware):
  collectives  busbw at each algorithm's largest measured size as a share of the limit. Only an
               algorithm measured at the run's largest size is flagged when under FAR_BELOW: one
               the run stopped offering earlier (oneshot_ll above 4 MiB: the run's own
               "not supported" rows say where) is latency-bound by design there, not slow.
  moe          remote GB/s of the round trip at the most tokens as a share of copy_ce (the same
               run's at those tokens, else the machine's copy-engine figure); never busbw,
               which counts logical bytes and exceeds the link.
  ringattn     none: it is judged by TFLOP/s, overlap and r/single (plots/judge.py).
The one-node figure is cross-checked with the machine's copy-engine rate (plots/ce_rate.py: one
figure per machine, from moe copy_ce). A copy cannot outrun its link, so a rate above ABOVE x
the figure says the figure is wrong or low; with no figure the rate is information, never the
limit. A run whose ranks share a GPU claims neither shares nor a link measurement."""
import os

import cbcsv
import cbmeta
import groups as G
import hwfigures

FAR_BELOW = 0.5  # a row under half of its limit is flagged
ABOVE = 1.05  # a row over its limit: the limit recorded is the wrong one (flagged too)
PCIE_GTS = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0, 6: 64.0}


def pcie_gbs(gen, width):
    """PCIe bandwidth per direction in GB/s: GT/s x lanes x line encoding / 8 bits."""
    enc = 0.8 if gen <= 2 else 128 / 130 if gen <= 5 else 242 / 256
    return PCIE_GTS[gen] * width * enc / 8


def _legacy_file(run_dir):
    """limits.json of a folder from before meta.limits, or None."""
    return hwfigures.read_limits(os.path.join(run_dir, "limits.json"))  # plots/infile.py's reader rule


def read(run_dir, meta):
    """The run's limits: {"nvlink_gbs" (None unknown, 0 none active), "nvlink_from", "pcie",
    "nics", "source"}; "source" None when nothing was recorded."""
    if "limits" in meta:
        lim = dict(hwfigures.limits_object(meta.get("limits") or {}, os.path.join(run_dir, "results.json")))
        links = lim.get("nvlink_links")
        per = f": {links} links × {lim['nvlink_gbs'] / links:.1f} GB/s" if lim.get("nvlink_gbs") and \
            isinstance(links, int) and links > 0 else ""
        lim.update(source="results.json meta.limits", nvlink_from="NVML" + per)
        return lim
    lim = _legacy_file(run_dir)
    if lim is not None:
        return dict(lim, source="limits.json", nvlink_from="nvidia-smi nvlink -s: limits.json")
    link = cbcsv.read_link(run_dir)
    if link:
        return {"nvlink_gbs": link, "pcie": None, "nics": [], "source": "link_gbs",
                "nvlink_from": "nvidia-smi nvlink -s: link_gbs"}
    return {"nvlink_gbs": None, "pcie": None, "nics": [], "source": None, "nvlink_from": ""}


def virtual_one_host(meta):
    """True for virtual nodes on one host (collbench-run --vnodes): no NIC between them."""
    hosts = meta.get("hosts") if isinstance(meta.get("hosts"), list) else []
    return meta.get("virtual_cluster") is True and len(set(map(str, hosts))) <= 1


def one_node(lim):
    """(GB/s per direction, name, source) of a one-node run's limit: NVLink, else PCIe; None
    when neither is known."""
    if lim.get("nvlink_gbs"):
        return float(lim["nvlink_gbs"]), "NVLink", lim.get("nvlink_from") or "recorded"
    pcie = lim.get("pcie") or {}
    if pcie.get("gen") in PCIE_GTS and pcie.get("width"):
        name = f"PCIe Gen{pcie['gen']} x{pcie['width']}"
        return pcie_gbs(pcie["gen"], pcie["width"]), name, "the link as it ran at start"
    return None


def bound(lim, ranks, nodes, virtual=False):
    """(limit GB/s or None, short name, the limit in words) for a run of `ranks` on `nodes`
    (ranks 0: not recorded, as in an nccl-tests output cut without its device lines)."""
    if ranks == 0:
        return None, "", "limit unknown: the run's rank count is not recorded"
    if ranks <= 1:
        return None, "", "one rank: busbw is 0 by definition (nothing crosses a link; collectives need 2 or more GPUs)"
    if nodes > 1 and virtual:
        return None, "", ("limit unknown: virtual nodes on one host, joined by NCCL's socket transport, which no NIC "
                          "line rate bounds")
    if nodes > 1:
        nics = lim.get("nics") or []
        if not nics:
            return None, "", "limit unknown: no NIC rate recorded for this multi-node run"
        unread = [n.get("name", "?") for n in nics if not n.get("gbs")]
        if unread:
            return None, "", f"limit unknown: the rate of NIC {', '.join(unread)} could not be read"
        slow = min(nics, key=lambda n: n["gbs"])
        return float(slow["gbs"]), "the NIC", f"the NIC's {slow['gbs']:.0f} GB/s ({slow.get('name', '?')} line rate)"
    link = one_node(lim)
    if link:
        return link[0], link[1], f"{link[1]}'s {link[0]:.0f} GB/s per direction"
    return None, "", "limit unknown: neither NVLink nor PCIe figures were recorded"


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


def can_measure_link(side, shared):
    """A run whose copy_ce rows measure a link: one node, 2 or more ranks, each on its own GPU."""
    ranks, nodes = shape(side.run, side.meta)
    return ranks >= 2 and nodes == 1 and not (shared and shared(side))


def classic_of(family):
    return family not in ("moe", "ringattn")


def offered_tops(rows, skipped):
    """{variant: (the algorithm's largest measured bytes, the run's largest there, capped)} per
    (algo, dtype, op, inplace, mode); capped: the run skipped it as "not supported" above."""
    var = lambda r: (r["dtype"], r["op"], r["inplace"], r["mode"])
    run_top, top = {}, {}
    for r in rows:
        run_top[var(r)] = max(run_top.get(var(r), 0), r["bytes"])
        k = (r["algo"],) + var(r)
        top[k] = max(top.get(k, 0), r["bytes"])
    out = {}
    for k, b in top.items():
        cap = any(s["algo"] == k[0] and var(s) == k[1:] and (s["bytes"] or 0) > b and
                  (s["note"] or "").startswith("not supported") for s in skipped)
        out[k] = (b, run_top[k[1:]], cap)
    return out


class Hardware:
    """A loaded run (verdict.py's Side: .run, .meta, .limits) against its hardware: the limit
    that bounds its rows, the machine's copy-engine figure (ce: ce_rate.figure(), None) and the
    shares; why: ranks share a GPU ("" when not)."""

    def __init__(self, side, why, ce):
        self.side, self.why = side, why
        self.ranks, self.nodes = shape(side.run, side.meta)
        self.lim = side.limits
        self.limit, self.name, self.what = bound(self.lim, self.ranks, self.nodes, virtual_one_host(side.meta))
        self.ce = ce if not why and self.ranks > 1 and self.nodes == 1 else None
        self.good = [r for r in side.run.measured if r["wrong"] == 0]

    def share(self, row):
        """(share, of what) of a collective row's busbw, or None (no limit, ranks sharing a GPU)."""
        if self.limit is None or self.why or not classic_of(row["family"]) or row["busbw"] is None:
            return None
        return row["busbw"] / self.limit, self.name

    def moe_share(self, row, yard):
        """(share, of what) of an moe round trip's remote GB/s: of yard (the same run's copy_ce
        row at its tokens) or of the machine's copy-engine figure."""
        if not row.get("remote_gbs") or self.why:
            return None
        if yard and yard.get("remote_gbs"):
            return row["remote_gbs"] / yard["remote_gbs"], "copy_ce (same run)"
        if self.ce:
            return row["remote_gbs"] / self.ce["gbs"], "the copy-engine rate"
        return None

    def lead(self, judged):
        """The limit line: the figure, beside the copy-engine rate when there is one."""
        ce = self.ce
        where = f" in `{ce['where']}`" if ce and ce["where"] else ""
        rate = f"copy engines {ce['gbs']:.0f} GB/s per direction" if ce else ""
        whence = f" ({ce['what']}{where})" if ce else ""
        if self.limit is None:
            return f"No share of a limit: {self.what}." + (f" C{rate[1:]}{whence}: information only (a lower bound "
                                                            "on the link), not taken as its limit." if ce else "")
        if self.nodes > 1:
            return f"Limit: {self.what}."
        _, name, src = one_node(self.lim)
        head = f"Limit: {name} {self.limit:.0f} GB/s per direction ({src})"
        if not ce:
            return (f"{head}; no copy-engine rate measured on this machine (moe `--algo copy_ce` measures it, "
                    f"then every family's verdict quotes it).")
        text = f"{head}; {rate} = {100 * ce['gbs'] / self.limit:.0f} % of it{whence}."
        if ce["gbs"] > ABOVE * self.limit:
            nvlink = name == "NVLink"
            who = f"{src.split()[0].rstrip(':')}'s figure" if nvlink else "the PCIe figure"
            wrong = "wrong or low" if nvlink else "not what bounds this run (an NVLink the record missed?)"
            text += f" **{who} is {wrong}**: a copy cannot outrun its link."
            text += f" The shares below still use {self.limit:.0f} GB/s: read them as too high." if judged else ""
        return text

    def classic_rows(self):
        """[(row, share, flags)]: each collective algorithm's largest measured size per variant."""
        rows = [r for r in self.good if classic_of(r["family"]) and r["busbw"] is not None]
        skipped = [r for r in self.side.run.rows if r["skipped"] and classic_of(r["family"])]
        tops = offered_tops(rows, skipped)
        best = {}
        for r in rows:
            k = (r["algo"], r["dtype"], r["op"], r["inplace"], r["mode"])
            if r["bytes"] == tops[k][0]:
                best[k] = r
        out = []
        for k, r in sorted(best.items(), key=lambda kv: (kv[0][0] != G.HEADLINE, kv[0])):
            share = r["busbw"] / self.limit
            top, run_top, cap = tops[k]
            if top < run_top:
                flag = f"{'offered' if cap else 'measured'} up to {fmt_size(top)}: not judged against the link"
            elif share < FAR_BELOW:
                flag = "**far below**"
            elif share > ABOVE:
                flag = "**above the limit**: the recorded figure is not what bounds this run"
            else:
                flag = ""
            out.append((r, share, flag))
        return out

    def lines(self):
        """Markdown lines of the section (none when the run has nothing to set against it)."""
        if not self.good:
            return []
        family = self.good[0]["family"]
        head = ["### Against the hardware", ""]
        if self.why and self.ranks > 1:
            return head + [f"No share of a limit and no link measured: ranks share a GPU ({self.why}).", ""]
        if self.ranks <= 1:
            return head + [f"No share of a limit: {self.what}.", ""] if classic_of(family) else []
        if family == "ringattn":
            lead = self.lead(False) if self.nodes == 1 else ""
            return head + ([lead, ""] if lead else []) + [
                "Ring attention is judged by TFLOP/s, overlap and r/single (above), not against a link.", ""]
        if family == "moe":
            return head + [self.lead(False), ""] + self.moe_lines()
        if self.limit is None:
            return head + [self.lead(False), ""]
        rows = self.classic_rows()
        out = head + [self.lead(bool(rows)), ""]
        if not rows:
            return out
        name = self.name if self.name != "the NIC" else "NIC"
        table = [f"| algo | dtype | mode | at | busbw GB/s | share of {name} | |", "|---|---|---|---|---|---|---|"]
        table += [f"| {r['algo']} | {r['dtype']} | {r['mode']} | {fmt_size(r['bytes'])} | {r['busbw']:.0f} | "
                  f"{100 * s:.0f} % | {flag} |" for r, s, flag in rows]
        far = sorted({r["algo"] for r, _, flag in rows if flag == "**far below**"})
        above = sorted({r["algo"] for r, _, flag in rows if flag.startswith("**above")})
        out += fold(f"{len(rows)} algorithm variants at their largest offered size against {self.what}", table)
        if far:
            out += [f"Below {100 * FAR_BELOW:.0f} % of the limit at the run's largest size ({', '.join(far)}): the size "
                    f"may still be latency-bound (run larger -e), the GPUs may be throttled or shared (nvidia-smi -q -d "
                    f"PERFORMANCE), peer memory may be off (see the header), or across nodes the traffic may leave "
                    f"through a slower NIC than the one recorded.", ""]
        if above:
            out += [f"Above the limit ({', '.join(above)}): the recorded figure is not what bounds this run.", ""]
        return out

    def moe_lines(self):
        rows = [r for r in self.good if r["family"] == "moe" and r["phase"] == "roundtrip" and r.get("remote_gbs")]
        if not rows:
            return []
        var = lambda r: (r["dtype"], r["mode"], r["model"], r["routing"])
        top = {}
        for r in rows:
            top[var(r)] = max(top.get(var(r), 0), r["tokens"])
        yard = {var(r): r for r in rows if r["algo"] == "copy_ce" and r["tokens"] == top[var(r)]}
        table = ["| algo | dtype | mode | tokens | remote GB/s | share | of |", "|---|---|---|---|---|---|---|"]
        for r in sorted((r for r in rows if r["tokens"] == top[var(r)]), key=lambda r: (r["algo"], var(r))):
            if r["algo"] == "copy_ce":
                s = (r["remote_gbs"] / self.limit, self.name) if self.limit else None
            else:
                s = self.moe_share(r, yard.get(var(r)))
            table.append(f"| {r['algo']} | {r['dtype']} | {r['mode']} | {r['tokens']} | {r['remote_gbs']:.0f} | "
                         + (f"{100 * s[0]:.0f} % | {s[1]} |" if s else "– | |"))
        return fold("MoE round trips at the most tokens: remote GB/s as a share of copy_ce (the copy engines "
                    "alone; copy_ce itself as a share of the link)", table)


CHART_MIN_SHARE = 0.1  # a limit the data stay under 10 % of is named in the title, not drawn


def of_run(run):
    """(GB/s, name) of the limit that bounds a loaded run's collective rows (cbcsv.Run), for the
    busbw charts and the summary ("NVLink", "PCIe Gen5 x16", "NIC"), or None: one rank, ranks
    sharing a GPU, virtual nodes, unknown."""
    meta = cbmeta.load(run.run_dir)
    env = meta.get("env") if isinstance(meta.get("env"), dict) else {}
    if meta.get("gpu_shared") is True or env.get("CB_SHARE_GPUS") == "1":
        return None
    ranks, nodes = shape(run, meta)
    gbs, name, what = bound(read(run.run_dir, meta), ranks, nodes, virtual_one_host(meta))
    return (gbs, "NIC" if name == "the NIC" else name) if gbs else None


def chart_line(limit, peak):
    """(lines to draw [(GB/s, key title)], a note for the title or "") for a busbw chart with
    limit (GB/s, name) or None, whose
    data peak at `peak` GB/s: the limit is drawn only where it bounds the data, i.e. where they
    reach CHART_MIN_SHARE of it; above that it would press the data flat on the axis."""
    if not limit:
        return [], ""
    gbs, name = limit
    label = f"{name} limit {gbs:g} GB/s"
    if peak >= CHART_MIN_SHARE * gbs:
        return [(gbs, label)], ""
    return [], f"{label}: off the chart (the data reach {100 * peak / gbs:.1f} % of it)"


def fold(summary, table):
    """A markdown table folded under a one-line summary (GitHub renders <details>)."""
    return [f"<details><summary>{summary}</summary>", ""] + table + ["", "</details>", ""]
