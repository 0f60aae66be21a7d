#!/usr/bin/env python3
"""Split-K (s2's LX=2) measured on the kernels the tuner found best: for each
layer of a tuning database, its K fastest s2 records are run again as
recorded and with the input channels split in P parts for each P given
(`-p LX=2 -p LN=2 -p CK=c/P` added; a P that does not divide c, or whose CK
is not a multiple of the point's CC, is skipped), one after the other in the
same process order, so all see the same device.

    bench/split_ab.py DB DEVICE [--parts 2,4,8] [--top K] [--layers SPEC;...] [--csv OUT]

Prints a markdown table (layer, point, time as recorded, the time with each
P, the best ratio) and the geometric mean of the best ratios. A run whose
check does not PASS is shown as a failure, never timed.
"""
import argparse
import csv
import math
import re
import sys

from choice_ab import add_common_args, best_points, run, with_choice


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(ap, top=1)
    ap.add_argument("--parts", default="2,4,8")
    o = ap.parse_args()
    parts = [int(p) for p in o.parts.split(",") if p]
    per = best_points(o.db, "s2", o.top, "LX=2")
    want = [s for s in o.layers.split(";") if s]
    rows, best = [], []
    print("| layer | point | as recorded | " + " | ".join(f"P={p}" for p in parts) + " | best ratio |")
    print("|---|---|---|" + "---|" * len(parts) + "---|")
    for spec, pts in per.items():
        if want and spec not in want:
            continue
        c = int(re.search(r"(?:^|,)c=(\d+)", spec).group(1))
        for point, _ in pts:
            cc = re.search(r"\bCC=(\d+)", point)
            cc = int(cc.group(1)) if cc else 1
            t0, why0 = run(o.convgen, spec, "s2", point, o.device)
            cells, ts = [], []
            for p in parts:
                if c % p or (c // p) % cc:
                    cells.append("-")
                    continue
                q = with_choice(with_choice(with_choice(point, "LX=2"), "LN=2"), f"CK={c // p}")
                t, why = run(o.convgen, spec, "s2", q, o.device)
                cells.append(f"{t:.1f}" if t else f"FAIL ({why})")
                rows.append((spec, point, p, t0, t, why0 or why))
                if t:
                    ts.append(t)
            ratio = t0 / min(ts) if t0 and ts else None
            if ratio:
                best.append(ratio)
            c0 = f"{t0:.1f}" if t0 else f"FAIL ({why0})"
            print(f"| {spec} | {point} | {c0} | " + " | ".join(cells) + f" | {ratio:.3f} |" if ratio else
                  f"| {spec} | {point} | {c0} | " + " | ".join(cells) + " | - |", flush=True)
    if best:
        g = math.exp(sum(math.log(r) for r in best) / len(best))
        print(f"\ngeometric mean of (as recorded / best split): {g:.3f} over {len(best)} points; "
              f"faster split on {sum(r > 1 for r in best)}")
    if o.csv:
        with open(o.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["layer", "point", "parts", "as_recorded_us", "split_us", "failure"])
            for r in rows:
                w.writerow(r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
