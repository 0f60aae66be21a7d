#!/usr/bin/env python3
"""Writes the small ONNX models of ConvTranspose (src/onnx/convtranspose.c)
that tests/cli/ops-convtranspose.sh runs with `convgen infer` into
tests/onnx/convtranspose/ (committed, so that the suite needs no onnx
package):
    python3 tests/onnx/make_convtranspose.py [DIR]
Inputs and weights from a fixed seed, uniform in [-1, 1); expected outputs
in float64, by numpy (conv_transpose below, the definition: each input
element scatters its kernel into the output) where a model has a grouped
ConvTranspose, else by onnx's ReferenceEvaluator on a float64 copy of the
model. The numpy form is checked against the reference evaluator on every
ungrouped case here (the evaluator's grouped path slices W by output
channels and keeps one output channel a group: it is not used for those).

cases.onnx (opset 17) on x [1, 4, 5, 6], one ConvTranspose of x per
output, each with its own weights (and bias where said):
  0 stride 1, 3x3, no pads (no zeros inserted: flipped weights, pads 2)
  1 stride 2, 3x3, pads 1, output_padding 1, bias (the usual x2 upsampler)
  2 stride 2, 4x4, pads 1 (DCGAN's generator)
  3 strides 2x3, kernel 3x2, pads 0,1,2,0, output_padding 1,2
  4 stride 2, dilations 2, 3x3, pads 1
  5 group 2, stride 2, 3x3, 3 outputs a group, bias
  6 depthwise (group 4, one output a group), stride 2, 3x3, pads 1,
    output_padding 1
  7 stride 2, 2x2, pads 2 (more than the kernel's extent less 1: the
    derived convolution's pads would be -1, its input is cropped)
  8 auto_pad SAME_UPPER, stride 2, 3x3 (odd total padding)
  9 auto_pad SAME_LOWER, strides 3x2, 3x3
  10 output_shape 10x14 with auto_pad SAME_UPPER, stride 2, 3x3 (total
     paddings 1 and -1)
  11 stride 2, 1x1 kernel
fused.onnx (opset 17) on x [1, 6, 7, 7]: ConvTranspose (stride 2, pads 1,
  output_padding 1, bias), BatchNormalization, Relu: one layer.
decoder.onnx (opset 17) on x [1, 4, 8, 8]: Conv stride 2 + Relu,
  ConvTranspose stride 2 back to 8x8 + Relu, Add of x (a residual), Conv
  1x1: the ConvTranspose's convolution takes the Relu.
weights_input.onnx (opset 17) on x [1, 4, 4, 5] and W [4, 3, 3, 3] (a graph
  input): group 2, stride 2, pads 1,0,0,1, bias an initializer: W' is
  computed on the device by the row's program.
names.onnx (opset 17) on x [1, 2, 4, 4]: ConvTranspose "up" (stride 2), then
  a Relu whose output, a graph output, is named "up:zeros", the name import
  would give the zeros' value: that value takes another.
bad_1d.onnx: a 1-D ConvTranspose (X of rank 3).
bad_output_shape.onnx: output_shape 9x9 with auto_pad NOTSET, a total
  padding of 2 (which the spec and its reference evaluator place
  differently).
bad_crop.onnx: pads that crop away every element of X.
bad_group.onnx: group 3 of 4 input channels.
bad_pad_limit.onnx: dilation 40 on a 3x3 kernel: the derived convolution
  pads by 80, past convgen's 64.
bad_auto_pads.onnx: pads and auto_pad SAME_UPPER both given.
Each NAME with NAME_input_K.pb and NAME_output_K.pb.
"""
import os
import sys

import numpy as np
import onnx
import onnx.shape_inference
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from float64 import to_double

rng = np.random.default_rng(30)
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "convtranspose")


def f32(name, a):
    return numpy_helper.from_array(np.asarray(a, dtype=np.float32), name)


def uniform(*shape):
    return rng.uniform(-1, 1, shape).astype(np.float32)


