#!/usr/bin/env python3
"""Writes the small ONNX models of the reductions (src/onnx/reduce.c) that
tests/cli/ops-reduce.sh runs with `convgen infer` (committed, so that the
suite needs no onnx package) into tests/onnx/reduce/:
python3 tests/onnx/make_reduce.py [DIR].
Inputs from a fixed seed; expected outputs by numpy in float64 from the
float32 inputs; the onnx package's checker passes each model.

reduce13.onnx (opset 13: axes an attribute, ReduceSum's an input) on
  x [2, 3, 4, 5] in [-1, 1) and p [2, 3, 4, 5] in [0.5, 2): ReduceMean over
  [2, 3] kept (squeeze-excite's), ReduceMax over [1] dropped, ReduceMin over
  [-1, 0] kept (not contiguous, negative), ReduceProd over [0, 2] dropped,
  ReduceL2 over every axis kept, ReduceL1 over [3], ReduceSumSquare over
  [1, 3] dropped, ReduceLogSum of p over [2], ReduceLogSumExp over [1, 2]
  dropped, ReduceSum with axes [1, -1] as an initializer, ReduceSum with an
  empty axes initializer (every axis, dropped: a scalar), GlobalMaxPool.
reduce18.onnx (opset 18: axes an input) on x [2, 3, 4, 5]: ReduceMean over
  [2, 3] dropped (MNASNet's, EfficientNet's), ReduceMax over [-3] kept,
  ReduceL2 with no axes (every axis) dropped, ReduceMin with no axes and
  noop_with_empty_axes (a copy), ReduceProd over [1, 3] kept, ReduceSum with
  an empty axes initializer and noop_with_empty_axes (a copy).
reduce11.onnx (opset 11) on x [3, 4]: ReduceSum over [0] dropped,
  ReduceMean with no axes kept, GlobalMaxPool of a 3-D input.
layernorm.onnx (opset 17) on x [2, 3, 8]: LayerNormalization over the last
  axis with Scale and B [8]; over axes 1 and 2 (axis -2) with Scale [8]
  broadcast to [3, 8] and no B, epsilon 1e-3.
Each with NAME_input_K.pb and NAME_output_K.pb.

bad_reduce_*.onnx, bad_layernorm_*.onnx: one node each that import refuses
  (an axis past the rank, an axis twice, axes as an attribute in opset 18,
  axes a graph input (its values known only when it runs), LayerNormalization's axis past the rank and a
  Scale that does not broadcast).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(30)
SHAPE = (2, 3, 4, 5)


def i64(name, values):
    return numpy_helper.from_array(np.array(values, np.int64), name)


def vi(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def save(out, name, graph, opset, inputs, outputs):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="convgen tests")
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(out, name + ".onnx"))
    for k, (n, a) in enumerate(inputs):
        onnx.save_tensor(numpy_helper.from_array(a, n), os.path.join(out, "%s_input_%d.pb" % (name, k)))
    for k, (n, a) in enumerate(outputs):
        onnx.save_tensor(numpy_helper.from_array(np.asarray(a).astype(np.float32), n),
                         os.path.join(out, "%s_output_%d.pb" % (name, k)))


class Graph:
    """Nodes on float64 copies of the inputs, each output computed by numpy."""

    def __init__(self, inputs):
        self.inputs = inputs                      # [(name, float32 array)]
        self.vals = {n: a.astype(np.float64) for n, a in inputs}
        self.nodes, self.inits, self.outs = [], [], []

    def node(self, op, inputs, y, value, **attrs):
        self.nodes.append(helper.make_node(op, inputs, [y], name=y, **attrs))
        self.outs.append((y, np.asarray(value)))

    def graph(self, name):
        return helper.make_graph(self.nodes, name, [vi(n, a.shape) for n, a in self.inputs],
                                 [vi(n, a.shape) for n, a in self.outs], self.inits)


def reduce13(out):
    x = rng.uniform(-1, 1, SHAPE).astype(np.float32)
    p = rng.uniform(0.5, 2, SHAPE).astype(np.float32)
    g = Graph([("x", x), ("p", p)])
    X, P = g.vals["x"], g.vals["p"]
    g.node("ReduceMean", ["x"], "mean_hw", X.mean(axis=(2, 3), keepdims=True), axes=[2, 3], keepdims=1)
    g.node("ReduceMax", ["x"], "max_c", X.max(axis=1), axes=[1], keepdims=0)
    g.node("ReduceMin", ["x"], "min_w_n", X.min(axis=(0, 3), keepdims=True), axes=[-1, 0], keepdims=1)
    g.node("ReduceProd", ["x"], "prod_n_h", X.prod(axis=(0, 2)), axes=[0, 2], keepdims=0)
    g.node("ReduceL2", ["x"], "l2_all", np.sqrt((X * X).sum(keepdims=True)))
    g.node("ReduceL1", ["x"], "l1_w", np.abs(X).sum(axis=3, keepdims=True), axes=[3])
    g.node("ReduceSumSquare", ["x"], "sumsq_c_w", (X * X).sum(axis=(1, 3)), axes=[1, 3], keepdims=0)
    g.node("ReduceLogSum", ["p"], "logsum_h", np.log(P.sum(axis=2, keepdims=True)), axes=[2])
    m = X.max(axis=(1, 2), keepdims=True)
    g.node("ReduceLogSumExp", ["x"], "lse_c_h", (m + np.log(np.exp(X - m).sum(axis=(1, 2), keepdims=True))).squeeze((1, 2)),
           axes=[1, 2], keepdims=0)
    g.inits += [i64("axes_c_w", [1, -1]), i64("no_axes", np.zeros(0, np.int64))]
    g.node("ReduceSum", ["x", "axes_c_w"], "sum_c_w", X.sum(axis=(1, 3), keepdims=True))
    g.node("ReduceSum", ["x", "no_axes"], "sum_all", X.sum(), keepdims=0)
    g.node("GlobalMaxPool", ["x"], "gmax", X.max(axis=(2, 3), keepdims=True))
    save(out, "reduce13", g.graph("reduce13"), 13, g.inputs, g.outs)


def reduce18(out):
    x = rng.uniform(-1, 1, SHAPE).astype(np.float32)
    g = Graph([("x", x)])
    X = g.vals["x"]
    g.inits += [i64("hw", [2, 3]), i64("c", [-3]), i64("c_w", [1, 3]), i64("none", np.zeros(0, np.int64))]
    g.node("ReduceMean", ["x", "hw"], "mean_hw", X.mean(axis=(2, 3)), keepdims=0)
    g.node("ReduceMax", ["x", "c"], "max_c", X.max(axis=1, keepdims=True))
    g.node("ReduceL2", ["x"], "l2_all", np.sqrt((X * X).sum()), keepdims=0)
    g.node("ReduceMin", ["x"], "copy_min", X, noop_with_empty_axes=1)
    g.node("ReduceProd", ["x", "c_w"], "prod_c_w", X.prod(axis=(1, 3), keepdims=True))
    g.node("ReduceSum", ["x", "none"], "copy_sum", X, noop_with_empty_axes=1)
    save(out, "reduce18", g.graph("reduce18"), 18, g.inputs, g.outs)


def reduce11(out):
    x = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    v = rng.uniform(-1, 1, (2, 3, 7)).astype(np.float32)
    g = Graph([("x", x), ("v", v)])
    X, V = g.vals["x"], g.vals["v"]
    g.node("ReduceSum", ["x"], "sum_0", X.sum(axis=0), axes=[0], keepdims=0)
    g.node("ReduceMean", ["x"], "mean_all", X.mean(keepdims=True))
    g.node("GlobalMaxPool", ["v"], "gmax", V.max(axis=2, keepdims=True))
    save(out, "reduce11", g.graph("reduce11"), 11, g.inputs, g.outs)


def layernorm(out):
    x = rng.uniform(-1, 1, (2, 3, 8)).astype(np.float32)
    s = rng.uniform(0.5, 1.5, 8).astype(np.float32)
    b = rng.uniform(-1, 1, 8).astype(np.float32)
    g = Graph([("x", x)])
    X = g.vals["x"]
    g.inits += [numpy_helper.from_array(s, "scale"), numpy_helper.from_array(b, "bias")]

    def ln(axes, eps, scale, bias):
        mu = X.mean(axis=axes, keepdims=True)
        var = ((X - mu) ** 2).mean(axis=axes, keepdims=True)
        return (X - mu) / np.sqrt(var + eps) * scale.astype(np.float64) + bias

    g.node("LayerNormalization", ["x", "scale", "bias"], "ln_last", ln((2,), 1e-5, s, b.astype(np.float64)))
    g.node("LayerNormalization", ["x", "scale"], "ln_rows", ln((1, 2), 1e-3, s, 0.0), axis=-2, epsilon=1e-3)
    save(out, "layernorm", g.graph("layernorm"), 17, g.inputs, g.outs)


def bad(out, name, op, opset, attrs, extra_inputs=(), inits=(), shape=SHAPE, graph_inputs=()):
    graph = helper.make_graph([helper.make_node(op, ["x"] + list(extra_inputs), ["y"], name=name, **attrs)], name,
                              [vi("x", shape)] + list(graph_inputs), [vi("y", None)], list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="convgen tests")
    onnx.save(model, os.path.join(out, name + ".onnx"))


def bads(out):
    bad(out, "bad_reduce_axis", "ReduceMean", 13, {"axes": [4]})
    bad(out, "bad_reduce_twice", "ReduceMax", 13, {"axes": [1, -3]})
    bad(out, "bad_reduce_attr18", "ReduceMean", 18, {"axes": [2, 3]})
    bad(out, "bad_reduce_axes_input", "ReduceSum", 13, {}, ["axes"],
        graph_inputs=[vi("axes", [2])])
    bad(out, "bad_reduce_axes_float", "ReduceSum", 13, {}, ["axes"],
        inits=[numpy_helper.from_array(np.array([1.0], np.float32), "axes")])
    bad(out, "bad_layernorm_axis", "LayerNormalization", 17, {"axis": 3}, ["scale"],
        inits=[numpy_helper.from_array(np.ones(8, np.float32), "scale")], shape=(2, 3, 8))
    bad(out, "bad_layernorm_scale", "LayerNormalization", 17, {}, ["scale"],
        inits=[numpy_helper.from_array(np.ones(5, np.float32), "scale")], shape=(2, 3, 8))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "reduce")
    os.makedirs(out, exist_ok=True)
    reduce13(out)
    reduce18(out)
    reduce11(out)
    layernorm(out)
    bads(out)


if __name__ == "__main__":
    main()
