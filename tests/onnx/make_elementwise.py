#!/usr/bin/env python3
"""Writes the models of the elementwise family that tests/cli/ops-elementwise.sh
runs (committed, so that the suite needs no onnx package):
python3 tests/onnx/make_elementwise.py [DIR] (default tests/onnx/elementwise).
Inputs from a fixed seed; every expected output computed here in float64
numpy from the float32 inputs (ONNX's definitions), then stored as float32.

unary.onnx (opset 20): x [1,3,4,5] in (-3, 3) with a few elements +-12, and
  p [1,3,4,5] in (0.1, 4) for the functions of positive numbers; one output
  per node: HardSigmoid (default and alpha 0.3 beta 0.4), Tanh, Exp, Log,
  Sqrt, Reciprocal, Neg, Abs, Erf, Elu (default and alpha 0.7), Selu
  (default and alpha 1.5 gamma 2), Softplus, Gelu (approximate none and
  tanh), Floor, Ceil. unary_input_x.pb, unary_input_p.pb, unary_output_K.pb.
binary.onnx (opset 13): x [1,3,4,5] in (-2, 2), p [1,3,4,5] in (0.5, 2),
  initializers c [3,1,1], e [3,1,1], w [5], s (a scalar), col [1,3,4,1],
  slope [3,1,1], slope1 [1]; one output per node: Sub, Mul, Div and Pow with
  each broadcast ([C,1,1], [W], a scalar, both inputs broadcast, the
  broadcast input first), Max and Min of 1, 2, 3 and 4 inputs, PRelu per
  channel and with one slope. binary_input_x.pb, binary_input_p.pb,
  binary_output_K.pb.
bad_*.onnx: one node each that import or infer refuses.
"""
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(30)
SHAPE = [1, 3, 4, 5]


def f32(a):
    return np.asarray(a, dtype=np.float32)


def save(path, name, a):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(f32(a), name).SerializeToString())


def model(nodes, inputs, outputs, inits, opset, name):
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
                          [helper.make_tensor_value_info(n, TensorProto.FLOAT, SHAPE) for n in outputs], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="make_elementwise.py")
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


erf = np.vectorize(math.erf)


def unary(out):
    x = f32(rng.uniform(-3, 3, SHAPE))
    x.flat[[3, 17, 40, 55]] = [12.0, -12.0, 9.5, -9.5]
    p = f32(rng.uniform(0.1, 4, SHAPE))
    X, P = x.astype(np.float64), p.astype(np.float64)
    sel_a, sel_g = 1.67326319217681884765625, 1.05070102214813232421875
    cases = [  # (op, input, attributes, float64 reference)
        ("HardSigmoid", "x", {}, np.clip(0.2 * X + 0.5, 0, 1)),
        ("HardSigmoid", "x", {"alpha": 0.3, "beta": 0.4}, np.clip(np.float64(np.float32(0.3)) * X
                                                                 + np.float64(np.float32(0.4)), 0, 1)),
        ("Tanh", "x", {}, np.tanh(X)),
        ("Exp", "x", {}, np.exp(X)),
        ("Log", "p", {}, np.log(P)),
        ("Sqrt", "p", {}, np.sqrt(P)),
        ("Reciprocal", "p", {}, 1 / P),
        ("Neg", "x", {}, -X),
        ("Abs", "x", {}, np.abs(X)),
        ("Erf", "x", {}, erf(X)),
        ("Elu", "x", {}, np.where(X < 0, np.exp(X) - 1, X)),
        ("Elu", "x", {"alpha": 0.7}, np.where(X < 0, np.float64(np.float32(0.7)) * (np.exp(X) - 1), X)),
        ("Selu", "x", {}, np.where(X > 0, sel_g * X, sel_g * (sel_a * np.exp(X) - sel_a))),
        ("Selu", "x", {"alpha": 1.5, "gamma": 2.0}, np.where(X > 0, 2 * X, 2 * (1.5 * np.exp(X) - 1.5))),
        ("Softplus", "x", {}, np.logaddexp(0, X)),
        ("Gelu", "x", {}, 0.5 * X * (1 + erf(X / math.sqrt(2)))),
        ("Gelu", "x", {"approximate": "tanh"},
         0.5 * X * (1 + np.tanh(math.sqrt(2 / math.pi) * (X + 0.044715 * X ** 3)))),
        ("Floor", "x", {}, np.floor(X)),
        ("Ceil", "x", {}, np.ceil(X)),
    ]
    nodes, outputs = [], []
    for k, (op, i, attrs, ref) in enumerate(cases):
        outputs.append("y%d" % k)
        nodes.append(helper.make_node(op, [i], [outputs[-1]], name="%s_%d" % (op.lower(), k), **attrs))
        save(os.path.join(out, "unary_output_%d.pb" % k), outputs[-1], ref)
    m = model(nodes, [("x", SHAPE), ("p", SHAPE)], outputs, [], 20, "unary")
    onnx.save(m, os.path.join(out, "unary.onnx"))
    save(os.path.join(out, "unary_input_x.pb"), "x", x)
    save(os.path.join(out, "unary_input_p.pb"), "p", p)
    return len(cases)


