#!/usr/bin/env python3
"""cuda_partial.py: call 4's two targets side by side, from call4/bench.csv
(OpenCL, complete) and call4/bench_cuda.log (the CUDA bench, cut off by its
timeout after 10 of 14 layers: no CSV, so its per-layer lines are read).
The cuDNN column is the OpenCL run's row (the same cuDNN on the same GPU);
TF/s is the faster target's, from the layer's FLOPs in bench.csv."""
import csv
import math
import re

rows = [r for r in csv.DictReader(open("call4/bench.csv"))]
ocl = {r["layer"]: float(r["median_us"]) for r in rows if r["method"] == "convgen"}
flops = {r["layer"]: float(r["gflops"]) * 1e3 * float(r["median_us"]) for r in rows if r["method"] == "convgen"}
cudnn = {r["layer"]: float(r["median_us"]) for r in rows if r["method"] == "cudnn"}
cuda, layer = {}, None
for line in open("call4/bench_cuda.log"):
    m = re.match(r"\[\d+/\d+\] (\S+)", line)
    if m:
        layer = m.group(1)
    m = re.match(r"  convgen\s+([\d.]+) us", line)
    if m and layer:
        cuda[layer] = float(m.group(1))
print("| layer | convgen OpenCL | convgen CUDA | faster | cuDNN | cuDNN / faster | TF/s (faster) |")
print("|---|---|---|---|---|---|---|")
ratios = []
for name in ocl:
    c = cuda.get(name)
    best = min(ocl[name], c) if c else ocl[name]
    who = ("CUDA" if c < ocl[name] else "OpenCL") if c else "OpenCL (CUDA not run)"
    ratios.append(cudnn[name] / best)
    print(f"| {name} | {ocl[name]:.1f} | {c:.1f} | {who} | {cudnn[name]:.1f} | {cudnn[name] / best:.2f} | {flops[name] / best / 1e6:.1f} |"
          if c else f"| {name} | {ocl[name]:.1f} | - | {who} | {cudnn[name]:.1f} | {cudnn[name] / best:.2f} | {flops[name] / best / 1e6:.1f} |")
g = math.exp(sum(map(math.log, ratios)) / len(ratios))
print(f"\n- cuDNN / the faster target: geometric mean {g:.2f} over {len(ratios)} layers ({min(ratios):.2f} .. {max(ratios):.2f}), "
      f"convgen faster on {sum(r > 1 for r in ratios)}")
