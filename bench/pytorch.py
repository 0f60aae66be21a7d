#!/usr/bin/env python3
"""pytorch.py: the check on `convgen bench`'s cuDNN row. PyTorch calling
cuDNN as its best users call it, on the layers of a bench CSV, timed by the
protocol convgen bench follows.

    bench/pytorch.py bench.csv [--csv OUT.csv] [--runs N] [--reps R] [--warmup N]
    bench/pytorch.py --spec 'n=1,c=128,h=56,w=56,k=256,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1' ...

Per layer (its name and canonical spec from the CSV's layer and spec
columns, or --spec): F.conv2d with the layer's bias, then its residual
(residual=1: an input of the output's shape, added as PyTorch's users add a
ResNet block's shortcut, y + r), then its activation
as PyTorch's own function (torch.relu, F.relu6, F.hardtanh for clip,
F.leaky_relu, torch.sigmoid, F.hardswish), torch.backends.cudnn.benchmark
on (cuDNN's algorithms timed on the first call, the fastest kept), in the
layer's precision: --precision, or its spec's precision= (fp32 when neither
says): fp32 with TF32 off everywhere; fp16, every tensor half and in
channels_last (NHWC), as PyTorch's users run half convolutions on tensor
cores; tf32, fp32 tensors with PyTorch's default for convolutions,
cudnn.allow_tf32 on. Inputs uniform in [-1, 1) (for fp16 rounded to half,
the reference reading the same halves); the output checked against a
float64 conv2d of the same inputs before anything is timed, within 1e-4
relative L2 error (fp16: 1e-4 + 2^-11, the half output's rounding, as
convgen's check of an fp16 layer; tf32: 1e-4 + 4 * 2^-11, TF32's operands
over a sum, as convgen's check of a tf32 layer and bench's cuDNN row,
MEAS_TF32_TOL in src/measure/measure.h). Two modes:
    per-call  R calls back to back on the current stream
    graph     a CUDA graph of R calls, captured once and replayed
each timed as convgen bench times every method: after warm-up, --runs
batches, each one span between two CUDA events over R; the median over the
batches and the spread ((max - min) / median). R is --reps, else chosen from
one call's time so that a batch spans about 2 ms (1 to 200 calls), as
src/measure/measure.c chooses it. The kernels one call runs (torch.profiler)
are listed with their device times.

Output: a table on standard output, progress on standard error, and with
--csv one row per layer and mode.
"""
import argparse
import csv
import math
import re
import sys

BATCH_MS, MIN_REPS, MAX_REPS = 2.0, 1, 200   # measure.h's MEAS_BATCH_MS, MEAS_MIN_REPS, MEAS_MAX_REPS
TOL = {"fp32": 1e-4, "fp16": 1e-4 + 2.0 ** -11, "tf32": 1e-4 + 4 * 2.0 ** -11}   # relative L2 error, by precision


