#!/usr/bin/env python3
"""table.py: issue 30's speed table for bench/README.md from the calls' own
files, so that no figure is typed by hand.

    table.py CALLDIR... (or CSV files; each folder's pytorch.csv,
                         convgen.csv and info.txt are read when present)

CALLDIR is a call's folder as its NAME.tgz unpacks (call1/, call2/...):
pytorch.csv (pytorch.py), convgen.csv (convgen.sh), info.txt (call.sh).
A model, phase and target given by several calls is taken from the last
one that ran it (a row "skipped" does not replace one that ran).

Prints a header (per call: its command, commit, convgen's version, the
device, the date and times), the table (per model: convgen's untuned and
tuned time under CUDA and OpenCL; PyTorch eager, CUDA graph and
torch.compile replayed from a CUDA graph; best PyTorch over convgen's
faster tuned target; untuned over tuned per target; memory, convgen's plan
against PyTorch's least peak; the worst relative L2 of each), the summary
lines against the issue's targets, and a second table of the details (the
kernels the untuned runs took, the tune, torch.compile's compile time and
PyTorch's peak per mode).
"""
import csv
import math
import os
import sys

NAMES = {
    "mobilenet_v3_large": "MobileNet V3 Large", "efficientnet_b0": "EfficientNet-B0",
    "shufflenet_v2_x1_0": "ShuffleNet V2 x1.0", "mnasnet1_0": "MNASNet 1.0", "regnet_y_400mf": "RegNetY-400MF",
    "densenet121": "DenseNet-121", "convnext_tiny": "ConvNeXt-Tiny", "googlenet": "GoogLeNet",
    "inception_v3": "Inception v3", "resnext50_32x4d": "ResNeXt-50 32x4d", "squeezenet1_1": "SqueezeNet 1.1",
    "deeplabv3_mobilenet_v3_large": "DeepLabV3 MobileNetV3-Large",
}
TARGETS = ("cuda", "opencl")
TNAME = {"cuda": "CUDA", "opencl": "OpenCL"}


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def skipped(r):
    return (r.get("status") or "").startswith("skipped")


def keep(store, key, r):
    if key in store and skipped(r) and not skipped(store[key]):
        return
    store[key] = r


def read_info(path):
    info = {}
    if os.path.exists(path):
        for line in open(path):
            k, sep, v = line.rstrip("\n").partition(": ")
            if sep:
                info.setdefault(k, v)
                info[k + "+"] = info.get(k + "+", []) + [v]
    return info


def load(args):
    torch, conv, infos = {}, {}, []
    for a in args:
        if not os.path.exists(a):
            print(f"table.py: {a}: no such file or folder (left out)", file=sys.stderr)
            continue
        files = [os.path.join(a, f) for f in ("pytorch.csv", "convgen.csv")] if os.path.isdir(a) else [a]
        folder = a if os.path.isdir(a) else os.path.dirname(a) or "."
        info = read_info(os.path.join(folder, "info.txt"))
        info["folder"] = folder
        if info not in infos:
            infos.append(info)
        for f in files:
            if not os.path.exists(f):
                continue
            with open(f, newline="") as fh:
                for r in csv.DictReader(fh):
                    r["call"] = info.get("call", folder)
                    if "phase" in r:
                        keep(conv, (r["model"], r["phase"], r.get("target") or ""), r)
                    else:
                        keep(torch, (r["model"], r["mode"]), r)
    return torch, conv, infos


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def fmt(x, spec=".1f"):
    return "-" if x is None else format(x, spec)


def mem_spec(x):
    return ".3f" if x is not None and x < 1 else ".1f"


def cell_conv(r):
    """A convgen time, or what happened instead."""
    if r is None:
        return "not run"
    us, st = num(r.get("us")), r.get("status") or ""
    if st == "PASS" and us is not None:
        return f"{us:.1f}"
    if st == "FAIL":
        return f"FAIL ({r.get('rel_l2') or '?'})"
    return st or "?"


