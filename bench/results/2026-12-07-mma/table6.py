#!/usr/bin/env python3
"""table6.py: h100-run6's table for one precision, from bench's and
pytorch.py's CSV files (nothing typed): per layer convgen's best tuned
kernel, cuDNN's row and PyTorch's CUDA graph in the same precision, and
each baseline's time over convgen's (above 1: convgen is faster); the
geometric means last.  Usage: table6.py h100-run6 tf32"""
import csv, math, sys

run, p = sys.argv[1], sys.argv[2]
bench = list(csv.DictReader(open(f"{run}/bench_{p}.csv")))
torch = {r["layer"]: r for r in csv.DictReader(open(f"{run}/pytorch_{p}.csv")) if r["mode"] == "graph"}
rows, rc, rt = [], [], []
for layer in dict.fromkeys(r["layer"] for r in bench):
    by = {r["method"]: r for r in bench if r["layer"] == layer}
    cg, cu, pt = by.get("convgen"), by.get("cudnn"), torch.get(layer)
    if not cg or cg["ran"] != "1":
        continue
    t = float(cg["median_us"])
    tc = float(cu["median_us"]) if cu and cu["ran"] == "1" else None
    tp = float(pt["median_us"]) if pt and pt["median_us"] else None
    if tc: rc.append(tc / t)
    if tp: rt.append(tp / t)
    strat = cg["detail"].split(" ")[0]
    fmt = lambda x: f"{x:.1f}" if x else "-"
    ratio = lambda x: f"{x / t:.2f}" if x else "-"
    rows.append(f"| {layer.split(',')[0]} | {t:.1f} ({strat}) | {fmt(tc)} | {ratio(tc)} | {fmt(tp)} | {ratio(tp)} |")
print(f"| layer ({p}) | convgen us | cuDNN us | cuDNN/convgen | PyTorch graph us | PyTorch/convgen |")
print("|---|---|---|---|---|---|")
print("\n".join(rows))
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
print(f"| geometric mean | | | {g(rc):.2f} ({sum(x > 1 for x in rc)} of {len(rc)} faster) | | "
      f"{g(rt):.2f} ({sum(x > 1 for x in rt)} of {len(rt)} faster) |")