def pads_of(x_shape, w_shape, a):
    """ConvTranspose's pads (begin h, w, end h, w) as ONNX's reference evaluator resolves them."""
    s, d, op = a.get("strides", [1, 1]), a.get("dilations", [1, 1]), a.get("output_padding", [0, 0])
    if "pads" in a or a.get("auto_pad", "NOTSET") not in ("SAME_UPPER", "SAME_LOWER"):
        return list(a.get("pads", [0, 0, 0, 0]))
    want = a.get("output_shape", [x_shape[2 + i] * s[i] for i in range(2)])
    total = [s[i] * (x_shape[2 + i] - 1) + op[i] + (w_shape[2 + i] - 1) * d[i] + 1 - want[i] for i in range(2)]
    if a["auto_pad"] == "SAME_UPPER":
        return [t // 2 for t in total] + [t - t // 2 for t in total]
    return [t - t // 2 for t in total] + [t // 2 for t in total]


def conv_transpose(x, w, b, a):
    """ConvTranspose by its definition, in float64: input element (i, j) of
    channel c adds x * W[c, m] at output place (i s - pad + ki d, ...)."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    s, d, op = a.get("strides", [1, 1]), a.get("dilations", [1, 1]), a.get("output_padding", [0, 0])
    g = a.get("group", 1)
    p = pads_of(x.shape, w.shape, a)
    n, c, h, wd = x.shape
    cg, kg, kh, kw = c // g, w.shape[1], w.shape[2], w.shape[3]
    out = [s[i] * (x.shape[2 + i] - 1) + op[i] + (w.shape[2 + i] - 1) * d[i] + 1 - p[i] - p[i + 2] for i in range(2)]
    y = np.zeros((n, kg * g, out[0], out[1]))
    for grp in range(g):
        xs, ws = x[:, grp * cg:(grp + 1) * cg], w[grp * cg:(grp + 1) * cg]
        for i in range(h):
            for j in range(wd):
                for ki in range(kh):
                    for kj in range(kw):
                        oy, ox = i * s[0] - p[0] + ki * d[0], j * s[1] - p[1] + kj * d[1]
                        if 0 <= oy < out[0] and 0 <= ox < out[1]:
                            y[:, grp * kg:(grp + 1) * kg, oy, ox] += xs[:, :, i, j] @ ws[:, :, ki, kj]
    if b is not None:
        y += b.astype(np.float64)[None, :, None, None]
    return y


def reference(model, feeds):
    """The reference evaluator on a float64 copy of model."""
    return ReferenceEvaluator(to_double(model)).run(None, {k: v.astype(np.float64) for k, v in feeds.items()})


def save(name, nodes, inits, feeds, outs, expected=None, check=True, run=True):
    """The model of nodes, its graph inputs feeds (name -> array), its
    outputs outs; the expected outputs given (float64 arrays) or, when
    none, the reference evaluator's."""
    ins = [helper.make_tensor_value_info(k, TensorProto.FLOAT, v.shape) for k, v in feeds.items()]
    graph = helper.make_graph(nodes, name, ins, [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs],
                              inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="convgen tests")
    model.ir_version = 8
    if check:
        onnx.checker.check_model(onnx.shape_inference.infer_shapes(model), full_check=True)
    onnx.save(model, os.path.join(OUT, name + ".onnx"))
    if not run:
        return
    ys = expected if expected is not None else reference(model, feeds)
    for k, (n, v) in enumerate(feeds.items()):
        onnx.save_tensor(numpy_helper.from_array(v, n), os.path.join(OUT, "%s_input_%d.pb" % (name, k)))
    for k, y in enumerate(ys):
        onnx.save_tensor(numpy_helper.from_array(np.asarray(y).astype(np.float32), outs[k]),
                         os.path.join(OUT, "%s_output_%d.pb" % (name, k)))


def cases():
    x = uniform(1, 4, 5, 6)
    table = [  # (outputs a group, kernel, bias, attributes)
        (3, (3, 3), False, {}),
        (3, (3, 3), True, dict(strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1])),
        (2, (4, 4), False, dict(strides=[2, 2], pads=[1, 1, 1, 1])),
        (3, (3, 2), False, dict(strides=[2, 3], pads=[0, 1, 2, 0], output_padding=[1, 2])),
        (2, (3, 3), False, dict(strides=[2, 2], dilations=[2, 2], pads=[1, 1, 1, 1])),
        (3, (3, 3), True, dict(strides=[2, 2], group=2)),
        (1, (3, 3), False, dict(strides=[2, 2], group=4, pads=[1, 1, 1, 1], output_padding=[1, 1])),
        (2, (2, 2), False, dict(strides=[2, 2], pads=[2, 2, 2, 2])),
        (2, (3, 3), False, dict(strides=[2, 2], auto_pad="SAME_UPPER")),
        (2, (3, 3), False, dict(strides=[3, 2], auto_pad="SAME_LOWER")),
        (2, (3, 3), False, dict(strides=[2, 2], auto_pad="SAME_UPPER", output_shape=[10, 14])),
        (3, (1, 1), False, dict(strides=[2, 2])),
    ]
    nodes, inits, ys = [], [], []
    for k, (kg, ks, bias, a) in enumerate(table):
        g = a.get("group", 1)
        w = uniform(4, kg, *ks)
        b = uniform(kg * g) if bias else None
        ins = ["x", "w%d" % k] + (["b%d" % k] if bias else [])
        inits += [f32("w%d" % k, w)] + ([f32("b%d" % k, b)] if bias else [])
        node = helper.make_node("ConvTranspose", ins, ["y%d" % k], name="ct%d" % k, **a)
        nodes.append(node)
        y = conv_transpose(x, w, b, a)
        if g == 1:   # the definition against the reference evaluator
            one = helper.make_graph([node], "one", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                                    [helper.make_tensor_value_info("y%d" % k, TensorProto.FLOAT, None)], inits[-len(ins) + 1:])
            r = reference(helper.make_model(one, opset_imports=[helper.make_opsetid("", 17)]), {"x": x})[0]
            assert r.shape == y.shape and np.allclose(r, y, rtol=1e-12, atol=1e-12), "case %d: %s %s" % (k, r.shape, y.shape)
        ys.append(y)
    save("cases", nodes, inits, {"x": x}, ["y%d" % k for k in range(len(table))], expected=ys)


def fused():
    x = uniform(1, 6, 7, 7)
    inits = [f32("w", uniform(6, 5, 3, 3)), f32("b", uniform(5)), f32("scale", rng.uniform(0.5, 1.5, 5)),
             f32("shift", uniform(5)), f32("mean", uniform(5)), f32("var", rng.uniform(0.5, 1.5, 5))]
    nodes = [helper.make_node("ConvTranspose", ["x", "w", "b"], ["t"], name="up", strides=[2, 2], pads=[1, 1, 1, 1],
                              output_padding=[1, 1]),
             helper.make_node("BatchNormalization", ["t", "scale", "shift", "mean", "var"], ["n"], name="bn"),
             helper.make_node("Relu", ["n"], ["y"], name="relu")]
    save("fused", nodes, inits, {"x": x}, ["y"])


def decoder():
    x = uniform(1, 4, 8, 8)
    inits = [f32("w1", uniform(8, 4, 3, 3) * 0.5), f32("b1", uniform(8)), f32("w2", uniform(8, 4, 3, 3) * 0.5),
             f32("b2", uniform(4)), f32("w3", uniform(2, 4, 1, 1))]
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="down", strides=[2, 2], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             helper.make_node("ConvTranspose", ["r1", "w2", "b2"], ["u"], name="up", strides=[2, 2], pads=[1, 1, 1, 1],
                              output_padding=[1, 1]),
             helper.make_node("Relu", ["u"], ["r2"], name="relu2"),
             helper.make_node("Add", ["r2", "x"], ["s"], name="skip"),
             helper.make_node("Conv", ["s", "w3"], ["y"], name="head")]
    save("decoder", nodes, inits, {"x": x}, ["y"])


