#!/usr/bin/env python3
"""Writes tests/onnx/fusion/: small models whose elementwise tails import
fuses into the convolution before them (tests/cli/fusion.sh reads them),
each with an input and the output onnx's ReferenceEvaluator computes for it.
Committed, so the suite needs no onnx package:
    python3 tests/onnx/make_fusion.py [DIR]

silu.onnx: Conv -> BatchNormalization -> x * Sigmoid(x) (EfficientNet's and
  RegNetY's SiLU as torch.onnx exports it), Conv -> Sigmoid(x) * x (fused
  too), then a Conv whose output feeds a Sigmoid and a Mul that the Sigmoid
  does not feed alone (not fused into the convolution: a chain after it).
hardswish.onnx: Conv -> x * HardSigmoid(x) with alpha 1/6, beta 1/2 (a hard
  swish as MobileNet V3's older exports write it), and Conv -> HardSigmoid
  (a gate of its own, as a layer's hardsigmoid activation).
chain.onnx: elementwise chains between other operators, each computed by
  its last node's kernel (chain() says which).
chain_dag.onnx: chains that read a value twice, and Transposes inside them
  (chain_dag() says which).
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
             helper.make_node("Add", ["g3", "y3"], ["z"], name="notgate")]  # g3 read twice: not the convolution's gate
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


def chain(out):
    """Elementwise chains outside convolutions (onnx.c, fuse_chains). The
    input x [2, 4, 5, 6], p [4, 1, 1] and q [6] broadcast into it:
    GELU as opset 17 writes it (Div, Erf, Add, Mul, Mul: one chain);
    Relu(x * p) + q then Sigmoid, Max of three, HardSigmoid, Neg (one chain
    of leaves x, p, q, the Max's third input r); Tanh(x) read by two nodes
    of one chain, Abs and Sub (computed where each reads it, in Sub's
    kernel); Exp(x) a graph output and
    read by an Abs (stored); a chain of 17 values (x plus 16 initializers
    added one by one) which stops where it would read more than 16."""
    n = helper.make_node
    nodes = [n("Div", ["x", "sqrt2"], ["d"], name="div"), n("Erf", ["d"], ["e"], name="erf"),
             n("Add", ["e", "one"], ["e1"], name="add1"), n("Mul", ["x", "e1"], ["m"], name="mul"),
             n("Mul", ["m", "half"], ["gelu"], name="mulhalf"),
             n("Mul", ["gelu", "p"], ["xp"], name="scale"), n("Relu", ["xp"], ["r1"], name="relu"),
             n("Add", ["r1", "q"], ["r2"], name="shift"), n("Sigmoid", ["r2"], ["s"], name="sig"),
             n("Max", ["s", "p", "r"], ["mx"], name="max3"),
             n("HardSigmoid", ["mx"], ["hs"], name="hsig", alpha=0.3, beta=0.6),
             n("Neg", ["hs"], ["y"], name="neg"),
             n("Tanh", ["x"], ["t"], name="tanh"), n("Abs", ["t"], ["ta"], name="abs1"),
             n("Sub", ["ta", "t"], ["z"], name="sub"),
             n("Exp", ["x"], ["ex"], name="exp"), n("Abs", ["ex"], ["w"], name="abs2")]
    inits = [numpy_helper.from_array(np.array(1.4142135, np.float32), "sqrt2"),
             numpy_helper.from_array(np.array(1.0, np.float32), "one"),
             numpy_helper.from_array(np.array(0.5, np.float32), "half"),
             init("p", 4, 1, 1), init("q", 6), init("r", 5, 1)]
    prev = "x"
    for k in range(17):
        inits.append(init("c%d" % k, 6))
        nodes.append(n("Add", [prev, "c%d" % k], ["a%d" % k], name="add_c%d" % k))
        prev = "a%d" % k
    nodes.append(n("Identity", [prev], ["long"], name="long"))
    save(out, "chain", nodes, inits, [2, 4, 5, 6], ["y", "z", "ex", "w", "long"])


def chain_dag(out):
    """Chains that read a value twice and Transposes inside them, on x
    [2, 4, 5, 6]: Sigmoid(x) read by a Mul and by a Transpose that is a
    graph output (stored: a node outside the chain reads it); Add(x, p)
    transposed to [2, 6, 4, 5] then scaled by s [6, 1, 1] (one kernel, p read
    through the transpose); a Transpose below another (the lower one
    stored); a Transpose whose output a broadcast makes longer (stored); and
    Relu(x) doubled seven times, each Add reading the value before twice
    (split where the expanded expression would read x more than 64 times)."""
    n = helper.make_node
    nodes = [n("Sigmoid", ["x"], ["sg"], name="sig"), n("Mul", ["sg", "x"], ["sm"], name="gate"),
             n("Transpose", ["sg"], ["st"], name="sig_t", perm=[0, 2, 3, 1]),
             n("Add", ["x", "p"], ["xa"], name="addp"), n("Transpose", ["xa"], ["xt"], name="to_nhwc", perm=[0, 3, 1, 2]),
             n("Mul", ["xt", "s"], ["tm"], name="scale_t"),
             n("Transpose", ["x"], ["t1"], name="t1", perm=[0, 2, 3, 1]), n("Relu", ["t1"], ["t1r"], name="relu_t"),
             n("Transpose", ["t1r"], ["t2"], name="t2", perm=[0, 3, 1, 2]), n("Neg", ["t2"], ["tt"], name="neg_t"),
             n("Transpose", ["x"], ["t3"], name="t3", perm=[0, 3, 1, 2]), n("Add", ["t3", "b5"], ["tb"], name="longer"),
             n("Relu", ["x"], ["d0"], name="dbl0")]
    for k in range(1, 8):
        nodes.append(n("Add", ["d%d" % (k - 1), "d%d" % (k - 1)], ["d%d" % k], name="dbl%d" % k))
    nodes.append(n("Identity", ["d7"], ["dbl"], name="dbl"))
    inits = [init("p", 4, 1, 1), init("s", 6, 1, 1), init("b5", 3, 1, 1, 1, 1)]
    save(out, "chain_dag", nodes, inits, [2, 4, 5, 6], ["sm", "st", "tm", "tt", "tb", "dbl"])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "fusion")
    os.makedirs(out, exist_ok=True)
    silu(out)
    hardswish(out)
    chain(out)
    chain_dag(out)


if __name__ == "__main__":
    main()
