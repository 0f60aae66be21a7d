#!/usr/bin/env python3
"""A round's batch-8 table from one call's files (the folder given, round
28's call2 by default; round 31 runs it on its call3): convgen and cuDNN's
row (b8_bench.csv), cuDNN's best direct (non-Winograd, non-FFT) trial
(b8_bench.log lists every one), PyTorch's best (b8_pytorch.csv)."""
import csv
import re
import sys

call = sys.argv[1] if len(sys.argv) > 1 else 'call2'

layer, best = None, {}
for line in open(f'{call}/b8_bench.log'):
    m = re.match(r'\[\d+/\d+\] (\S+)', line)
    if m:
        layer = m.group(1)
        continue
    m = re.match(r'\s+cudnn (\S+)\s+(.*?)\s+(stream|CUDA graph)\s+([\d.]+) us', line)
    if m and layer and 'WINOGRAD' not in m.group(1) and 'FFT' not in m.group(1):
        t = float(m.group(4))
        if layer not in best or t < best[layer][0]:
            best[layer] = (t, m.group(1))
py = {}
for r in csv.DictReader(open(f'{call}/b8_pytorch.csv')):
    py[r['layer']] = min(py.get(r['layer'], 1e9), float(r['median_us']))
rows = {}
for r in csv.DictReader(open(f'{call}/b8_bench.csv')):
    rows.setdefault(r['layer'], {})[r['method']] = r
print("| layer | convgen us | TFLOP/s | cuDNN row | cuDNN best direct (algorithm) | convgen vs direct | PyTorch best | convgen vs PyTorch |")
print("|---|---|---|---|---|---|---|---|")
for l, m in rows.items():
    c, g, d = float(m['convgen']['median_us']), float(m['convgen']['gflops']) / 1e3, float(m['cudnn']['median_us'])
    bd = best[l]
    print(f"| {l} | {c:.1f} | {g:.1f} | {d:.1f} | {bd[0]:.1f} ({bd[1]}) | {bd[0]/c:.2f}x | {py[l]:.1f} | {py[l]/c:.2f}x |")
