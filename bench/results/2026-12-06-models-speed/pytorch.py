#!/usr/bin/env python3
"""pytorch.py: PyTorch's times and peak device memory for issue 30's models,
on the GPU machine (torch, torchvision and onnx there; not run by the suite).

    pytorch.py [--models all|NAME,NAME...] [--csv OUT.csv] [--logs DIR] [--runs 20]
               [--budget SECONDS] [--model-timeout SECONDS] [--compile-timeout SECONDS]

The models are export.py's (../2026-12-06-models-h100/export.py, its MODELS
list read from that file, never copied), built as export.py builds them:
torch.manual_seed(0), the constructor, eval mode, wrapped in its Out (a dict
output as its tensor), then the input torch.rand(1, 3, side, side) * 2 - 1;
so the weights and the input are the ONNX file's and its _input.pb's. The
reference is the model's output in float64 on the CPU (export.py's
_output.pb is the same values stored as float32; the CSV's ref_l2, its L2
norm, lets table.py check that convgen.sh's reference is this one).

On the GPU: batch 1, fp32, TF32 off for matmuls and cuDNN, cudnn.benchmark
on, everything under torch.no_grad(). Four modes, each output checked
against the reference first (relative L2 at most 1e-4, else not timed),
each timed by convgen's protocol (bench/models.py's time_fn, imported: after
warm-up, --runs batches of R calls back to back between two CUDA events, R
so that a batch spans about 2 ms, the median per call and the spread):

  eager          the module called
  graph          one eager call captured by hand into a CUDA graph
                 (torch.cuda.graph, after warm-up on a side stream), replayed
  compile        torch.compile(model) with torch._inductor.config.freezing =
                 True (default mode: no max-autotune, no CUDA graphs of its
                 own), called
  compile_graph  that compiled model, warmed up, captured by hand into a
                 CUDA graph as for graph, replayed: torch.compile "replayed
                 from a CUDA graph" (not mode="reduce-overhead", whose
                 cudagraph trees add their host-side checks to every call)

peak_MB is torch.cuda.max_memory_allocated() over the mode, the weights
included: for eager and compile from a reset after warm-up through the
timing (cudnn.benchmark's trial workspaces of the first calls excluded);
for graph and compile_graph from a reset just before the capture, so that
the graph's private pool (its intermediates) is counted. compile's peak
includes the module's own weights, which the compiled model keeps beside its
frozen (folded) constants: what a user of torch.compile holds (weights_MB
says how much the weights are).

Each model runs in a child process of its own (a fresh CUDA context, clean
memory statistics, and a compile that hangs can be killed): the first call
of the compiled model (where Dynamo traces, Inductor compiles and Triton
autotunes) is bounded by --compile-timeout (SIGALRM in the child: the modes
compile and compile_graph are then reported as "compile over N s"), and the
whole child by --model-timeout (killed with its process group; the modes it
did not report are "killed after N s"). --budget bounds the whole run: a
model that would start with less than 40 s left is "skipped (budget)", and
a child's timeouts shrink to what is left. The CSV is rewritten after each
model, so a run cut short keeps every model it finished.

Columns: model, mode, us, spread, peak_MB, rel_l2 (the brief's), then
status (ok, or why there is no time), reps, runs, compile_s (the first
compiled call's wall time), weights_MB (parameters and buffers), ref_l2,
torch, device.

Time: per model about 5 s to start the child (import torch, CUDA), 1-5 s
for the float64 reference on the CPU, 2-5 s for eager and graph
(cudnn.benchmark's trials), 15-60 s for torch.compile (cold Inductor cache),
under 1 s per timing: 12 models in about 5-9 minutes on a 16-core H200
machine (round 31's models.py did ResNet-50, MobileNet V2 and VGG-16 with
export, eager, graph and torch.compile in 36 s, without freezing).
"""
import argparse
import ast
import csv
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(os.path.dirname(HERE))
EXPORT_PY = os.path.join(BENCH, "results", "2026-12-06-models-h100", "export.py")
MODELS_PY = os.path.join(BENCH, "models.py")
FIELDS = ["model", "mode", "us", "spread", "peak_MB", "rel_l2", "status", "reps", "runs", "compile_s", "weights_MB",
          "ref_l2", "torch", "device"]
