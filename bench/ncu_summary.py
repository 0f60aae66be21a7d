#!/usr/bin/env python3
"""ncu_summary.py: one markdown row per layer from the Nsight Compute reports
that bench/profile.sh writes (LAYER.ncu.csv: `ncu --set full --csv --page
details`, one row per metric, the kernel launched a few times by ptxrun).

    bench/ncu_summary.py DIR        # every DIR/*.ncu.csv

The figures are the first launch's (ID 0; the others agree to a few percent).
Durations are ncu's, whose clock control runs the GPU at its base clock
(longer than ptxrun's or bench's times). Columns: what bounds a kernel that runs a few waves of large work-groups:
duration, the grid against the 132 SMs (waves), occupancy reached, how busy
the SMs' issue slots and the memory pipes are, how many of the global
sectors moved were not needed (uncoalesced reads), and shared-memory bank
conflicts.
"""
import csv
import glob
import os
import re
import sys


def metrics(path):
    """{(section, name): value} of the first launch, and the rule texts."""
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if len(r) > 10]
    if not rows:
        return {}, []
    hdr = rows[0]
    col = {name: hdr.index(name)
           for name in ("ID", "Section Name", "Metric Name", "Metric Unit", "Metric Value", "Rule Description")}
    values, rules = {}, []
    for r in rows[1:]:
        if r[col["ID"]] != "0":
            continue
        value, unit = r[col["Metric Value"]], r[col["Metric Unit"]]
        per_us = {"ns": 1e-3, "nsecond": 1e-3, "us": 1, "usecond": 1, "ms": 1e3, "msecond": 1e3, "s": 1e6, "second": 1e6}
        if r[col["Metric Name"]] == "Duration" and unit in per_us:   # in us, as everywhere else in bench
            value = f"{float(value.replace(',', '')) * per_us[unit]:.1f}"
        values.setdefault((r[col["Section Name"]], r[col["Metric Name"]]), value)
        rule = r[col["Rule Description"]] if len(r) > col["Rule Description"] else ""
        if rule and rule not in rules:
            rules.append(rule)
    return values, rules


def pick(rules, pattern):
    """The first number a rule text gives after pattern (a regex with one group)."""
    for text in rules:
        m = re.search(pattern, text)
        if m:
            return m.group(1)
    return "-"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench/ncu_summary.py DIR")
    files = sorted(glob.glob(os.path.join(sys.argv[1], "*.ncu.csv")))
    if not files:
        sys.exit(f"bench/ncu_summary.py: no *.ncu.csv in {sys.argv[1]}")
    print("| layer | duration us | grid x block | registers | waves per SM | achieved occupancy % "
          "| issue slots busy % | FP32 peak % | L1/TEX throughput % | excessive global sectors % "
          "| shared bank conflicts (loads, stores) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for path in files:
        v, rules = metrics(path)
        g = lambda s, n: v.get((s, n), "-")
        layer = os.path.basename(path)[: -len(".ncu.csv")]
        sectors = pick(rules, r"excessive sectors \((\d+)% of the total")
        loads = pick(rules, r"shared loads might not be optimal and causes on average a ([\d.]+) - way")
        stores = pick(rules, r"shared stores might not be optimal and causes on average a ([\d.]+) - way")
        fp32 = pick(rules, r"achieved (\d+)% of this device's FP32 peak")
        print(f"| {layer} | {g('GPU Speed Of Light Throughput', 'Duration')} "
              f"| {g('Launch Statistics', 'Grid Size')} x {g('Launch Statistics', 'Block Size')} "
              f"| {g('Launch Statistics', 'Registers Per Thread')} | {g('Launch Statistics', 'Waves Per SM')} "
              f"| {g('Occupancy', 'Achieved Occupancy')} | {g('Compute Workload Analysis', 'Issue Slots Busy')} "
              f"| {fp32} | {g('GPU Speed Of Light Throughput', 'L1/TEX Cache Throughput')} | {sectors} "
              f"| {loads if loads == '-' else loads + '-way'}, {stores if stores == '-' else stores + '-way'} |")


if __name__ == "__main__":
    main()
