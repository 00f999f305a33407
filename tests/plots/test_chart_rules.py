#!/usr/bin/env python3
"""The chart rules of plots/prepare.py, one case per rule, read back from the SVG the real gnuplot
drew for copies of the committed references (each plot of an SVG is a group holding its key
text, then its line: stroke colour, dash pattern and width, point symbol):

  limit      the busbw limit line is the limit that bounds the run's rows, drawn only where the
             data reach it: NVLink's 478 GB/s on the 2 x H200 all-reduce; none on the 2-node
             (virtual nodes: NCCL's sockets, ~2 GB/s) chart; a 50 GB/s NIC over ~2 GB/s data is
             named in the title, not drawn
  moe        the phases chart: colour = algorithm, dash = phase, no two lines alike, layout left
             out (12 lines before, 8 now), copy_ce drawn first as a thin grey reference without
             points, the model named in the title
  onerank    one-rank ring attention: single and single_cudnn only, no overlap chart
  headline   `auto` drawn last (on top of the others) and wider, on latency, busbw and speedup
  svgtitle   every SVG's title is its chart's, never "Gnuplot"

usage: test_chart_rules.py CASE WORKDIR"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
from reference_copies import ROOT, copy_run, expect, main  # noqa: E402
PLOT = os.path.join(ROOT, "plots", "plot")


def plot(d):
    p = subprocess.run([PLOT, d], capture_output=True, text=True, timeout=280)
    expect(p.returncode == 0 and "Traceback" not in p.stderr, f"plots/plot {d}: exit {p.returncode}\n{p.stderr}")


def svg(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def plots_of(text):
    """[{"key", "stroke", "dash", "width", "point"}] of an SVG's plots, in drawing order."""
    out = []
    for body in re.split(r'<g id="[A-Za-z0-9_]+_plot_\d+" >', text)[1:]:
        key = re.search(r"<text>([^<]*)</text>", body)
        path = re.search(r"stroke-width=\"([0-9.]+)\"[^>]*>\s*<path stroke='([^']+)'(?: stroke-dasharray='([^']+)')?", body)
        point = re.search(r"#gpPt(\d+)' transform='[^']*scale\(([0-9.]+)\)", body)
        out.append({"key": key.group(1) if key else "", "width": float(path.group(1)) if path else None,
                    "stroke": re.sub(r"\s", "", path.group(2)) if path else None,
                    "dash": path.group(3) if path else None,
                    "point": (point.group(1), float(point.group(2))) if point else None})
    return out


def title_of(text):
    m = re.search(r"<title>([^<]*)</title>", text)
    return m.group(1) if m else ""


def case_limit(work):
    nv = copy_run("h200x2/allreduce", work, "nvlink", keep=lambda r: r["dtype"] == "float" and r["mode"] == "eager")
    plot(nv)
    keys = [p["key"] for p in plots_of(svg(os.path.join(nv, "allreduce-float-busbw.svg")))]
    expect(any(k.endswith("limit 478 GB/s") for k in keys), f"one node: NVLink's line missing: {keys}")
    two = copy_run("h200x2-2nodes/allreduce", work, "two-nodes")
    expect(os.path.exists(os.path.join(two, "link_gbs")), "the 2-node reference lost its link_gbs (the case needs it)")
    plot(two)
    text = svg(os.path.join(two, "allreduce-bfloat16-busbw.svg"))
    expect(not any("limit" in p["key"] for p in plots_of(text)), "2 nodes: a limit line over socket data")
    expect("478 GB/s" not in text, "2 nodes: NVLink's 478 GB/s on the chart")
    # a NIC the data stay far under: named in the title, not drawn (it would press them flat)
    nic = copy_run("h200x2-2nodes/allreduce", work, "nic")
    os.remove(os.path.join(nic, "link_gbs"))
    with open(os.path.join(nic, "results.json")) as f:
        doc = json.load(f)
    doc["meta"].update(virtual_cluster=False, hosts=["a", "b"],
                       limits={"nvlink_gbs": 478, "pcie": None, "nics": [{"name": "mlx5_0:1", "gbs": 50.0}]})
    with open(os.path.join(nic, "results.json"), "w") as f:
        json.dump(doc, f)
    plot(nic)
    text = svg(os.path.join(nic, "allreduce-bfloat16-busbw.svg"))
    expect(not any("limit" in p["key"] for p in plots_of(text)), "NIC far above the data: drawn anyway")
    expect("NIC limit 50 GB/s: off the chart" in text, "NIC far above the data: not named in the title")