MODES = ["eager", "graph", "compile", "compile_graph"]
MIN_LEFT_S = 40   # a model is not started with less than this left of --budget


def model_names():
    """The names of export.py's MODELS, read from its source (the parent
    imports no torch)."""
    tree = ast.parse(open(EXPORT_PY).read(), EXPORT_PY)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "MODELS" for t in node.targets):
            return [elt.elts[0].value for elt in node.value.elts]
    sys.exit(f"pytorch.py: no MODELS list in {EXPORT_PY}")


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ---- the child: one model, every mode ----

class CompileTimeout(Exception):
    pass


def child(o):
    import torch
    ex = load("export_models", EXPORT_PY)   # MODELS and Out, as export.py builds them
    bm = load("bench_models", MODELS_PY)    # time_fn, rel_l2, TOL: convgen's protocol
    make, side = {n: (mk, s) for n, mk, s in ex.MODELS}[o.child]
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    base = {"model": o.child, "runs": o.runs, "torch": torch.__version__, "device": torch.cuda.get_device_name()}
    part = open(o.part, "a")

    def emit(mode, **kw):
        row = dict(base, mode=mode, **kw)
        part.write(json.dumps(row) + "\n")
        part.flush()
        shown = {k: v for k, v in row.items() if k not in ("model", "torch", "device", "runs")}
        print(f"{o.child}: {shown}", flush=True)

    torch.manual_seed(0)   # export.py's order: the model, then the input
    m = ex.Out(make()).eval()
    x = torch.rand(1, 3, side, side) * 2 - 1
    t = time.time()
    with torch.no_grad():
        ref = m.double()(x.double())
    m = m.float()
    base["ref_l2"] = f"{float(ref.norm()):.9g}"
    base["weights_MB"] = "%.3f" % (sum(p.numel() * p.element_size() for p in list(m.parameters()) + list(m.buffers()))
                                   / 1e6)
    print(f"{o.child}: float64 reference on the CPU in {time.time() - t:.1f} s", flush=True)
    dev, xd = m.cuda(), x.cuda()
    sync = torch.cuda.synchronize

    def timed(mode, call, out, reset=True, **extra):
        """out checked against ref; if correct, call timed; peak since the
        last reset (reset here unless the caller reset before a capture)."""
        err = bm.rel_l2(out.cpu(), ref)   # copied to the host first: no device allocation in the peak
        if not err <= bm.TOL:
            return emit(mode, rel_l2=f"{err:.3g}", status=f"wrong: relative L2 {err:.3g} over {bm.TOL}", **extra)
        if reset:
            sync()
            torch.cuda.reset_peak_memory_stats()
        us, spread, reps = bm.time_fn(torch, call, o.runs)
        peak = torch.cuda.max_memory_allocated()
        emit(mode, us=f"{us:.1f}", spread=f"{spread:.3f}", peak_MB=f"{peak / 1e6:.1f}", rel_l2=f"{err:.3g}",
             status="ok", reps=reps, **extra)

    def capture(fn):
        """fn warmed up on a side stream, then one call captured; the graph
        and its static output. The peak is reset before the capture."""
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                fn()
        torch.cuda.current_stream().wait_stream(side)
        sync()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            y = fn()
        g.replay()
        sync()
        return g, y

    with torch.no_grad():
        for _ in range(3):   # cudnn.benchmark's trials happen here
            dev(xd)
        sync()
        try:
            timed("eager", lambda: dev(xd), dev(xd))
        except Exception as e:   # noqa: BLE001 - reported, the next mode
            emit("eager", status=f"error: {str(e).splitlines()[0][:200]}")
        try:
            g, y = capture(lambda: dev(xd))
            timed("graph", g.replay, y, reset=False)
            del g, y
        except Exception as e:   # noqa: BLE001
            emit("graph", status=f"error: {str(e).splitlines()[0][:200]}")
        sync()
        torch.cuda.empty_cache()

        import torch._inductor.config as inductor_config
        inductor_config.freezing = True
        compiled = torch.compile(dev)

        def alarm(signum, frame):
            raise CompileTimeout()
        signal.signal(signal.SIGALRM, alarm)
        signal.alarm(max(1, int(o.compile_timeout)))
        t = time.time()
        try:
            out = compiled(xd)
            sync()
        except CompileTimeout:
            for mode in ("compile", "compile_graph"):
                emit(mode, status=f"compile over {int(o.compile_timeout)} s", compile_s=f"{time.time() - t:.1f}")
            return
        except Exception as e:   # noqa: BLE001
            for mode in ("compile", "compile_graph"):
                emit(mode, status=f"compile error: {str(e).splitlines()[0][:200]}", compile_s=f"{time.time() - t:.1f}")
            return
        finally:
            signal.alarm(0)
        cs = f"{time.time() - t:.1f}"
        print(f"{o.child}: torch.compile's first call (freezing) {cs} s", flush=True)
        try:
            timed("compile", lambda: compiled(xd), out, compile_s=cs)
        except Exception as e:   # noqa: BLE001
            emit("compile", status=f"error: {str(e).splitlines()[0][:200]}", compile_s=cs)
        del out
        try:
            g, y = capture(lambda: compiled(xd))
            timed("compile_graph", g.replay, y, reset=False, compile_s=cs)
        except Exception as e:   # noqa: BLE001
            emit("compile_graph", status=f"capture error: {str(e).splitlines()[0][:200]}", compile_s=cs)


