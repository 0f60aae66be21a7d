#!/usr/bin/env python3
"""Writes the small models of the layout operators and of the shape
arithmetic folded at import (tests/cli/ops-layout.sh reads them; committed,
so that the suite needs no onnx package): python3 tests/onnx/make_layout.py
[DIR], DIR default tests/onnx/layout. Each NAME.onnx has one float input x,
NAME_input.pb, and NAME_output.pb: what numpy computes for it.

transpose     Transpose [2,3,4,5] perm 2,0,3,1
slice         Slice (opset 13: inputs) on three axes: steps 2 and -2,
              negative starts and ends, an end past the dimension
slice9        Slice of opset 9 (attributes, no steps)
pad_constant  Pad mode constant, value 1.5, a negative pad (cropped)
pad_reflect   Pad mode reflect
pad_edge      Pad mode edge
pad10         Pad of opset 10 (pads and value attributes)
squeeze       Squeeze then Unsqueeze (opset 13: axes inputs), then a Transpose
squeeze11     the same of opset 11 (axes attributes), no axes on Squeeze
expand        Expand [3,1] to [2,3,4]
view          torch.onnx's x.view(x.size(0), -1): Shape -> Gather ->
              Unsqueeze -> Concat -> Reshape, every node but the Reshape folded
shape_arith   more of it: Slice of a shape, Mul and Div of int64 scalars,
              Cast to float, ConstantOfShape, Range, each folded, their
              results added to the reshaped input
gather_const  Gather (negative indices) and Unsqueeze of float constants,
              folded, added to x
concat17      a Concat of 17 inputs (DenseNet-121 has one), a zip of zips
gather_strided, gather_axis1, gather_axis2: Gathers of the graph's input at
              constant affine indices (a flattened input at strides 12
              and 2; a scalar index on axis 1; negative indices on axis 2)
bad_gather    a Gather of the graph's input at indices [2, 0, 1], not affine
              in their place (imported; infer refuses it)
bad_pad_wrap  Pad mode wrap (refused)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(30)
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "layout")


def i64(name, v):
    return numpy_helper.from_array(np.array(v, np.int64), name)


def f32(name, v):
    return numpy_helper.from_array(np.array(v, np.float32), name)


def save(name, nodes, inits, xshape, x, y, opset=13, expect=True):
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(xshape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(y.shape) if y is not None
                                                             else None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="convgen tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, name + ".onnx"))
    if expect:
        onnx.save_tensor(numpy_helper.from_array(x, "x"), os.path.join(OUT, name + "_input.pb"))
        onnx.save_tensor(numpy_helper.from_array(y.astype(np.float32), "y"), os.path.join(OUT, name + "_output.pb"))


def rand(*shape):
    return rng.uniform(-1, 1, shape).astype(np.float32)


def main():
    os.makedirs(OUT, exist_ok=True)
    x = rand(2, 3, 4, 5)
    save("transpose", [helper.make_node("Transpose", ["x"], ["y"], name="t", perm=[2, 0, 3, 1])], [], x.shape, x,
         x.transpose(2, 0, 3, 1))

    x = rand(4, 6, 5)
    inits = [i64("st", [1, -1, -100]), i64("en", [4, -7, 100]), i64("ax", [0, 1, -1]), i64("sp", [2, -2, 1])]
    save("slice", [helper.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["y"], name="s")], inits, x.shape, x,
         x[1:4:2, -1:-7:-2, :])

    x = rand(5, 4)
    save("slice9", [helper.make_node("Slice", ["x"], ["y"], name="s", starts=[1, -3], ends=[10, -1], axes=[0, 1])],
         [], x.shape, x, x[1:10, -3:-1], opset=9)

    x = rand(1, 2, 3, 4)
    pads = [0, 1, -1, 2, 0, 0, 2, 1]
    y = np.pad(x[:, :, 1:, :], [(0, 0), (1, 0), (0, 2), (2, 1)], constant_values=1.5)
    save("pad_constant", [helper.make_node("Pad", ["x", "p", "v"], ["y"], name="p", mode="constant")],
         [i64("p", pads), f32("v", 1.5)], x.shape, x, y)

    x = rand(1, 2, 4, 5)
    y = np.pad(x, [(0, 0), (0, 0), (2, 1), (1, 3)], mode="reflect")
    save("pad_reflect", [helper.make_node("Pad", ["x", "p"], ["y"], name="p", mode="reflect")],
         [i64("p", [0, 0, 2, 1, 0, 0, 1, 3])], x.shape, x, y)

    x = rand(2, 3, 4)
    y = np.pad(x, [(1, 2), (0, 1), (2, 0)], mode="edge")
    save("pad_edge", [helper.make_node("Pad", ["x", "p"], ["y"], name="p", mode="edge")],
         [i64("p", [1, 0, 2, 2, 1, 0])], x.shape, x, y)

    x = rand(3, 4)
    save("pad10", [helper.make_node("Pad", ["x"], ["y"], name="p", pads=[1, 2, 0, 1], value=-1.0)], [], x.shape, x,
         np.pad(x, [(1, 0), (2, 1)], constant_values=-1.0), opset=10)

    x = rand(1, 3, 1, 4)
    y = x.reshape(3, 4)[:, None, :, None].transpose(3, 2, 1, 0)
    save("squeeze", [helper.make_node("Squeeze", ["x", "a0"], ["s"], name="sq"),
                     helper.make_node("Unsqueeze", ["s", "a1"], ["u"], name="unsq"),
                     helper.make_node("Transpose", ["u"], ["y"], name="t")],
         [i64("a0", [0, -2]), i64("a1", [-1, 1])], x.shape, x, y)
    save("squeeze11", [helper.make_node("Squeeze", ["x"], ["s"], name="sq"),
                       helper.make_node("Unsqueeze", ["s"], ["u"], name="unsq", axes=[-1, 1]),
                       helper.make_node("Transpose", ["u"], ["y"], name="t")], [], x.shape, x, y, opset=11)

    x = rand(3, 1)
    save("expand", [helper.make_node("Expand", ["x", "shape"], ["y"], name="e")], [i64("shape", [2, 1, 4])], x.shape,
         x, np.broadcast_to(x, (2, 3, 4)))

    # torch.onnx.export of x.view(x.size(0), -1) (TorchScript exporter, opset 13)
    x = rand(2, 3, 4, 4)
    nodes = [helper.make_node("Shape", ["x"], ["s"], name="Shape_0"),
             helper.make_node("Constant", [], ["c0"], name="Constant_1", value=i64("c0", 0)),
             helper.make_node("Gather", ["s", "c0"], ["n"], name="Gather_2", axis=0),
             helper.make_node("Constant", [], ["ax0"], name="Constant_3", value=i64("ax0", [0])),
             helper.make_node("Unsqueeze", ["n", "ax0"], ["n1"], name="Unsqueeze_4"),
             helper.make_node("Constant", [], ["m1"], name="Constant_5", value=i64("m1", [-1])),
             helper.make_node("Concat", ["n1", "m1"], ["shape"], name="Concat_6", axis=0),
             helper.make_node("Reshape", ["x", "shape"], ["r"], name="Reshape_7"),
             helper.make_node("Relu", ["r"], ["y"], name="Relu_8")]
    save("view", nodes, [], x.shape, x, np.maximum(x.reshape(2, -1), 0))

    nodes = [helper.make_node("Shape", ["x"], ["s"], name="shape"),
             helper.make_node("Gather", ["s", "c0"], ["n"], name="batch", axis=0),
             helper.make_node("Gather", ["s", "c1"], ["c"], name="channels", axis=0),
             helper.make_node("Slice", ["s", "b2", "e4"], ["hw"], name="hw"),
             helper.make_node("Gather", ["hw", "c0"], ["h"], name="h", axis=0),
             helper.make_node("Gather", ["hw", "cm1"], ["w"], name="w", axis=0),
             helper.make_node("Mul", ["h", "w"], ["h_w"], name="mul_hw"),
             helper.make_node("Mul", ["c", "h_w"], ["chw"], name="mul_c"),
             helper.make_node("Div", ["chw", "c2"], ["half"], name="div"),
             helper.make_node("Unsqueeze", ["n", "ax0"], ["n1"], name="unsq_n"),
             helper.make_node("Unsqueeze", ["half", "ax0"], ["half1"], name="unsq_half"),
             helper.make_node("Concat", ["n1", "two", "half1"], ["shape3"], name="concat", axis=0),
             helper.make_node("Reshape", ["x", "shape3"], ["r"], name="reshape"),
             helper.make_node("Cast", ["w"], ["wf"], name="cast", to=TensorProto.FLOAT),
             helper.make_node("Add", ["r", "wf"], ["a1"], name="add_w"),
             helper.make_node("ConstantOfShape", ["ones3"], ["half_const"], name="cos",
                              value=numpy_helper.from_array(np.array([0.5], np.float32), "v")),
             helper.make_node("Add", ["a1", "half_const"], ["a2"], name="add_half"),
             helper.make_node("Range", ["c0", "half", "c1"], ["rng"], name="range"),
             helper.make_node("Cast", ["rng"], ["rngf"], name="cast_range", to=TensorProto.FLOAT),
             helper.make_node("Add", ["a2", "rngf"], ["y"], name="add_range")]
    inits = [i64("c0", 0), i64("c1", 1), i64("cm1", -1), i64("c2", 2), i64("b2", [2]), i64("e4", [4]),
             i64("ax0", [0]), i64("two", [2]), i64("ones3", [1, 1, 1])]
    y = x.reshape(2, 2, 24) + np.float32(4) + np.float32(0.5) + np.arange(24, dtype=np.float32)
    save("shape_arith", nodes, inits, x.shape, x, y)

    x = rand(2, 2, 3)
    table = rand(5, 3)
    idx = np.array([[0, -1], [2, 1]], np.int64)
    bias = rand(3)
    nodes = [helper.make_node("Gather", ["table", "idx"], ["g"], name="gather", axis=0),
             helper.make_node("Unsqueeze", ["bias", "ax0"], ["b1"], name="unsq"),
             helper.make_node("Add", ["x", "g"], ["a"], name="add_g"),
             helper.make_node("Add", ["a", "b1"], ["y"], name="add_b")]
    save("gather_const", nodes, [numpy_helper.from_array(table, "table"), i64("idx", idx),
                                 numpy_helper.from_array(bias, "bias"), i64("ax0", [0])],
         x.shape, x, x + table[idx] + bias[None, :])

    # DenseNet-121's Concat of 17 inputs: zipped in groups of 16 (a tuple of the IR has 16 fields)
    x = rand(2, 1, 3)
    parts = [rand(2, k % 3 + 1, 3) for k in range(15)]
    names = ["x"] + ["c%d" % k for k in range(15)] + ["x"]
    save("concat17", [helper.make_node("Concat", names, ["y"], name="cat", axis=1)],
         [numpy_helper.from_array(p, "c%d" % k) for k, p in enumerate(parts)], x.shape, x,
         np.concatenate([x] + parts + [x], axis=1))

    save("bad_gather", [helper.make_node("Gather", ["x", "i"], ["y"], name="g", axis=0)], [i64("i", [2, 0, 1])],
         (3, 4), None, np.zeros((3, 4), np.float32), expect=False)
    onnx.save_tensor(numpy_helper.from_array(np.zeros((3, 4), np.float32), "x"), os.path.join(OUT, "bad_gather_input.pb"))
    save("bad_pad_wrap", [helper.make_node("Pad", ["x", "p"], ["y"], name="p", mode="wrap")],
         [i64("p", [1, 1, 1, 1])], (3, 4), None, np.zeros((5, 6), np.float32), opset=19, expect=False)

    # Split: a node of several outputs, one node per output at import (sizes as an input, opset 13)
    x = rand(1, 8, 3, 3)
    nodes = [helper.make_node("Split", ["x", "sz"], ["a", "b"], name="split", axis=1),
             helper.make_node("Relu", ["b"], ["rb"], name="relu"),
             helper.make_node("Concat", ["rb", "a"], ["y"], name="cat", axis=1)]
    save("split13", nodes, [i64("sz", [3, 5])], x.shape, x, np.concatenate([np.maximum(x[:, 3:], 0), x[:, :3]], 1))
    # num_outputs (opset 18): equal parts, the last smaller (7 = 3 + 3 + 1)
    x = rand(2, 7, 4)
    nodes = [helper.make_node("Split", ["x"], ["a", "b", "c"], name="split", axis=-2, num_outputs=3),
             helper.make_node("Concat", ["c", "a", "b"], ["y"], name="cat", axis=1)]
    save("split18", nodes, [], x.shape, x, np.concatenate([x[:, 6:], x[:, :3], x[:, 3:6]], 1), opset=18)
    # ShuffleNet V2's unit: the channels split, one half through a 1x1 convolution, concatenated, shuffled
    x = rand(1, 8, 4, 4)
    w = rand(4, 4, 1, 1)
    b = np.maximum(np.einsum("oc,nchw->nohw", w[:, :, 0, 0], x[:, 4:]), 0)
    y = np.concatenate([x[:, :4], b], 1).reshape(1, 2, 4, 4, 4).transpose(0, 2, 1, 3, 4).reshape(1, 8, 4, 4)
    nodes = [helper.make_node("Split", ["x", "sz"], ["a", "b"], name="split", axis=1),
             helper.make_node("Conv", ["b", "w"], ["cb"], name="conv"),
             helper.make_node("Relu", ["cb"], ["rb"], name="relu"),
             helper.make_node("Concat", ["a", "rb"], ["c"], name="cat", axis=1),
             helper.make_node("Reshape", ["c", "s5"], ["r5"], name="r5"),
             helper.make_node("Transpose", ["r5"], ["t5"], name="shuffle", perm=[0, 2, 1, 3, 4]),
             helper.make_node("Reshape", ["t5", "s4"], ["y"], name="r4")]
    save("shuffle", nodes, [i64("sz", [4, 4]), numpy_helper.from_array(w, "w"), i64("s5", [1, 2, 4, 4, 4]),
                            i64("s4", [1, 8, 4, 4])], x.shape, x, y)

    # Gathers of run-time data at constant affine indices (torch.export's
    # as_strided): a flattened input read at [[0, 2, 4], [12, 14, 16]]; one
    # place of axis 1 (a scalar index); axis 2 at [-4, -2] (counted from the end)
    x = rand(2, 3, 4)
    nodes = [helper.make_node("Reshape", ["x", "flat"], ["f"], name="flatten"),
             helper.make_node("Gather", ["f", "idx"], ["y"], name="strided", axis=0)]
    idx = np.array([[0, 2, 4], [12, 14, 16]], np.int64)
    save("gather_strided", nodes, [i64("flat", [24]), i64("idx", idx)], x.shape, x, x.reshape(24)[idx])
    save("gather_axis1", [helper.make_node("Gather", ["x", "two"], ["y"], name="row", axis=1)],
         [numpy_helper.from_array(np.array(2, np.int64), "two")], x.shape, x, x[:, 2])
    save("gather_axis2", [helper.make_node("Gather", ["x", "ends"], ["y"], name="cols", axis=-1)],
         [i64("ends", [-4, -2])], x.shape, x, x[:, :, [0, 2]])


if __name__ == "__main__":
    main()
