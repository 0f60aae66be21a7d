#!/usr/bin/env python3
"""Writes tests/onnx/fusion/: small models whose elementwise tails import
fuses into the convolution before them (tests/cli/fusion.sh reads them),
each with an input and the output onnx's ReferenceEvaluator computes for it.
Committed, so the suite needs no onnx package:
    python3 tests/onnx/make_fusion.py [DIR]

silu.onnx: Conv -> BatchNormalization -> x * Sigmoid(x) (EfficientNet's and
  RegNetY's SiLU as torch.onnx exports it), Conv -> Sigmoid(x) * x (fused
  too), then a Conv whose output feeds a Sigmoid and a Mul that the Sigmoid
  does not feed alone (not fused).
hardswish.onnx: Conv -> x * HardSigmoid(x) with alpha 1/6, beta 1/2 (a hard
  swish as MobileNet V3's older exports write it), and Conv -> HardSigmoid
  (a gate of its own, as a layer's hardsigmoid activation).
"""
import os
import sys

import numpy as np
import onnx
import onnx.shape_inference
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

rng = np.random.default_rng(11)


def init(name, *shape, lo=-1.0, hi=1.0):
    return numpy_helper.from_array(rng.uniform(lo, hi, shape).astype(np.float32), name)


def vi(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def save(out, name, nodes, inits, x_shape, outputs):
    graph = helper.make_graph(nodes, name, [vi("x", x_shape)], [vi(o, None) for o in outputs], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)], producer_name="convgen tests")
    onnx.checker.check_model(onnx.shape_inference.infer_shapes(model), full_check=True)
    onnx.save(model, os.path.join(out, name + ".onnx"))
    x = rng.uniform(-2, 2, x_shape).astype(np.float32)
    ys = ReferenceEvaluator(model).run(None, {"x": x})
    onnx.save_tensor(numpy_helper.from_array(x, "x"), os.path.join(out, name + "_input.pb"))
    for o, y in zip(outputs, ys):
        onnx.save_tensor(numpy_helper.from_array(y.astype(np.float32), o), os.path.join(out, "%s_%s.pb" % (name, o)))


def silu(out):
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c1", "s", "t", "mu", "var"], ["n1"], name="bn1"),
             helper.make_node("Sigmoid", ["n1"], ["g1"], name="sig1"),
             helper.make_node("Mul", ["n1", "g1"], ["y1"], name="mul1"),
             helper.make_node("Conv", ["y1", "w2"], ["c2"], name="conv2"),
             helper.make_node("Sigmoid", ["c2"], ["g2"], name="sig2"),
             helper.make_node("Mul", ["g2", "c2"], ["y2"], name="mul2"),   # the gate first: fused all the same
             helper.make_node("Conv", ["y2", "w3"], ["c3"], name="conv3"),
             helper.make_node("Sigmoid", ["c3"], ["g3"], name="sig3"),
             helper.make_node("Mul", ["c3", "g3"], ["y3"], name="mul3"),
             helper.make_node("Add", ["g3", "y3"], ["z"], name="notgate")]  # g3 read twice: not fused
    inits = [init("w1", 8, 3, 3, 3), init("b1", 8), init("s", 8), init("t", 8), init("mu", 8),
             init("var", 8, lo=0.5, hi=1.5), init("w2", 6, 8, 1, 1), init("w3", 5, 6, 3, 3)]
    save(out, "silu", nodes, inits, [1, 3, 10, 12], ["z"])


def hardswish(out):
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
             helper.make_node("HardSigmoid", ["c1"], ["g1"], name="hsig1", alpha=1.0 / 6, beta=0.5),
             helper.make_node("Mul", ["c1", "g1"], ["y1"], name="mul1"),
             helper.make_node("Conv", ["y1", "w2", "b2"], ["c2"], name="conv2"),
             helper.make_node("HardSigmoid", ["c2"], ["y"], name="hsig2", alpha=0.2, beta=0.4)]
    inits = [init("w1", 8, 3, 3, 3), init("w2", 4, 8, 1, 1), init("b2", 4)]
    save(out, "hardswish", nodes, inits, [1, 3, 9, 9], ["y"])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "fusion")
    os.makedirs(out, exist_ok=True)
    silu(out)
    hardswish(out)


if __name__ == "__main__":
    main()