def case_moe(work):
    d = copy_run("h200x2/moe-deepseek-v3", work, "moe", keep=lambda r: r["dtype"] == "bfloat16" and r["mode"] == "eager")
    plot(d)
    text = svg(os.path.join(d, "moe-bfloat16-phases.svg"))
    ps = plots_of(text)
    keys = [p["key"] for p in ps]
    expect(len(ps) <= 8, f"moe: {len(ps)} lines: {keys}")
    expect(not any("layout" in k for k in keys), f"moe: layout drawn: {keys}")
    looks = [(p["stroke"], p["dash"]) for p in ps]
    expect(len(set(looks)) == len(looks), f"moe: lines alike (colour, dash): {list(zip(keys, looks))}")
    first = ps[0]
    expect(first["key"].startswith("copy_ce round trip (reference") and first["stroke"] == "rgb(154,154,154)" and
           first["point"][1] == 0 and first["width"] <= 1.0, f"moe: copy_ce not drawn as the grey reference: {first}")
    expect(not any(k.startswith("copy_ce") for k in keys[1:]), f"moe: copy_ce drawn as a competitor: {keys}")
    expect("deepseek_v3" in title_of(text) and "moe · deepseek-v3 · bfloat16" in text and "top-8 of 256 experts" in text,
           "moe: the model is not named")


def case_onerank(work):
    d = copy_run("h200x1/ringattn", work, "one-rank")
    plot(d)
    charts = sorted(f for f in os.listdir(d) if f.endswith(".svg"))
    expect(not any("overlap" in f for f in charts), f"one rank: an overlap chart: {charts}")
    for f in charts:
        if f.endswith("-tflops.svg"):
            keys = [p["key"] for p in plots_of(svg(os.path.join(d, f)))]
            expect(keys == ["single", "single_cudnn"], f"one rank, {f}: lines {keys}")
    with open(os.path.join(d, "summary.md")) as f:
        summary = f.read()
    expect("| ring |" not in summary and "| single_cudnn |" in summary, "one rank: the summary's table lists ring")


def case_headline(work):
    d = copy_run("h200x2/allreduce", work, "headline", keep=lambda r: r["dtype"] == "float" and r["mode"] == "graph")
    plot(d)
    for chart in ("latency", "busbw", "speedup"):
        ps = [p for p in plots_of(svg(os.path.join(d, f"allreduce-float-graph-{chart}.svg"))) if p["stroke"]]
        data = [p for p in ps if "limit" not in p["key"] and "= 1.0" not in p["key"]]
        expect(data[-1]["key"] == "auto", f"{chart}: auto is not drawn last: {[p['key'] for p in data]}")
        expect(data[-1]["width"] > max(p["width"] for p in data[:-1]), f"{chart}: auto no wider than the rest")


def case_svgtitle(work):
    d = copy_run("h200x2/alltoall", work, "titles", keep=lambda r: r["dtype"] == "float")
    plot(d)
    for f in sorted(os.listdir(d)):
        if f.endswith(".svg"):
            t = title_of(svg(os.path.join(d, f)))
            expect(t != "Gnuplot" and t.startswith("alltoall_float_") and t.endswith(
                {"latency": "latency", "busbw": "bus_bandwidth", "speedup": "speedup_over_best_NCCL_form"}[
                    f.rsplit("-", 1)[1][:-4]]), f"{f}: SVG title {t!r}")


CASES = {"limit": case_limit, "moe": case_moe, "onerank": case_onerank, "headline": case_headline,
         "svgtitle": case_svgtitle}


if __name__ == "__main__":
    sys.exit(main(CASES, __doc__))
