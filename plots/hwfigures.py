"""The ranges of the hardware figures a run records, one rule for every place they are read:
RUN/link_gbs and `--link GBS` (plots/cbcsv.py), RUN/limits.json (plots/limits.py) and
results.json's meta.limits (plots/cbmeta.py).

A figure outside its range is refused (infile.InputError), never used: 1e-300 GB/s made the
verdict print a 300-digit percentage, and PCIe "gen 4.0, width 0.001" passed as a link.
  a link's rate (NVLink, a NIC, link_gbs)  LINK_GBS, GB/s per direction: from a 100 Mb/s
                                           Ethernet port to 5 x the fastest NVLink of 2026
  NVLink links per GPU                     whole, 0 to NVLINK_LINKS_MAX
  PCIe generation and width                whole, PCIE_GENS and 1 to PCIE_WIDTH_MAX lanes
In limits objects 0 or null for a rate means "none" or "not read" (as collbench writes them).
"""
import infile

LINK_GBS = (0.01, 10000.0)
NVLINK_LINKS_MAX = 64
PCIE_GENS = (1, 6)
PCIE_WIDTH_MAX = 32
NIC_NAME_MAX = 64


def link_gbs(text, where):
    """A link rate written as text (link_gbs, --link): a number within LINK_GBS; InputError otherwise."""
    lo, hi = LINK_GBS
    v = infile.decimal(text)
    if v is None or not lo <= v <= hi:
        raise infile.InputError(f"{infile.shown(where)}: expected one positive number (a link's GB/s per direction, "
                                f"{lo:g} to {hi:g}), got {infile.excerpt(text)}")
    return v


def _rate_ok(v):
    return v is None or v == 0 or infile.json_number(v, *LINK_GBS)


def _whole_ok(v, lo, hi):
    return v is None or infile.json_number(v, lo, hi, integer=True)


def _bad(where, key, v, want):
    return infile.InputError(f"{where}: a limits figure is not a number >= 0 or null in its range: {key} is "
                             f"{infile.json_excerpt(v)} ({want})")


def limits_object(lim, where):
    """lim (a parsed limits object: limits.json or meta.limits) checked against the ranges
    above; returns it. InputError names the first figure out of range."""
    where = infile.shown(where)
    rate = f"a link rate: {LINK_GBS[0]:g} to {LINK_GBS[1]:g} GB/s, 0 or null"
    if not isinstance(lim, dict):
        raise infile.InputError(f"{where}: limits is not a JSON object")
    if not _rate_ok(lim.get("nvlink_gbs")):
        raise _bad(where, "nvlink_gbs", lim.get("nvlink_gbs"), rate)
    if not _whole_ok(lim.get("nvlink_links"), 0, NVLINK_LINKS_MAX):
        raise _bad(where, "nvlink_links", lim.get("nvlink_links"), f"a whole number from 0 to {NVLINK_LINKS_MAX}")
    pcie = lim.get("pcie")
    if pcie is not None and not isinstance(pcie, dict):
        raise infile.InputError(f"{where}: limits.pcie must be an object or null")
    for key, lo, hi in (("gen", *PCIE_GENS), ("max_gen", *PCIE_GENS), ("width", 1, PCIE_WIDTH_MAX),
                        ("max_width", 1, PCIE_WIDTH_MAX)):
        if pcie and not _whole_ok(pcie.get(key), lo, hi):
            raise _bad(where, f"pcie.{key}", pcie.get(key), f"a whole number from {lo} to {hi}")
    nics = lim.get("nics")
    if nics is not None and (not isinstance(nics, list) or not all(isinstance(n, dict) for n in nics)):
        raise infile.InputError(f"{where}: limits.nics must be a list of objects or null")
    for i, nic in enumerate(nics or []):
        if not infile.one_line(nic.get("name", "?"), NIC_NAME_MAX):
            raise infile.InputError(f"{where}: a NIC name is not a string of one line and at most {NIC_NAME_MAX} "
                                    f"characters: limits.nics[{i}].name is {infile.json_excerpt(nic.get('name'))}")
        if not _rate_ok(nic.get("gbs")):
            raise _bad(where, f"nics[{i}].gbs", nic.get("gbs"), rate)
    return lim


def read_limits(path):
    """RUN/limits.json checked (limits_object), or None when the run has none."""
    lim = infile.read_json(path, 1 << 20, absent_ok=True)
    return None if lim is None else limits_object(lim, path)
