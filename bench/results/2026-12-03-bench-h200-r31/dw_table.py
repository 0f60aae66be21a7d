#!/usr/bin/env python3
"""Round 31's depthwise table: MobileNet V2's depthwise layers' rows of
call2/table_mobilenet_v2.md (bench/table.py's), with their geometric means."""
import math

rows = [line.split('|')[1:-1] for line in open('call2/table_mobilenet_v2.md') if line.startswith('| mobilenet_v2.') and '.dw ' in line]
print('| layer | convgen CUDA | naive CUDA | cuDNN row | cuDNN / convgen | PyTorch graph | PyTorch per call | PyTorch best / convgen |')
print('|---|---|---|---|---|---|---|---|')
for r in rows:
    c = [x.strip() for x in r]
    print(f'| {c[0]} | {c[1]} | {c[3]} | {c[5]} | {c[8]} | {c[10]} | {c[11]} | {c[12]} |')
for col, what in ((8, 'cuDNN / convgen'), (12, 'PyTorch best / convgen')):
    v = [float(r[col]) for r in rows]
    g = math.exp(sum(map(math.log, v)) / len(v))
    print(f'\n- {what}: geometric mean {g:.2f} ({min(v):.2f} .. {max(v):.2f}), at least 2 on {sum(x >= 2 for x in v)} of {len(v)}', end='')
print()