def spec_items(spec):
    """The items of a spec: its commas outside parentheses (act=clip(0,6) is one)."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(spec):
        depth += ch == "("
        depth -= ch == ")" and depth > 0
        if ch == "," and depth == 0:
            items.append(spec[start:i])
            start = i + 1
    return items + [spec[start:]]


def parse_act(text, spec):
    """act=NAME or NAME(ARGS) as (name, [floats])."""
    m = re.fullmatch(r"\s*([a-z0-9]+)\s*(?:\((.*)\))?\s*", text)
    if not m:
        sys.exit(f"pytorch.py: bad activation '{text}' in '{spec}'")
    args = [float(a) for a in m.group(2).split(",")] if m.group(2) else []
    return m.group(1), args


def activation(torch, F, v):
    """The layer's activation as PyTorch's own function, and the same on float64."""
    name, a = v["act"]
    return {"none": lambda y: y, "relu": torch.relu, "relu6": F.relu6,
            "clip": lambda y: F.hardtanh(y, a[0], a[1]), "leaky": lambda y: F.leaky_relu(y, a[0]),
            "sigmoid": torch.sigmoid, "hardswish": F.hardswish}[name]


def parse_spec(spec):
    """The canonical layer form (convgen's layer_format) as a dict of ints (act: (name, args))."""
    v = {"n": 1, "kh": 3, "kw": 3, "bias": 0, "relu": 0, "groups": 1}
    for item in spec_items(spec):
        key, sep, val = item.strip().partition("=")
        if key.strip() == "act" and sep:
            v["act"] = parse_act(val, spec)
            continue
        if key.strip() == "precision" and sep:
            if val.strip() not in TOL:
                sys.exit(f"pytorch.py: precision '{val.strip()}' in '{spec}' is not one of {', '.join(TOL)}")
            v["precision"] = val.strip()
            continue
        if not sep or not val.strip().lstrip("-").isdigit():
            sys.exit(f"pytorch.py: bad layer spec item '{item}' in '{spec}'")
        v[key.strip()] = int(val)
    for a, b in (("stride", ("stride_h", "stride_w")), ("pad", ("pad_h", "pad_w")),
                 ("dilation", ("dilation_h", "dilation_w"))):
        for k in b:
            v.setdefault(k, v.get(a, 0 if a == "pad" else 1))
    # each side (ONNX's pads): pad_h and pad_w give both sides unless one is named
    for side, pair in (("pad_top", "pad_h"), ("pad_bottom", "pad_h"), ("pad_left", "pad_w"), ("pad_right", "pad_w")):
        v.setdefault(side, v[pair])
    v.setdefault("act", ("relu", []) if v["relu"] else ("none", []))
    missing = [k for k in ("c", "h", "w", "k") if k not in v]
    if missing:
        sys.exit(f"pytorch.py: layer spec '{spec}' lacks {', '.join(missing)}")
    return v


def layers_from(args):
    out = []
    for path in args.bench_csv:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if (r["layer"], r["spec"]) not in out:
                    out.append((r["layer"], r["spec"]))
    out += [(s, s) for s in args.spec]
    if not out:
        sys.exit("pytorch.py: no layers (give a bench CSV or --spec)")
    return out


def reps_for(one_ms, asked):
    if asked > 0:
        return asked
    r = math.ceil(BATCH_MS / one_ms) if one_ms > 0 else MAX_REPS
    return max(MIN_REPS, min(MAX_REPS, r))


def span_ms(torch, fn):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop)


def stats(samples):
    s = sorted(samples)
    n = len(s)
    med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    return {"median_us": med * 1e3, "min_us": s[0] * 1e3, "max_us": s[-1] * 1e3,
            "spread": (s[-1] - s[0]) / med if med else 0.0}


def timed(torch, fn, reps, args):
    """Warm-up, then args.runs batches of fn (which runs reps calls)."""
    for _ in range(max(1, args.warmup)):
        fn()
    torch.cuda.synchronize()
    return stats([span_ms(torch, fn) / reps for _ in range(args.runs)])


