#!/usr/bin/env python3
"""table.py: a run's table from bench's CSV (nothing typed): per layer
convgen's best recorded kernel and cuDNN's row (its fastest correct
algorithm), the time ratio (cuDNN over convgen: above 1, convgen is faster)
and each one's memory (inputs, weights, output and whatever else it needs:
temporaries, workspace).  Usage: table.py h100-run1"""
import csv, math, sys

rows = list(csv.DictReader(open(f"{sys.argv[1]}/bench.csv")))
print("| layer | convgen us (point) | cuDNN us (algorithm) | cuDNN/convgen | convgen MB | cuDNN MB |")
print("|---|---|---|---|---|---|")
ratios = []
for layer in dict.fromkeys(r["layer"] for r in rows):
    by = {r["method"]: r for r in rows if r["layer"] == layer}
    cg, cu = by["convgen"], by["cudnn"]
    point = cg["detail"].split(" (record")[0]
    algo = cu["detail"].split(", ")[1]
    t, tc = float(cg["median_us"]), float(cu["median_us"])
    ratios.append(tc / t)
    mb = lambda r: f"{int(r['bytes_total']) / 1e6:.1f}"
    print(f"| {layer} | {t:.1f} ({point}) | {tc:.1f} ({algo}) | {tc / t:.2f} | {mb(cg)} | {mb(cu)} |")
g = math.exp(sum(map(math.log, ratios)) / len(ratios))
print(f"| geometric mean | | | {g:.2f} ({sum(x > 1 for x in ratios)} of {len(ratios)} faster) | | |")
