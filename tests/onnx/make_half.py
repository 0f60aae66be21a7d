#!/usr/bin/env python3
"""Writes tests/onnx/half/: tests/onnx/block.onnx in float16, as torch's
model.half() exports a model (tests/cli/half-model.sh reads them). Committed,
so the suite needs no onnx package:
    python3 tests/onnx/make_half.py [DIR]

block_half.onnx: block.onnx with every float initializer, Constant and
  graph input and output in float16 (its weights rounded to half).
block_half_ext.onnx (+ block_half_ext.onnx.data): the same with every
  initializer in an external file, as the dynamo exporter writes them.
input.pb, input.npy: block_input.pb rounded to float16 (a float16
  TensorProto; np.save's '<f2').
output.pb: the float64 output of those float16 values (the model widened
  to float64, onnx's ReferenceEvaluator), what convgen computes in fp32.
bad_short.onnx: block_half.onnx with its first initializer's raw data one
  half short.
consts.onnx, consts_input.pb, consts_output.pb: the shape arithmetic of a
  mixed-precision export: (x + ConstantOfShape(value = float16 1.5)) *
  Cast(float32 1/3, to = float16), x and y float16, the output the float64
  value of those halves.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator


def retype(model, src, dst, np_type):
    """A copy of model with its src tensors (initializers, Constant values,
    graph inputs and outputs) of type dst, no value_info."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph

    def conv(t):
        t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(t).astype(np_type), t.name))

    for t in g.initializer:
        if t.data_type == src:
            conv(t)
    for n in g.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.TENSOR and a.t.data_type == src:
                conv(a.t)
    for v in list(g.input) + list(g.output):
        if v.type.tensor_type.elem_type == src:
            v.type.tensor_type.elem_type = dst
    del g.value_info[:]
    return m


def consts(out):
    nodes = [
        helper.make_node("Constant", [], ["shape"], value=numpy_helper.from_array(np.array([1, 4], np.int64))),
        helper.make_node("ConstantOfShape", ["shape"], ["c"], value=numpy_helper.from_array(np.array([1.5], np.float16))),
        helper.make_node("Constant", [], ["k32"], value=numpy_helper.from_array(np.array([1 / 3], np.float32))),
        helper.make_node("Cast", ["k32"], ["k16"], to=TensorProto.FLOAT16),
        helper.make_node("Add", ["x", "c"], ["s"]),
        helper.make_node("Mul", ["s", "k16"], ["y"]),
    ]
    g = helper.make_graph(nodes, "consts", [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [1, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [1, 4])])
    m = helper.make_model(g, producer_name="convgen tests", opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, os.path.join(out, "consts.onnx"))
    x = np.array([[0.25, -1.0, 3.5, 100.0]], np.float16)
    onnx.save_tensor(numpy_helper.from_array(x, "x"), os.path.join(out, "consts_input.pb"))
    y = (x.astype(np.float64) + 1.5) * float(np.float16(1 / 3))
    onnx.save_tensor(numpy_helper.from_array(y.astype(np.float32), "y"), os.path.join(out, "consts_output.pb"))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "half")
    os.makedirs(out, exist_ok=True)
    model = onnx.load(os.path.join(here, "block.onnx"))
    half = retype(model, TensorProto.FLOAT, TensorProto.FLOAT16, np.float16)
    onnx.save(half, os.path.join(out, "block_half.onnx"))
    ext = onnx.ModelProto()
    ext.CopyFrom(half)   # (saving with external data moves the copy's data out)
    onnx.save(ext, os.path.join(out, "block_half_ext.onnx"), save_as_external_data=True,
              all_tensors_to_one_file=True, location="block_half_ext.onnx.data", size_threshold=0)
    x = numpy_helper.to_array(onnx.load_tensor(os.path.join(here, "block_input.pb"))).astype(np.float16)
    onnx.save_tensor(numpy_helper.from_array(x, half.graph.input[0].name), os.path.join(out, "input.pb"))
    np.save(os.path.join(out, "input.npy"), x)
    bad = onnx.ModelProto()
    bad.CopyFrom(half)
    bad.graph.initializer[0].raw_data = bad.graph.initializer[0].raw_data[:-2]
    onnx.save(bad, os.path.join(out, "bad_short.onnx"))
    consts(out)
    wide = retype(half, TensorProto.FLOAT16, TensorProto.DOUBLE, np.float64)
    (y,) = ReferenceEvaluator(wide).run(None, {wide.graph.input[0].name: x.astype(np.float64)})
    onnx.save_tensor(numpy_helper.from_array(y.astype(np.float32), half.graph.output[0].name),
                     os.path.join(out, "output.pb"))


if __name__ == "__main__":
    main()
