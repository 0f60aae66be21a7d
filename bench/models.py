#!/usr/bin/env python3
"""models.py: whole CNNs for `convgen infer` and their PyTorch baselines, on
the GPU machine (issue 16's targets). Not run by the suite: it needs torch,
torchvision and the onnx package (bench/results/next/run.sh says how the
onnx wheel travels).

    bench/models.py OUT [--models resnet50,mobilenet_v2,vgg16] [--runs N] [--csv OUT.csv] [--export-only]

For each model (torchvision's architecture, random weights from a fixed
seed, every batch norm given random statistics so that folding them is
tested, eval mode, batch 1, 3x224x224):
  OUT/NAME.onnx          torch.onnx.export (opset 17, the TorchScript exporter)
  OUT/NAME_input.pb      an input, uniform in [-1, 1)
  OUT/NAME_output.pb     the model's output for it in float64 on the CPU: what
                         `convgen infer --expect` compares with (1e-4)
and PyTorch's own times on the GPU, fp32 with TF32 off, cudnn.benchmark on:
eager (per call and replayed from a CUDA graph) and torch.compile, each timed
as convgen times everything (src/measure/measure.h: after warm-up, --runs
batches of R runs back to back between two CUDA events, R so that a batch
spans about 2 ms, the median over the batches), with the peak device memory
torch allocated for the run (torch.cuda.max_memory_allocated, weights
included). Each mode's output is checked against the float64 one first.
"""
import argparse
import csv
import sys
import time

BATCH_MS, MIN_REPS, MAX_REPS, TOL = 2.0, 1, 200, 1e-4   # as measure.h


def rel_l2(got, ref):
    d = (got.double().cpu() - ref).norm()
    n = ref.norm()
    return float(d / n) if float(n) > 0 else float(d)


def write_tensor(numpy_helper, path, array, name):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array, name).SerializeToString())


def make_model(torch, tv, name):
    torch.manual_seed(7)
    model = {"resnet50": tv.resnet50, "mobilenet_v2": tv.mobilenet_v2, "vgg16": tv.vgg16}[name](weights=None)
    g = torch.Generator().manual_seed(11)
    for m in model.modules():   # batch norms with statistics of their own: the fold is exercised
        if isinstance(m, torch.nn.BatchNorm2d):
            c = m.num_features
            m.running_mean.copy_(torch.randn(c, generator=g) * 0.1)
            m.running_var.copy_(torch.rand(c, generator=g) + 0.5)
            m.weight.data.copy_(torch.rand(c, generator=g) + 0.5)
            m.bias.data.copy_(torch.randn(c, generator=g) * 0.1)
    return model.eval()