def cell_torch(r):
    if r is None:
        return "not run"
    us = num(r.get("us"))
    return f"{us:.1f}" if r.get("status") == "ok" and us is not None else (r.get("status") or "?")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.split("\n\n")[1])
    torch, conv, infos = load(sys.argv[1:])
    models = [m for m in NAMES if any(k[0] == m for k in list(torch) + list(conv))]
    models += sorted({k[0] for k in list(torch) + list(conv)} - set(models))

    print(f"<!-- made by bench/results/2026-12-06-models-speed/table.py {' '.join(sys.argv[1:])} -->")
    for info in infos:
        when = info.get("date", "?")
        if info.get("end"):
            when += " to " + info["end"].split(" ")[1]
        parts = [f"`{info.get('command', '?')}`", f"commit {info.get('commit', '?')}"]
        if info.get("convgen"):
            parts.append(info["convgen"])
        parts += [f"device {info.get('gpu') or '?'}", f"{info.get('cpus', '?')} CPUs"]
        if info.get("python"):
            parts.append(info["python"])
        parts.append(when)
        print(f"- {info.get('call', info['folder'])}: " + ", ".join(parts))
    print()
    print("| model | convgen untuned CUDA | untuned OpenCL | tuned CUDA | tuned OpenCL | PyTorch eager | graph "
          "| torch.compile | best PyTorch / convgen | untuned / tuned CUDA, OpenCL "
          "| memory MB: convgen / PyTorch least | rel. L2 convgen / PyTorch |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    ratios, beats_graph, beats_compile, mem_less, within2, correct, counted = [], 0, 0, 0, 0, 0, 0
    details = []
    for m in models:
        c = {(ph, t): conv.get((m, ph, t)) for ph in ("untuned", "tuned") for t in TARGETS}
        imp = conv.get((m, "import", ""))
        tune = conv.get((m, "tune", "cuda")) or conv.get((m, "tune", "opencl"))
        p = {mode: torch.get((m, mode)) for mode in ("eager", "graph", "compile", "compile_graph")}
        cells = [NAMES.get(m, m)]
        if imp is not None and imp.get("status") not in ("ok", None):
            cells += [f"{imp['status']}: {imp.get('note', '')[:120]}".replace("|", "/")] + ["-"] * 3
        else:
            cells += [cell_conv(c[(ph, t)]) for ph in ("untuned", "tuned") for t in TARGETS]
        cells += [cell_torch(p["eager"]), cell_torch(p["graph"]), cell_torch(p["compile_graph"])]

        def us_of(r, ok):
            return num(r.get("us")) if r is not None and r.get("status") == ok else None
        tuned = {t: us_of(c[("tuned", t)], "PASS") for t in TARGETS}
        untuned = {t: us_of(c[("untuned", t)], "PASS") for t in TARGETS}
        pt = {mode: us_of(r, "ok") for mode, r in p.items()}
        best_t = min((t for t in TARGETS if tuned[t] is not None), key=lambda t: tuned[t], default=None)
        best_pt = min((v for v in pt.values() if v is not None), default=None)
        ratio = best_pt / tuned[best_t] if best_t and best_pt else None
        cells.append(fmt(ratio, ".2f"))
        unt = [untuned[t] / tuned[t] if untuned[t] and tuned[t] else None for t in TARGETS]
        cells.append(" / ".join(fmt(x, ".2f") for x in unt))
        peaks = [num(r.get("peak_MB")) for r in p.values() if r is not None and r.get("status") == "ok"]
        least = min((x for x in peaks if x is not None), default=None)
        mem = num(c[("tuned", best_t)].get("mem_MB")) if best_t else None
        cells.append(f"{fmt(mem, mem_spec(mem))} / {fmt(least, mem_spec(least))}")
        errs = [num(r.get("rel_l2")) for r in c.values() if r is not None and r.get("status") in ("PASS", "FAIL")]
        errs = [e for e in errs if e is not None]
        perrs = [num(r.get("rel_l2")) for r in p.values() if r is not None and num(r.get("rel_l2")) is not None]
        cells.append(f"{fmt(max(errs) if errs else None, '.2g')} / {fmt(max(perrs) if perrs else None, '.2g')}")
        print("| " + " | ".join(cells) + " |")

        if ratio is not None:
            counted += 1
            ratios.append(ratio)
            beats_graph += pt["graph"] is not None and tuned[best_t] < pt["graph"]
            beats_compile += pt["compile_graph"] is not None and tuned[best_t] < pt["compile_graph"]
            mem_less += mem is not None and least is not None and mem < least
        within2 += all(x is not None and x <= 2 for x in unt)
        correct += all(r is not None and r.get("status") == "PASS" for r in c.values())
        # the reference of both sides: the same model and input (the L2 norm of the float64 output)
        refs = [num(r.get("ref_l2")) for r in list(c.values()) + list(p.values()) if r is not None]
        refs = [x for x in refs if x]
        mismatch = refs and (max(refs) - min(refs)) > 1e-5 * max(refs)
        details.append((m, c, imp, tune, p, mismatch))

    n = len(models)
    print()
    if ratios:
        print(f"- best PyTorch / convgen (tuned, the faster target): geometric mean {geomean(ratios):.2f} "
              f"({min(ratios):.2f} .. {max(ratios):.2f}) over {len(ratios)} models")
    print(f"- convgen tuned faster than PyTorch's CUDA graph on {beats_graph} of {n}, than torch.compile replayed "
          f"from a CUDA graph on {beats_compile} of {n}; less device memory than PyTorch's least peak on "
          f"{mem_less} of {n}")
    print(f"- untuned within 2x of tuned under both targets on {within2} of {n}; all four infers PASS on "
          f"{correct} of {n}")
    gpus = sorted({i["gpu"].split(",")[0] for i in infos if i.get("gpu")}
                  | {r["device"] for r in torch.values() if r.get("device")})
    if len(gpus) > 1:
        print(f"- WARNING: the calls ran on different GPUs ({', '.join(gpus)}): their times do not compare")
    bad = [NAMES.get(d[0], d[0]) for d in details if d[5]]
    if bad:
        print(f"- WARNING: the float64 references of convgen's and PyTorch's runs differ (ref_l2): {', '.join(bad)}")

    print()
    print("| model | convolutions (distinct) | untuned kernels CUDA, OpenCL: own / other target / similar layer / "
          "direct | tune: --time, wall s, layers with a kernel, measured | tuned OpenCL: other target | "
          "PyTorch peak MB eager / graph / compile / compile+graph | compile s | weights MB |")
    print("|---|---|---|---|---|---|---|---|")
    for m, c, imp, tune, p, _ in details:
        def kernels(r):
            if r is None or not r.get("own"):
                return "-"
            return "/".join(r.get(k) or "0" for k in ("own", "other_target", "nearest", "direct"))
        conv_cell = f"{imp.get('convs')} ({imp.get('distinct')})" if imp is not None and imp.get("convs") else "-"
        un = ", ".join(kernels(c[("untuned", t)]) for t in TARGETS)
        if tune is None:
            tn = "not run"
        elif tune.get("status", "").startswith("skipped"):
            tn = tune["status"]
        else:
            tn = (f"{tune.get('tune_s')} s, {tune.get('wall_s')} s, {tune.get('layers_tuned') or '?'} of "
                  f"{tune.get('layers') or '?'}, {tune.get('measured') or '?'}"
                  + ("" if tune.get("status") == "ok" else f" ({tune.get('status')})"))
        oc = c[("tuned", "opencl")]
        other = oc.get("other_target") or "-" if oc is not None else "-"
        peaks = " / ".join((p[k] or {}).get("peak_MB") or "-" for k in ("eager", "graph", "compile", "compile_graph"))
        cs = next((r.get("compile_s") for r in p.values() if r is not None and r.get("compile_s")), "-")
        w = next((r.get("weights_MB") for r in p.values() if r is not None and r.get("weights_MB")), "-")
        print(f"| {NAMES.get(m, m)} | {conv_cell} | {un} | {tn} | {other} | {peaks} | {cs} | {w} |")


if __name__ == "__main__":
    main()
