# paced.py: paced.md, convgen's and the OpenCL baselines' times held
# (bench.csv) against host-paced (bench_paced.csv), per layer and method.
import csv


def rows(f):
    return {(r['layer'], r['method']): r for r in csv.DictReader(open(f))}


held, paced = rows('bench.csv'), rows('bench_paced.csv')
print("| layer | method | held us (spread) | host-paced us (spread) | host-paced / held |")
print("|---|---|---|---|---|")
for key, b in paced.items():
    if key[1] == 'cudnn':
        continue
    a = held[key]
    ta, tb = float(a['median_us']), float(b['median_us'])
    print(f"| {key[0]} | {key[1]} | {ta:.1f} ({float(a['spread']) * 100:.0f} %) | "
          f"{tb:.1f} ({float(b['spread']) * 100:.0f} %) | {tb / ta:.2f} |")
