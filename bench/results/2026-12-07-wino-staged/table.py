#!/usr/bin/env python3
"""table.py: a run's table from bench's CSV and wino2.txt (nothing typed):
per layer convgen's best recorded kernel and cuDNN's row (its fastest
correct algorithm), the time ratio (cuDNN over convgen: above 1, convgen is
faster), the same ratio with wino's filter transform counted in every run
as cuDNN's Winograd does it (its one time from the best wino point's run
alone, wino2.txt's 'once' line), and each one's memory.  Usage: table.py
h100-run3"""
import csv, math, re, sys

d = sys.argv[1]
rows = list(csv.DictReader(open(f"{d}/bench.csv")))
once, layer = {}, None
for line in open(f"{d}/wino2.txt"):
    m = re.match(r"-- (\S+):", line)
    if m:
        layer = m.group(1)
    m = re.match(r"\s+k0\s+([0-9.]+) us once", line)
    if m and layer:
        once[layer] = float(m.group(1))
print("| layer | convgen us (point) | cuDNN us (algorithm) | cuDNN/convgen | with the filter transform each run |"
      " convgen MB | cuDNN MB |")
print("|---|---|---|---|---|---|---|")
ratios, with_u = [], []
for layer in dict.fromkeys(r["layer"] for r in rows):
    by = {r["method"]: r for r in rows if r["layer"] == layer}
    cg, cu = by["convgen"], by["cudnn"]
    point = cg["detail"].split(" (record")[0]
    algo = cu["detail"].split(", ")[1]
    t, tc = float(cg["median_us"]), float(cu["median_us"])
    u = once.get(layer, 0.0) if point.startswith("wino") else 0.0
    ratios.append(tc / t)
    with_u.append(tc / (t + u))
    mb = lambda r: f"{int(r['bytes_total']) / 1e6:.1f}"
    print(f"| {layer} | {t:.1f} ({point}) | {tc:.1f} ({algo}) | {tc / t:.2f} | {tc / (t + u):.2f} (+{u:.1f} us) |"
          f" {mb(cg)} | {mb(cu)} |")
g = lambda x: math.exp(sum(map(math.log, x)) / len(x))
print(f"| geometric mean | | | {g(ratios):.2f} ({sum(x > 1 for x in ratios)} of {len(ratios)} faster) |"
      f" {g(with_u):.2f} ({sum(x > 1 for x in with_u)} of {len(with_u)}) | | |")
