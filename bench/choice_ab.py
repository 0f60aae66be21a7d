#!/usr/bin/env python3
"""A structural choice measured on the kernels the tuner found best: for each
layer of a tuning database, its K fastest records of a strategy are run again
as recorded and with the choice given (`convgen run ... -p CHOICE`: added,
or replacing the value the point has, so LP=3 is measured against LP=2), one
after the other in the same process order, so both see the same device.

    bench/choice_ab.py DB DEVICE CHOICE [--strategy s2] [--top K] [--layers SPEC,...] [--csv OUT]
    e.g. bench/choice_ab.py tune.db nvidia LP=2 --top 2 --csv ab.csv

Prints a markdown table (layer, point, time as recorded, time with the
choice, their ratio) and the geometric mean of the ratios. A run whose
check does not PASS counts as a failure and is shown as such, never timed.
"""
import argparse
import csv
import math
import re
import sqlite3
import subprocess
import sys


def best_points(db, strategy, top, name):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute(
        "select l.spec, c.point, min(m.median_us) from measurements m join candidates c on c.id = m.candidate_id "
        "join layers l on l.id = c.layer_id where m.status = 'ok' and c.strategy = ? and l.n = 1 "
        "group by c.id order by l.id, min(m.median_us)", (strategy,)).fetchall()
    con.close()
    per = {}
    for spec, point, us in rows:
        if name in point.split():   # the choice already made: nothing to compare
            continue
        per.setdefault(spec, [])
        if len(per[spec]) < top:
            per[spec].append((point, us))
    return per


def with_choice(point, choice):
    """The point with CHOICE (NAME=VALUE) in place of its NAME's value, or added."""
    key = choice.split("=")[0] + "="
    kept = [p for p in point.split() if not p.startswith(key)]
    return " ".join(kept + [choice])


def add_common_args(ap, top):
    """The arguments every A/B script of the best kernels takes (split_ab.py too)."""
    ap.add_argument("db")
    ap.add_argument("device")
    ap.add_argument("--top", type=int, default=top)
    ap.add_argument("--layers", default="", help="layer specs separated by ';' (default: every layer of the database)")
    ap.add_argument("--convgen", default="build/convgen")
    ap.add_argument("--csv")


def run(convgen, spec, strategy, point, device, extra=()):
    """`convgen run` of the point ("-": none) with the extra arguments: (median us, "") when its check
    passes, else (None, the output's last line)."""
    args = [convgen, "run", spec, "--strategy", strategy, "--device", device, *extra]
    for p in point.split():
        if p != "-":
            args += ["-p", p]
    r = subprocess.run(args, capture_output=True, text=True)
    out = r.stdout + r.stderr
    if r.returncode != 0 or "check     PASS" not in out:
        return None, out.strip().splitlines()[-1] if out.strip() else f"exit {r.returncode}"
    m = re.search(r"^time\s+([0-9.]+) us median", out, re.M)
    return (float(m.group(1)), "") if m else (None, "checked, but no time line in its output")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(ap, top=2)
    ap.add_argument("choice", help="NAME=VALUE, added to each point or replacing its value")
    ap.add_argument("--strategy", default="s2")
    o = ap.parse_args()
    if not re.fullmatch(r"[A-Z]+=[0-9]+", o.choice):
        sys.exit(f"choice_ab.py: '{o.choice}' is not NAME=VALUE")
    per = best_points(o.db, o.strategy, o.top, o.choice)
    want = [s for s in o.layers.split(";") if s]
    rows = []
    print(f"| layer | point | recorded us | as recorded | with {o.choice} | ratio |")
    print("|---|---|---|---|---|---|")
    for spec, pts in per.items():
        if want and spec not in want:
            continue
        for point, rec in pts:
            t0, why0 = run(o.convgen, spec, o.strategy, point, o.device)
            t1, why1 = run(o.convgen, spec, o.strategy, with_choice(point, o.choice), o.device)
            ratio = t0 / t1 if t0 and t1 else None
            rows.append((spec, point, rec, t0, t1, ratio, why0 or why1))
            c0 = f"{t0:.1f}" if t0 else f"FAIL ({why0})"
            c1 = f"{t1:.1f}" if t1 else f"FAIL ({why1})"
            c2 = f"{ratio:.3f}" if ratio else "-"
            print(f"| {spec} | {point} | {rec:.1f} | {c0} | {c1} | {c2} |", flush=True)
    ratios = [r[5] for r in rows if r[5]]
    if ratios:
        g = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"\ngeometric mean of (as recorded / with {o.choice}): {g:.3f} over {len(ratios)} points; "
              f"faster with it on {sum(r > 1 for r in ratios)}")
    if o.csv:
        with open(o.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["layer", "point", "recorded_us", "as_recorded_us", "with_choice_us", "ratio", "failure"])
            for r in rows:
                w.writerow(r)
    return 0 if all(r[5] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
