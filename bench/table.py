#!/usr/bin/env python3
"""table.py: the results page's table from a `convgen bench --csv` file, so
that no figure on the page is typed by hand.

    bench/table.py bench.csv [pytorch.csv]

One markdown row per layer: each method's median time (us), convgen's
strategy, each baseline's time over convgen's (above 1: convgen is faster)
and the memory of convgen and CLBlast (MB); then the geometric means of the
ratios and the number of layers convgen wins, as `convgen bench` prints them.
With the CSV of bench/pytorch.py from the same lease, also PyTorch's cuDNN
(CUDA-graph replay and per call), its best over convgen's time, and bench's
cuDNN row over PyTorch's best (the check that the row is honest: within 10 %).
For a model's bench, then the network's line and a table of its nodes (time,
share, kernel).
"""
import csv
import math
import sys

BASELINES = ("naive", "clblast", "cudnn")
TITLES = {"naive": "naive", "clblast": "CLBlast", "cudnn": "cuDNN"}


def pytorch_best(path):
    """Per layer: (graph us, per-call us, best us) from bench/pytorch.py's CSV."""
    out = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r.get("median_us"):
                out.setdefault(r["layer"], {})[r["mode"]] = float(r["median_us"])
    return {k: (v.get("graph"), v.get("per-call"), min(v.values())) for k, v in out.items()}


def geomean(r):
    return math.exp(sum(math.log(x) for x in r) / len(r))


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: bench/table.py bench.csv [pytorch.csv]")
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    torch = pytorch_best(sys.argv[2]) if len(sys.argv) == 3 else None
    layers, networks, nodes = {}, [], []
    for r in rows:   # a model's network and node rows (bench MODEL.onnx --csv) apart from the layers'
        if r["method"] == "network":
            networks.append(r)
        elif r["method"] == "node":
            nodes.append(r)
        else:
            layers.setdefault(r["layer"], {})[r["method"]] = r
    head = ["layer", "convgen", "strategy"] + [TITLES[b] for b in BASELINES]
    head += [f"{TITLES[b]} / convgen" for b in BASELINES] + ["memory MB: convgen / CLBlast"]
    if torch is not None:
        head += ["PyTorch graph", "PyTorch per call", "PyTorch best / convgen", "cuDNN row / PyTorch best"]
    vs_torch, row_vs_torch = [], []
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
        if torch is not None:
            g, p, best = torch.get(layer, (None, None, None))
            cells += [f"{g:.1f}" if g else "-", f"{p:.1f}" if p else "-"]
            cells.append(f"{best / cu:.2f}" if best and cu else "-")
            if best and cu:
                vs_torch.append(best / cu)
            row = m.get("cudnn")
            if best and timed(row):
                row_vs_torch.append((layer, float(row["median_us"]) / best))
                cells.append(f"{row_vs_torch[-1][1]:.2f}")
            else:
                cells.append("-")
        print("| " + " | ".join(cells) + " |")
    print()
    for b in BASELINES:
        r = ratios[b]
        if r:
            print(f"- {TITLES[b]} / convgen: geometric mean {geomean(r):.2f}, convgen faster on "
                  f"{sum(x > 1 for x in r)} of {len(r)} ({min(r):.2f} .. {max(r):.2f})")
    if vs_torch:
        print(f"- PyTorch best / convgen: geometric mean {geomean(vs_torch):.2f}, convgen faster on "
              f"{sum(x > 1 for x in vs_torch)} of {len(vs_torch)} ({min(vs_torch):.2f} .. {max(vs_torch):.2f})")
    if row_vs_torch:
        off = [f"{l} {x:.2f}" for l, x in row_vs_torch if abs(x - 1) > 0.10]
        print(f"- cuDNN row / PyTorch best: {min(x for _, x in row_vs_torch):.2f} .. "
              f"{max(x for _, x in row_vs_torch):.2f}; more than 10 % off on {len(off)} of {len(row_vs_torch)}"
              + (f" ({', '.join(off)})" if off else ""))

    for net in networks:   # the whole network, then where its time goes node by node
        print(f"\n- network {net['layer']}: {float(net['median_us']):.1f} us a run (spread "
              f"{float(net['spread']) * 100:.1f}%), {int(net['bytes_total']) / 1e6:.3f} MB of weights, activations "
              f"and temporaries; {net['detail']}")
    if nodes:
        total = sum(float(n["median_us"]) for n in nodes)
        print("\n| node | operator | time (us) | share | kernel |\n|---|---|---|---|---|")
        for n in nodes:
            t = float(n["median_us"])
            print(f"| {n['layer']} | {n['spec']} | {t:.1f} | {100 * t / total if total else 0:.1f}% | {n['detail']} |")


if __name__ == "__main__":
    main()