# ---- the parent: one child per model, bounded ----

def write_csv(path, rows):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, path)


def run_model(o, name, left, rows):
    model_timeout = min(o.model_timeout, left)
    compile_timeout = max(5, min(o.compile_timeout, model_timeout - 30))
    part = os.path.join(o.logs, f"{name}.jsonl")
    if os.path.exists(part):
        os.remove(part)
    cmd = [sys.executable, os.path.abspath(__file__), "--child", name, "--part", part, "--runs", str(o.runs),
           "--compile-timeout", str(compile_timeout)]
    t = time.time()
    with open(os.path.join(o.logs, f"{name}.log"), "w") as log:
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        killed = False
        try:
            rc = p.wait(timeout=model_timeout)
        except subprocess.TimeoutExpired:
            killed = True
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            rc = p.wait()
    got = []
    if os.path.exists(part):
        for line in open(part):
            try:
                got.append(json.loads(line))
            except ValueError:
                pass   # a line cut by the kill
    seen = {r["mode"] for r in got}
    why = f"killed after {model_timeout:.0f} s" if killed else f"child exit {rc}"
    for mode in MODES:
        if mode not in seen:
            got.append({"model": name, "mode": mode, "status": why, "runs": o.runs})
    rows.extend(got)
    print(f"{name}: {time.time() - t:.0f} s" + (f" ({why})" if killed or rc else ""), file=sys.stderr, flush=True)
    for r in got:
        print(f"{name:30s} {r['mode']:14s} {r.get('us') or '-':>9} us  peak {r.get('peak_MB') or '-':>7} MB"
              f"  rel L2 {r.get('rel_l2') or '-':>9}  {r['status']}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="all", help="all, or names from export.py's MODELS, comma-separated")
    ap.add_argument("--csv", default="pytorch.csv")
    ap.add_argument("--logs", default="pytorch-logs", help="a log and a JSON-lines file per model")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--budget", type=float, default=520, help="seconds for the whole run")
    ap.add_argument("--model-timeout", type=float, default=180, help="seconds for one model's child")
    ap.add_argument("--compile-timeout", type=float, default=120, help="seconds for torch.compile's first call")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--part", help=argparse.SUPPRESS)
    o = ap.parse_args()
    if o.child:
        child(o)
        sys.stdout.flush()
        os._exit(0)   # every row is written: no wait for Inductor's compile workers to wind down
    names = model_names()
    wanted = names if o.models == "all" else [n for n in o.models.split(",") if n]
    unknown = [n for n in wanted if n not in names]
    if unknown:
        sys.exit(f"pytorch.py: not in export.py's MODELS: {', '.join(unknown)} (they are: {', '.join(names)})")
    os.makedirs(o.logs, exist_ok=True)
    end = time.time() + o.budget
    rows = []
    for name in wanted:
        left = end - time.time()
        if left < MIN_LEFT_S:
            rows.extend({"model": name, "mode": mode, "status": "skipped (budget)", "runs": o.runs} for mode in MODES)
            print(f"{name}: skipped, {left:.0f} s left of --budget", file=sys.stderr, flush=True)
        else:
            run_model(o, name, left, rows)
        write_csv(o.csv, rows)


if __name__ == "__main__":
    main()
