#!/usr/bin/env python3
"""Round 33: per layer of a tuning database, the fastest correct record of
each strategy on the devices of platform PLATFORM ('CUDA' for the CUDA
target, 'NVIDIA CUDA' for NVIDIA's OpenCL), as a markdown table.
usage: strategies.py DB PLATFORM [LAYER_SPEC_SUBSTRING...]"""
import sqlite3, sys

db, device, wanted = sys.argv[1], sys.argv[2], sys.argv[3:]
c = sqlite3.connect(db)
rows = c.execute("""
  select l.spec, c.strategy, min(m.median_us), d.platform
  from measurements m join candidates c on c.id = m.candidate_id join layers l on l.id = c.layer_id
  join devices d on d.id = m.device_id
  where m.status = 'ok' and d.platform = ?
  group by l.spec, c.strategy, d.platform order by l.spec""", (device,)).fetchall()
best = {}
for spec, st, us, plat in rows:
    if wanted and not any(w in spec for w in wanted):
        continue
    best.setdefault((spec, plat), {})[st] = us
sts = ['direct', 's1', 's2', 's3', 'dw']
print('| layer | platform | ' + ' | '.join(f'{s} (us)' for s in sts) + ' | s2 / dw |')
print('|---|---|' + '---|' * (len(sts) + 1))
for (spec, plat), m in sorted(best.items()):
    cells = [f"{m[s]:.2f}" if s in m else '-' for s in sts]
    ratio = f"{m['s2'] / m['dw']:.2f}" if 's2' in m and 'dw' in m else '-'
    print(f'| {spec} | {plat} | ' + ' | '.join(cells) + f' | {ratio} |')