def kernels_of(torch, call):
    """The device kernels one call runs, with their times (us)."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        call()
        torch.cuda.synchronize()
    names = []
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            dur = getattr(e, "device_time", None)
            if dur is None:
                dur = e.cuda_time
            names.append(f"{e.name} {dur:.1f} us")
    return "; ".join(names)


def measure(torch, F, name, spec, args):
    v = parse_spec(spec)
    precision = args.precision or v.get("precision", "fp32")
    half = precision == "fp16"
    torch.backends.cudnn.allow_tf32 = precision == "tf32"
    g = torch.Generator(device="cuda").manual_seed(args.seed)
    def uniform(*shape):
        u = torch.rand(*shape, device="cuda", generator=g) * 2 - 1
        return u.half() if half else u
    def nhwc(t):   # half convolutions as PyTorch's users run them: channels_last
        return t.contiguous(memory_format=torch.channels_last) if half else t
    x = nhwc(uniform(v["n"], v["c"], v["h"], v["w"]))
    w = nhwc(uniform(v["k"], v["c"] // v["groups"], v["kh"], v["kw"]))
    b = uniform(v["k"]) if v["bias"] else None
    stride, dilation = (v["stride_h"], v["stride_w"]), (v["dilation_h"], v["dilation_w"])
    sides = (v["pad_left"], v["pad_right"], v["pad_top"], v["pad_bottom"])
    symmetric = sides[0] == sides[1] and sides[2] == sides[3]
    pad = (v["pad_top"], v["pad_left"]) if symmetric else (0, 0)

    act = activation(torch, F, v)

    def conv(x_, w_, b_):   # sides padded unlike: F.pad first, as PyTorch's users do
        return F.conv2d(x_ if symmetric else F.pad(x_, sides), w_, b_, stride, pad, dilation, v["groups"])

    r = uniform(*conv(x, w, b).shape) if v.get("residual", 0) else None   # the output's shape

    def call():
        y_ = conv(x, w, b)
        return act(y_ + r if r is not None else y_)

    y = call()   # cudnn.benchmark picks its algorithm here
    ref = conv(x.double(), w.double(), b.double() if b is not None else None)
    ref = act(ref + r.double() if r is not None else ref)
    err = (torch.linalg.vector_norm(y.double() - ref) / torch.linalg.vector_norm(ref)).item()
    if not math.isfinite(err) or err > TOL[precision]:
        return [{"layer": name, "spec": spec, "mode": m, "precision": precision, "error": err,
                 "why": f"wrong: relative L2 error {err:.3g} over {TOL[precision]:.3g}"} for m in ("per-call", "graph")]
    torch.cuda.synchronize()
    one = min(span_ms(torch, call) for _ in range(3))
    reps = reps_for(one, args.reps)

    def calls():
        for _ in range(reps):
            call()
    rows = []
    base = {"layer": name, "spec": spec, "precision": precision, "error": err, "reps": reps, "runs": args.runs}
    rows.append(dict(base, mode="per-call", **timed(torch, calls, reps, args)))
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):   # warm-up on a side stream, as torch.cuda.graph's docs ask
        for _ in range(3):
            call()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        calls()
    rows.append(dict(base, mode="graph", **timed(torch, graph.replay, reps, args)))
    kernels = kernels_of(torch, call)
    for r in rows:
        r["kernels"] = kernels
    return rows


FIELDS = ["layer", "spec", "mode", "median_us", "min_us", "max_us", "spread", "runs", "reps", "error",
          "torch", "cudnn", "device", "kernels", "why", "precision"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bench_csv", nargs="*", help="convgen bench CSV files: their layers are measured")
    ap.add_argument("--spec", action="append", default=[], help="a layer in convgen's plain form (repeatable)")
    ap.add_argument("--csv", help="write the rows here")
    ap.add_argument("--runs", type=int, default=20, help="timed batches (default 20, at least 10)")
    ap.add_argument("--reps", type=int, default=0, help="calls per batch (default: a batch spans about 2 ms)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed calls before timing (default 3)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the inputs (default 1)")
    ap.add_argument("--precision", choices=sorted(TOL), help="every layer in this precision (default: each "
                    "layer's spec's precision=, else fp32)")
    args = ap.parse_args()
    if args.runs < 10:
        sys.exit("pytorch.py: --runs: the protocol times at least 10 batches")
    layers = layers_from(args)
    for _, spec in layers:   # a bad spec is said before PyTorch is looked for
        parse_spec(spec)
    try:
        import torch
        import torch.nn.functional as F
    except ImportError as e:
        sys.exit(f"pytorch.py: PyTorch is not installed here ({e})")
    if not torch.cuda.is_available():
        sys.exit("pytorch.py: no CUDA device")
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    info = {"torch": torch.__version__, "cudnn": str(torch.backends.cudnn.version()),
            "device": torch.cuda.get_device_name()}
    print(f"PyTorch {info['torch']}, cuDNN {info['cudnn']}, {info['device']}; cudnn.benchmark on; TF32 off but "
          f"for --precision tf32; fp16 in channels_last", file=sys.stderr)
    rows = []
    for i, (name, spec) in enumerate(layers):
        print(f"[{i + 1}/{len(layers)}] {name}", file=sys.stderr)
        for r in measure(torch, F, name, spec, args):
            r.update(info)
            rows.append(r)
            if "median_us" in r:
                print(f"  {r['mode']:9s} {r['median_us']:9.1f} us (spread {r['spread']:.2f}, "
                      f"{r['runs']} x {r['reps']})", file=sys.stderr)
            else:
                print(f"  {r['mode']:9s} {r['why']}", file=sys.stderr)
    print("| layer | PyTorch per call us | PyTorch graph us | kernels of one call |")
    print("|---|---|---|---|")
    by = {}
    for r in rows:
        by.setdefault(r["layer"], {})[r["mode"]] = r
    for name, m in by.items():
        cell = lambda r: f"{r['median_us']:.1f}" if r and "median_us" in r else "-"
        print(f"| {name} | {cell(m.get('per-call'))} | {cell(m.get('graph'))} | "
              f"{(m.get('per-call') or {}).get('kernels', '')} |")
    if args.csv:
        tmp = args.csv + ".part"
        with open(tmp, "w", newline="") as f:
            wr = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
            wr.writeheader()
            for r in rows:
                wr.writerow({k: (f"{r[k]:.6g}" if isinstance(r.get(k), float) else r.get(k, "")) for k in FIELDS})
        import os
        os.replace(tmp, args.csv)
        print(f"pytorch.py: wrote {args.csv}", file=sys.stderr)


if __name__ == "__main__":
    main()
