#!/usr/bin/env python3
"""Round 31 call 4's figures from its logs (both benches were cut by their
timeouts, so there is no csv): each layer the bench reached, convgen's and
cuDNN's row from bench's log, and for batch 8 cuDNN's best direct trial."""
import math
import re


def rows(path):
    layer, out, direct = None, {}, {}
    for line in open(path):
        m = re.match(r'\[\d+/\d+\] (\S+)', line)
        if m:
            layer = m.group(1)
            continue
        m = re.match(r'  (convgen|cudnn)\s+([\d.]+) us', line)
        if m and layer:
            out.setdefault(layer, {})[m.group(1)] = float(m.group(2))
        m = re.match(r'\s+cudnn (\S+)\s+(.*?)\s+(stream|CUDA graph)\s+([\d.]+) us', line)
        if m and layer and 'WINOGRAD' not in m.group(1) and 'FFT' not in m.group(1):
            t = float(m.group(4))
            if layer not in direct or t < direct[layer][0]:
                direct[layer] = (t, m.group(1))
    return {k: v for k, v in out.items() if 'convgen' in v and 'cudnn' in v}, direct


b8, direct = rows('call4/b8_bench.log')
print('| layer | convgen us | cuDNN row | cuDNN best direct (algorithm) | convgen vs direct |')
print('|---|---|---|---|---|')
for k, v in b8.items():
    d = direct[k]
    print(f"| {k} | {v['convgen']:.1f} | {v['cudnn']:.1f} | {d[0]:.1f} ({d[1]}) | {d[0] / v['convgen']:.2f}x |")
rn, _ = rows('call4/bench_resnet50.log')
print('\n| layer | convgen us | cuDNN row | cuDNN / convgen |')
print('|---|---|---|---|')
r = []
for k, v in rn.items():
    r.append(v['cudnn'] / v['convgen'])
    print(f"| {k} | {v['convgen']:.1f} | {v['cudnn']:.1f} | {r[-1]:.2f} |")
g = math.exp(sum(map(math.log, r)) / len(r))
print(f'\n- cuDNN / convgen over the {len(r)} layers reached: geometric mean {g:.2f}, convgen faster on '
      f'{sum(x > 1 for x in r)} ({min(r):.2f} .. {max(r):.2f})')
