#!/usr/bin/env python3
"""targets.py: convgen under two targets side by side, from the CSVs of two
`convgen bench` runs of one lease (one with --target cuda), so that no figure
on the results page is typed by hand.

    bench/targets.py bench_opencl.csv bench_cuda.csv

One markdown row per layer both CSVs have: convgen's median time (us) under
each target, CUDA's over OpenCL's (below 1: CUDA is faster), the faster of
the two, cuDNN's row (from the first CSV that has one) and cuDNN over the
faster target; then the geometric means and how many layers each target
wins. A layer whose convgen row did not run under a target shows why.
"""
import csv
import math
import sys


def rows(path):
    with open(path, newline="") as f:
        return {(r["layer"], r["method"]): r for r in csv.DictReader(f)}


def time_of(r):
    if r and r.get("ran") == "1" and r.get("correct") == "1" and r.get("median_us"):
        return float(r["median_us"])
    return None


def fmt(t, row):
    """A time, or why there is none (the bench row's reason, shortened)."""
    return f"{t:.1f}" if t else (row.get("why") or "not run")[:60].replace("|", "/")


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: bench/targets.py bench_opencl.csv bench_cuda.csv")
    ocl, cuda = rows(sys.argv[1]), rows(sys.argv[2])
    layers = [k[0] for k in ocl if k[1] == "convgen" and (k[0], "convgen") in cuda]
    if not layers:
        sys.exit("targets.py: the two CSVs have no layer in common")
    print("| layer | convgen OpenCL | convgen CUDA | CUDA / OpenCL | faster | cuDNN | cuDNN / faster |")
    print("|---|---|---|---|---|---|---|")
    ratios, wins, vs_cudnn = [], {"OpenCL": 0, "CUDA": 0}, []
    for layer in layers:
        ra, rb = ocl[(layer, "convgen")], cuda[(layer, "convgen")]
        a, b = time_of(ra), time_of(rb)
        dnn = time_of(ocl.get((layer, "cudnn"))) or time_of(cuda.get((layer, "cudnn")))
        best = min(t for t in (a, b) if t) if (a or b) else None
        who = "-" if not best else ("CUDA" if b == best else "OpenCL")
        if a and b:
            ratios.append(b / a)
            wins[who] += 1
        if best and dnn:
            vs_cudnn.append(dnn / best)
        cells = [layer, fmt(a, ra), fmt(b, rb), f"{b / a:.2f}" if a and b else "-", who,
                 f"{dnn:.1f}" if dnn else "-", f"{dnn / best:.2f}" if dnn and best else "-"]
        print("| " + " | ".join(cells) + " |")
    print()
    print(f"- CUDA / OpenCL: geometric mean {geomean(ratios):.2f} over {len(ratios)} layers; "
          f"faster under CUDA on {wins['CUDA']}, under OpenCL on {wins['OpenCL']}")
    print(f"- cuDNN / the faster target: geometric mean {geomean(vs_cudnn):.2f} over {len(vs_cudnn)} layers, "
          f"convgen faster on {sum(1 for r in vs_cudnn if r > 1)}")


if __name__ == "__main__":
    main()