def time_fn(torch, fn, runs):
    """measure.h's protocol: a per-run time (us) and the spread over runs batches."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    torch.cuda.synchronize()
    reps = max(MIN_REPS, min(MAX_REPS, int(BATCH_MS / max(start.elapsed_time(end), 1e-6))))
    for _ in range(3):
        fn()
    times = []
    for _ in range(runs):
        start.record()
        for _ in range(reps):
            fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / reps)
    times.sort()
    med = times[len(times) // 2] if len(times) % 2 else (times[len(times) // 2 - 1] + times[len(times) // 2]) / 2
    return med, (times[-1] - times[0]) / med, reps


def ort_rows(o, name, path, x, ref, rows):
    """onnxruntime on the exported file: its output against the float64 one
    (the check the issue asks of convgen's), and its time by the same
    protocol under each provider the installed package has (the CPU
    package has no CUDA one: then said)."""
    try:
        import onnxruntime as ort
        import torch
    except ImportError as e:
        print(f"{name}: onnxruntime unavailable: {e}", file=sys.stderr)
        return
    have = ort.get_available_providers()
    print(f"{name}: onnxruntime {ort.__version__}, providers {have}", file=sys.stderr)
    for prov in ("CUDAExecutionProvider", "CPUExecutionProvider"):
        if prov not in have:
            continue
        sess = ort.InferenceSession(path, providers=[prov])
        feed = {sess.get_inputs()[0].name: x.numpy()}
        err = rel_l2(torch.from_numpy(sess.run(None, feed)[0]), ref)
        start = time.perf_counter()   # host wall time: onnxruntime's run is synchronous
        reps = 0
        while time.perf_counter() - start < 1.0 or reps < 3:
            sess.run(None, feed)
            reps += 1
        us = (time.perf_counter() - start) * 1e6 / reps
        rows.append({"model": name, "method": f"onnxruntime {prov[:-len('ExecutionProvider')].lower()}",
                     "median_us": f"{us:.1f}", "spread": "", "reps": reps, "runs": 1, "error": f"{err:.3g}",
                     "peak_bytes": "", "torch": f"onnxruntime {ort.__version__}"})
        print(f"{name:14s} onnxruntime {prov:22s} {us:10.1f} us (host wall, mean of {reps})  error {err:.2g}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--models", default="resnet50,mobilenet_v2,vgg16")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--csv")
    ap.add_argument("--export-only", action="store_true", help="write the files, time nothing")
    o = ap.parse_args()
    try:
        import torch
        import torchvision.models as tv
        from onnx import numpy_helper
    except ImportError as e:
        sys.exit(f"models.py: {e} (needs torch, torchvision and onnx)")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    rows = []
    for name in o.models.split(","):
        model = make_model(torch, tv, name)
        g = torch.Generator().manual_seed(3)
        x = torch.rand(1, 3, 224, 224, generator=g) * 2 - 1
        with torch.no_grad():
            ref = model.double()(x.double())
        model = model.float()
        path = f"{o.out}/{name}.onnx"
        try:   # the TorchScript exporter; the dynamo one (onnxscript) where a torch has dropped it
            torch.onnx.export(model, x, path, opset_version=17, input_names=["input"], output_names=["output"],
                              dynamo=False)
        except Exception as e:   # noqa: BLE001 (said, then the other exporter)
            print(f"{name}: TorchScript export failed ({e}); the dynamo exporter", file=sys.stderr)
            torch.onnx.export(model, (x,), path, opset_version=18, input_names=["input"], output_names=["output"],
                              dynamo=True, external_data=False)
        write_tensor(numpy_helper, f"{o.out}/{name}_input.pb", x.numpy(), "input")
        write_tensor(numpy_helper, f"{o.out}/{name}_output.pb", ref.float().numpy(), "output")
        print(f"{name}: wrote {path} and its input and float64 output", file=sys.stderr)
        ort_rows(o, name, path, x, ref, rows)
        if o.export_only:
            continue
        dev = model.cuda()
        xd = x.cuda()
        modes = {"eager": lambda: dev(xd)}
        with torch.no_grad():   # eager replayed from a CUDA graph of one call
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    dev(xd)
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                static_y = dev(xd)
        modes["graph"] = lambda: (graph.replay(), static_y)[1]
        try:
            compiled = torch.compile(dev)
            modes["compile"] = lambda: compiled(xd)
        except Exception as e:   # noqa: BLE001 (reported, the others go on)
            print(f"{name}: torch.compile unavailable: {e}", file=sys.stderr)
        for mode, call in list(modes.items()):
            with torch.no_grad():
                try:
                    err = rel_l2(call(), ref)
                except Exception as e:   # noqa: BLE001 (torch.compile fails at its first call)
                    print(f"{name} {mode}: {e}", file=sys.stderr)
                    continue
                if not err <= TOL:
                    print(f"{name} {mode}: relative L2 error {err:.3g}: not timed", file=sys.stderr)
                    continue
                torch.cuda.reset_peak_memory_stats()
                us, spread, reps = time_fn(torch, call, o.runs)
                peak = torch.cuda.max_memory_allocated()
            rows.append({"model": name, "method": f"pytorch {mode}", "median_us": f"{us:.1f}", "spread": f"{spread:.3f}",
                         "reps": reps, "runs": o.runs, "error": f"{err:.3g}", "peak_bytes": peak,
                         "torch": torch.__version__})
            print(f"{name:14s} pytorch {mode:8s} {us:10.1f} us  spread {spread * 100:.1f}%  peak {peak / 1e6:.1f} MB"
                  f"  error {err:.2g}")
    if o.csv and rows:
        with open(o.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
