#!/usr/bin/env python3
"""Round 31's whole-model table from call3's files: convgen's time and
memory plan (infer_*_cuda.txt) against PyTorch's eager, CUDA-graph and
torch.compile times and peak allocations (pytorch_models.csv)."""
import csv
import math
import re

torch = {}
for r in csv.DictReader(open('call3/pytorch_models.csv')):
    if r['method'].startswith('pytorch'):
        torch.setdefault(r['model'], {})[r['method'].split()[1]] = (float(r['median_us']), int(r['peak_bytes']) / 1e6)
print('| model | convgen us | PyTorch eager / graph / compile us | best PyTorch / convgen '
      '| memory MB: convgen (activations + weights + temporaries) | PyTorch peak MB, least | rel. L2 |')
print('|---|---|---|---|---|---|---|')
names = {'resnet50': 'ResNet-50', 'mobilenet_v2': 'MobileNet V2', 'vgg16': 'VGG-16'}
ratios = []
for m, name in names.items():
    text = open(f'call3/infer_{m}_cuda.txt').read()
    us = float(re.search(r'time: ([\d.]+) us', text).group(1))
    a, w, t = (float(x) for x in re.search(
        r'activations ([\d.]+) MB.*weights ([\d.]+) MB, the nodes. temporaries ([\d.]+) MB', text).group(1, 2, 3))
    err = re.search(r'relative L2 error (\S+)', text).group(1)
    p = torch[m]
    best = min(v[0] for v in p.values())
    least = min(v[1] for v in p.values())
    ratios.append(best / us)
    print(f"| {name} | {us:.1f} | {p['eager'][0]:.1f} / {p['graph'][0]:.1f} / {p['compile'][0]:.1f} | {best / us:.2f} "
          f"| {a + w + t:.1f} ({a:.3f} + {w:.3f} + {t:.3f}) | {least:.1f} | {err} |")
print(f"\n- best PyTorch / convgen: geometric mean {math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f}")
