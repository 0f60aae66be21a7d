#!/usr/bin/env python3
"""Writes the small ONNX models of integer graph inputs bound as constants
(src/onnx/onnx.c, bind_input) that tests/cli/int-inputs.sh runs with
`convgen infer` (committed, so that the suite needs no onnx package) into
tests/onnx/intinputs/: python3 tests/onnx/make_int_inputs.py [DIR].

reshape.onnx (opset 13): inputs shape (int64 [3], listed first) and x
  (float32 [2, 3, 4]); y = Relu(Reshape(x, shape)): the Reshape's shape a
  graph input, as ONNX's node tests give it, where exporters write an
  initializer. reshape_shape.pb holds [4, 3, -1] (y [4, 3, 2]),
  reshape_x.pb x from a fixed seed in [-1, 1), reshape_y.pb numpy's y.
reshape32.onnx: the same with shape an int32 input (reshape32_shape.pb).
reshape_shape4.pb: an int64 tensor of 4 elements (not the input's [3]).
The onnx package's checker passes each model.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def model(shape_type):
    node = [helper.make_node("Reshape", ["x", "shape"], ["r"], name="reshape"),
            helper.make_node("Relu", ["r"], ["y"], name="relu")]
    g = helper.make_graph(node, "intinputs",
                          [helper.make_tensor_value_info("shape", shape_type, [3]),
                           helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 3, 2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="make_int_inputs.py")
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "intinputs")
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    y = np.maximum(x.astype(np.float64).reshape(4, 3, 2), 0)
    write(os.path.join(out, "reshape.onnx"), model(TensorProto.INT64).SerializeToString())
    write(os.path.join(out, "reshape32.onnx"), model(TensorProto.INT32).SerializeToString())
    tensors = {"reshape_shape": np.array([4, 3, -1], np.int64), "reshape32_shape": np.array([4, 3, -1], np.int32),
               "reshape_shape4": np.array([4, 3, 2, 1], np.int64), "reshape_x": x,
               "reshape_y": y.astype(np.float32)}
    for name, t in tensors.items():
        write(os.path.join(out, name + ".pb"), numpy_helper.from_array(t, name).SerializeToString())


if __name__ == "__main__":
    main()