def weights_input():
    x, w, b = uniform(1, 4, 4, 5), uniform(4, 3, 3, 3), uniform(6)
    a = dict(strides=[2, 2], group=2, pads=[1, 0, 0, 1])
    nodes = [helper.make_node("ConvTranspose", ["x", "W", "b"], ["y"], name="up", **a)]
    save("weights_input", nodes, [f32("b", b)], {"x": x, "W": w}, ["y"], expected=[conv_transpose(x, w, b, a)])


def names():
    x = uniform(1, 2, 4, 4)
    nodes = [helper.make_node("ConvTranspose", ["x", "w"], ["u"], name="up", strides=[2, 2]),
             helper.make_node("Relu", ["u"], ["up:zeros"], name="relu")]
    save("names", nodes, [f32("w", uniform(2, 3, 3, 3))], {"x": x}, ["up:zeros"])


def bad():
    def one(name, x_shape, w_shape, check=True, **a):
        node = helper.make_node("ConvTranspose", ["x", "w"], ["y"], name=name.replace("bad_", ""), **a)
        save(name, [node], [f32("w", uniform(*w_shape))], {"x": uniform(*x_shape)}, ["y"], check=check, run=False)
    one("bad_1d", (1, 2, 5), (2, 3, 3))
    one("bad_output_shape", (1, 2, 5, 5), (2, 3, 3, 3), strides=[2, 2], output_shape=[9, 9])
    one("bad_crop", (1, 1, 1, 1), (1, 1, 1, 1), strides=[3, 3], pads=[1, 0, 0, 0], output_padding=[2, 0])
    one("bad_group", (1, 4, 5, 5), (4, 3, 3, 3), check=False, group=3)
    one("bad_pad_limit", (1, 2, 5, 5), (2, 2, 3, 3), dilations=[40, 40])
    one("bad_auto_pads", (1, 2, 5, 5), (2, 2, 3, 3), check=False, strides=[2, 2], pads=[1, 1, 1, 1], auto_pad="SAME_UPPER")


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    cases()
    fused()
    decoder()
    weights_input()
    bad()
    names()
