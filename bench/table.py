#!/usr/bin/env python3
"""table.py: the results page's table from a `convgen bench --csv` file, so
that no figure on the page is typed by hand.

    bench/table.py bench.csv

One markdown row per layer: each method's median time (us), convgen's
strategy, each baseline's time over convgen's (above 1: convgen is faster)
and the memory of convgen and CLBlast (MB); then the geometric means of the
ratios and the number of layers convgen wins, as `convgen bench` prints them.
"""
import csv
import math
import sys

BASELINES = ("naive", "clblast", "cudnn")
TITLES = {"naive": "naive", "clblast": "CLBlast", "cudnn": "cuDNN"}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench/table.py bench.csv")
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    layers = {}
    for r in rows:
        layers.setdefault(r["layer"], {})[r["method"]] = r
    head = ["layer", "convgen", "strategy"] + [TITLES[b] for b in BASELINES]
    head += [f"{TITLES[b]} / convgen" for b in BASELINES] + ["memory MB: convgen / CLBlast"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    ratios = {b: [] for b in BASELINES}
    timed = lambda r: r is not None and r["ran"] == "1" and r["correct"] == "1" and r["median_us"] != ""
    for layer, m in layers.items():
        c = m.get("convgen")
        cu = float(c["median_us"]) if timed(c) else None   # no ratios for a layer convgen did not time
        cells = [layer, f"{cu:.1f}" if cu else "-", (c["detail"].split() or ["-"])[0] if c else "-"]
        for b in BASELINES:
            cells.append(f"{float(m[b]['median_us']):.1f}" if timed(m.get(b)) else "-")
        for b in BASELINES:
            ok = cu is not None and timed(m.get(b))
            if ok:
                ratios[b].append(float(m[b]["median_us"]) / cu)
            cells.append(f"{float(m[b]['median_us']) / cu:.2f}" if ok else "-")
        mem = m.get("clblast")
        cells.append((f"{int(c['bytes_total']) / 1e6:.2f}" if c and c["bytes_total"] else "-") + " / " +
                     (f"{int(mem['bytes_total']) / 1e6:.2f}" if mem and mem["ran"] == "1" and mem["bytes_total"] else "-"))
        print("| " + " | ".join(cells) + " |")
    print()
    for b in BASELINES:
        r = ratios[b]
        if r:
            g = math.exp(sum(math.log(x) for x in r) / len(r))
            print(f"- {TITLES[b]} / convgen: geometric mean {g:.2f}, convgen faster on "
                  f"{sum(x > 1 for x in r)} of {len(r)} ({min(r):.2f} .. {max(r):.2f})")


if __name__ == "__main__":
    main()
