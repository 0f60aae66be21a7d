#!/usr/bin/env python3
"""Two builds of convgen measured on the kernels the tuner found best: for
each layer of a tuning database, its fastest record under a target is run
(`convgen run ... -p ...`, one input seed) by build A, then B, then B, then
A, so that a drift of the device's clock weighs on both alike. What a
compiler change that alters the kernels of every point (a dialect entry, a
lowering detail) does to the tuned kernels, where no choice of the space
tells the two apart.

    bench/build_ab.py DB DEVICE CONVGEN_A CONVGEN_B [--target cuda] [--layers SPEC;...] [--strategy S] [--csv OUT]
    e.g. bench/build_ab.py tune.db nvidia /tmp/a/convgen build/convgen --target cuda

DEVICE selects the device to run on (convgen --device) and the records:
those of a device whose name, vendor or platform contains it. --strategy S
takes each layer's fastest record of strategy S (what a change to S's
derivation does to its best kernels).

Prints a markdown table (layer, strategy, time as recorded, A's and B's
mean of their two runs, A / B) and the geometric mean of A / B. A run
whose check does not PASS counts as a failure and is shown as such, never
timed.
"""
import argparse
import csv
import math
import sqlite3
import sys

from choice_ab import run


def best_records(db, target, device, strategy=""):
    """(spec, strategy, point, recorded us) of each batch-1 layer: its fastest
    correct record on a device of the target (a CUDA device's platform is
    'CUDA'; every other is OpenCL's) whose name, vendor or platform contains
    DEVICE (any case; a number selects no records by name)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    cuda = "= 'CUDA'" if target == "cuda" else "<> 'CUDA'"
    like = "" if device.isdigit() else f"%{device}%"
    rows = con.execute(
        "select l.spec, c.strategy, c.point, min(m.median_us) from measurements m "
        "join candidates c on c.id = m.candidate_id join layers l on l.id = c.layer_id "
        f"join devices d on d.id = m.device_id where m.status = 'ok' and l.n = 1 and d.platform {cuda} "
        "and (? = '' or d.name like ? or d.vendor like ? or d.platform like ?) and (? = '' or c.strategy = ?) "
        "group by c.id order by l.id, min(m.median_us)", (like, like, like, like, strategy, strategy)).fetchall()
    con.close()
    best = {}
    for spec, strategy, point, us in rows:
        best.setdefault(spec, (strategy, point, us))
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("db")
    ap.add_argument("device")
    ap.add_argument("convgen_a")
    ap.add_argument("convgen_b")
    ap.add_argument("--target", default="opencl", choices=["opencl", "cuda"])
    ap.add_argument("--layers", default="", help="layer specs separated by ';' (default: every layer of the database)")
    ap.add_argument("--strategy", default="", help="each layer's fastest record of this strategy (default: of any)")
    ap.add_argument("--csv")
    o = ap.parse_args()
    want = [s for s in o.layers.split(";") if s]
    best = best_records(o.db, o.target, o.device, o.strategy)
    for spec in want:
        if spec not in best:
            print(f"build_ab.py: no {o.target} record of {spec} on '{o.device}' in {o.db}: left out", file=sys.stderr)
    rows = []
    print("| layer | strategy | recorded us | A us | B us | A / B |")
    print("|---|---|---|---|---|---|")
    for spec, (strategy, point, rec) in best.items():
        if want and spec not in want:
            continue
        times, why = {"a": [], "b": []}, ""
        for who in "abba":
            t, w = run(o.convgen_a if who == "a" else o.convgen_b, spec, strategy, point, o.device,
                       ("--target", o.target, "--seed", "7"))
            if t is None:
                why = why or f"{who.upper()}: {w}"
            else:
                times[who].append(t)
        ta = sum(times["a"]) / 2 if len(times["a"]) == 2 else None
        tb = sum(times["b"]) / 2 if len(times["b"]) == 2 else None
        ratio = ta / tb if ta and tb else None
        rows.append((spec, strategy, point, rec, ta, tb, ratio, why))
        us = lambda t: f"{t:.2f}" if t < 10 else f"{t:.1f}"   # the launch-bound layers need the second digit
        ca = us(ta) if ta else "FAIL"
        cb = us(tb) if tb else "FAIL"
        cr = f"{ratio:.3f}" if ratio else f"- ({why})"
        print(f"| {spec} | {strategy} | {us(rec)} | {ca} | {cb} | {cr} |", flush=True)
    ratios = [r[6] for r in rows if r[6]]
    if ratios:
        g = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"\ngeometric mean of A / B: {g:.3f} over {len(ratios)} layers; B faster on "
              f"{sum(r > 1 for r in ratios)}, by more than 2 % on {sum(r > 1.02 for r in ratios)}, "
              f"slower by more than 2 % on {sum(r < 1 / 1.02 for r in ratios)}")
    if o.csv:
        with open(o.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["layer", "strategy", "point", "recorded_us", "a_us", "b_us", "a_over_b", "failure"])
            for r in rows:
                w.writerow(r)
    return 0 if rows and all(r[6] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
