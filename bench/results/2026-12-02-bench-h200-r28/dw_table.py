#!/usr/bin/env python3
"""Round 28's depthwise table from call3's files: convgen, naive and
cuDNN's row under --target cuda (dw_bench.csv), PyTorch (dw_pytorch.csv)."""
import csv
import math

py = {}
for r in csv.DictReader(open('call3/dw_pytorch.csv')):
    py.setdefault(r['layer'], {})[r['mode']] = float(r['median_us'])
by = {}
for r in csv.DictReader(open('call3/dw_bench.csv')):
    by.setdefault(r['layer'], {})[r['method']] = r
print("| layer | convgen CUDA | naive CUDA | cuDNN row | cuDNN / convgen | PyTorch graph | PyTorch per call | PyTorch best / convgen |")
print("|---|---|---|---|---|---|---|---|")
g1, g2 = [], []
for l, m in by.items():
    c, n, d = (float(m[k]['median_us']) for k in ('convgen', 'naive', 'cudnn'))
    p = py[l]
    pb = min(p.values())
    g1.append(d / c)
    g2.append(pb / c)
    print(f"| {l} | {c:.1f} | {n:.1f} | {d:.1f} | {d/c:.2f} | {p['graph']:.1f} | {p['per-call']:.1f} | {pb/c:.2f} |")


def gm(v):
    return math.exp(sum(map(math.log, v)) / len(v))


print()
print(f"- cuDNN / convgen: geometric mean {gm(g1):.2f} ({min(g1):.2f} .. {max(g1):.2f}), at least 2 on {sum(x >= 2 for x in g1)} of {len(g1)}")
print(f"- PyTorch best / convgen: geometric mean {gm(g2):.2f} ({min(g2):.2f} .. {max(g2):.2f}), at least 2 on {sum(x >= 2 for x in g2)} of {len(g2)}")