def binary(out):
    x = f32(rng.uniform(-2, 2, SHAPE))
    p = f32(rng.uniform(0.5, 2, SHAPE))
    consts = {
        "c": f32(rng.uniform(-1, 1, [3, 1, 1])),
        "e": f32([[[0.5]], [[2.0]], [[-1.5]]]),
        "w": f32(rng.uniform(-1, 1, [5])),
        "s": f32(0.75),
        "three": f32(3.0),
        "col": f32(rng.uniform(-1, 1, [1, 3, 4, 1])),
        "slope": f32([[[0.1]], [[0.25]], [[-0.5]]]),
        "slope1": f32([0.2]),
    }
    v = {k: a.astype(np.float64) for k, a in consts.items()}
    v["x"], v["p"] = x.astype(np.float64), p.astype(np.float64)

    def prelu(a, b):
        return np.where(a < 0, a * b, a)

    cases = [  # (op, inputs, float64 reference)
        ("Sub", ["x", "c"], lambda a, b: a - b),
        ("Sub", ["s", "x"], lambda a, b: a - b),
        ("Mul", ["x", "w"], lambda a, b: a * b),
        ("Mul", ["col", "w"], lambda a, b: a * b),
        ("Mul", ["x", "p"], lambda a, b: a * b),
        ("Div", ["x", "s"], lambda a, b: a / b),
        ("Div", ["c", "p"], lambda a, b: a / b),
        ("Pow", ["p", "e"], np.power),
        ("Pow", ["x", "three"], np.power),
        ("Pow", ["p", "x"], np.power),
        ("Max", ["x"], lambda a: a),
        ("Max", ["x", "w"], np.maximum),
        ("Max", ["x", "w", "s"], lambda a, b, c: np.maximum(np.maximum(a, b), c)),
        ("Min", ["x"], lambda a: a),
        ("Min", ["col", "w"], np.minimum),
        ("Min", ["x", "p", "c", "s"], lambda a, b, c, d: np.minimum(np.minimum(np.minimum(a, b), c), d)),
        ("PRelu", ["x", "slope"], prelu),
        ("PRelu", ["x", "slope1"], prelu),
    ]
    nodes, outputs = [], []
    for k, (op, ins, fn) in enumerate(cases):
        outputs.append("y%d" % k)
        nodes.append(helper.make_node(op, ins, [outputs[-1]], name="%s_%d" % (op.lower(), k)))
        save(os.path.join(out, "binary_output_%d.pb" % k), outputs[-1], fn(*[v[i] for i in ins]))
    inits = [numpy_helper.from_array(a, k) for k, a in consts.items()]
    m = model(nodes, [("x", SHAPE), ("p", SHAPE)], outputs, inits, 13, "binary")
    onnx.save(m, os.path.join(out, "binary.onnx"))
    save(os.path.join(out, "binary_input_x.pb"), "x", x)
    save(os.path.join(out, "binary_input_p.pb"), "p", p)
    return len(cases)


def bad(out):
    """One node each: (file, op, inputs, attributes, input shapes, initializers, opset)."""
    models = [
        ("bad_gelu", "Gelu", ["x"], {"approximate": "fast"}, [("x", SHAPE)], [], 20),
        ("bad_hardsigmoid", "HardSigmoid", ["x"], {"alpha": float("inf")}, [("x", SHAPE)], [], 13),
        ("bad_elu", "Elu", ["x"], {"alpha": float("nan")}, [("x", SHAPE)], [], 13),
        ("bad_prelu", "PRelu", ["x", "slope"], {}, [("x", SHAPE)],
         [numpy_helper.from_array(f32(np.ones([3])), "slope")], 13),
        ("bad_sub", "Sub", ["x", "w"], {}, [("x", SHAPE)], [numpy_helper.from_array(f32(np.ones([4])), "w")], 13),
        ("bad_max17", "Max", ["x"] * 17, {}, [("x", SHAPE)], [], 13),
    ]
    for name, op, ins, attrs, inputs, inits, opset in models:
        node = helper.make_node(op, ins, ["y"], name=name[4:], **attrs)
        g = helper.make_graph([node], name, [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="make_elementwise.py")
        m.ir_version = 8
        onnx.save(m, os.path.join(out, name + ".onnx"))   # (not checked: the checker refuses some of them)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "elementwise")
    os.makedirs(out, exist_ok=True)
    nu, nb = unary(out), binary(out)
    bad(out)
    print("%s: unary.onnx (%d nodes), binary.onnx (%d nodes), bad_*.onnx" % (out, nu, nb))


if __name__ == "__main__":
    main()
