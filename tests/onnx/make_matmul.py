#!/usr/bin/env python3
"""Writes the MatMul models tests/cli/ops-matmul.sh runs (committed, so that
the suite needs no onnx package): python3 tests/onnx/make_matmul.py [DIR]
(default tests/onnx/matmul). Random inputs and weights from a fixed seed;
each expected output computed by numpy in float64.

A MatMul whose B is an initializer runs as a 1x1 convolution
(src/onnx/shapes.c, matmul_as_conv); these cover both of its forms and the
program that takes the rest:
  rows.onnx    A [1, 6, 6, 16] (M = 36 rows) x B [16, 20], then Add of a bias
               [20] and Relu: the convolution of B's 20 pixels by A's 36
               rows as kernels (A the weights, a value); the bias and the
               Relu are elementwise after it.
  batch1.onnx  A [2, 4, 8] (M = 8) x B [1, 8, 12], then Relu: fewer than 32
               rows, 8 images of one pixel (B transposed into 12 kernels),
               B's batch dimension of 1 broadcast; the Relu fused.
  program.onnx A [40, 16] x B [2, 16, 8] (B with a batch of 2, A
               broadcast): not a convolution, the program of the IR.
Each with NAME_input.pb and NAME_output.pb.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(30)


def arr(*shape):
    return rng.uniform(-1, 1, shape).astype(np.float32)


def save(d, name, nodes, a, inits, y):
    x = helper.make_tensor_value_info("a", TensorProto.FLOAT, list(a.shape))
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, list(y.shape))
    g = helper.make_graph(nodes, name, [x], [out], [numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], producer_name="convgen tests")
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(d, name + ".onnx"))
    with open(os.path.join(d, name + "_input.pb"), "wb") as f:
        f.write(numpy_helper.from_array(a, "a").SerializeToString())
    with open(os.path.join(d, name + "_output.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y.astype(np.float32), "y").SerializeToString())


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "matmul")
    os.makedirs(d, exist_ok=True)

    a, b, bias = arr(1, 6, 6, 16), arr(16, 20), arr(20)
    y = np.maximum(a.astype(np.float64) @ b.astype(np.float64) + bias, 0)
    save(d, "rows", [helper.make_node("MatMul", ["a", "b"], ["p"], name="mm"),
                     helper.make_node("Add", ["p", "bias"], ["q"], name="bias"),
                     helper.make_node("Relu", ["q"], ["y"], name="relu")], a, {"b": b, "bias": bias}, y)

    a, b = arr(2, 4, 8), arr(1, 8, 12)
    y = np.maximum(a.astype(np.float64) @ b.astype(np.float64), 0)
    save(d, "batch1", [helper.make_node("MatMul", ["a", "b"], ["p"], name="mm"),
                       helper.make_node("Relu", ["p"], ["y"], name="relu")], a, {"b": b}, y)

    a, b = arr(40, 16), arr(2, 16, 8)
    y = a.astype(np.float64) @ b.astype(np.float64)
    save(d, "program", [helper.make_node("MatMul", ["a", "b"], ["y"], name="mm")], a, {"b": b}, y)


if __name__ == "__main__":
    main()
