#!/usr/bin/env python3
"""Writes tests/onnx/malformed/: models and tensor files that `convgen import`
(or `convgen infer --input`) must refuse with a message and exit 2, each one a
finding of issue 34's fuzzing that crashed, overflowed or was accepted before
its fix. Committed, so the suite needs no onnx package:
    python3 tests/onnx/make_malformed.py [DIR]
EXPECT in that folder gives, per file, the text its message must contain
(tests/cli/malformed.sh reads it)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CASES = {}   # name: (model or TensorProto, the text the message must contain)


def vi(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, inits=()):
    graph = helper.make_graph(nodes, "malformed", inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)], producer_name="convgen tests")


def raw_tensor(name, dims, dtype=TensorProto.FLOAT, raw=b""):
    """A TensorProto with any dims (negative, huge), which numpy_helper cannot make."""
    t = TensorProto()
    t.name, t.data_type = name, dtype
    t.dims.extend(dims)
    if raw:
        t.raw_data = raw
    return t


def zeros(name, *shape):
    return numpy_helper.from_array(np.zeros(shape, np.float32), name)


def conv_model(attrs, w=None):
    w = w if w is not None else zeros("w", 4, 3, 3, 3)
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="conv", **attrs)
    return model([node], [vi("x", [1, 3, 8, 8])], [vi("y", None)], [w])


def case(name, expect):
    def put(make):
        CASES[name] = (make(), expect)
        return make
    return put


# Conv with auto_pad SAME_UPPER and strides 0: a division by zero (SIGFPE).
case("conv_same_upper_stride0", "strides and dilations must be 1 to")(
    lambda: conv_model({"auto_pad": "SAME_UPPER", "strides": [0, 0]}))
# Attributes past int were truncated by casts: strides 2^32+1 ran as 1, dilations 2^32+2 as 2, [0, 0] as 1.
case("conv_strides_wrap", "strides and dilations must be 1 to")(lambda: conv_model({"strides": [2**32 + 1, 1]}))
case("conv_dilations_wrap", "strides and dilations must be 1 to")(lambda: conv_model({"dilations": [2**32 + 2, 1]}))
case("conv_dilations_zero", "strides and dilations must be 1 to")(lambda: conv_model({"dilations": [0, 0]}))
# A float initializer with negative dims: a negative allocation.
case("init_negative_dims", "initializer 'w' has the shape -7x24")(
    lambda: conv_model({}, raw_tensor("w", [-7, 24])))
# dims [2^61] with no data: an allocation of 2^63 bytes.
case("init_huge_no_data", "initializer 'w' has the shape 2305843009213693952")(
    lambda: conv_model({}, raw_tensor("w", [2**61])))
# 2^31 - 1 floats declared, none given: 8 GB allocated and zeroed before the refusal.
case("init_2g_floats_no_data", "does not hold the 2147483647 floats of its shape")(
    lambda: conv_model({}, raw_tensor("w", [2**31 - 1])))
# dims whose product wraps int64 (to 60 elements, the data given for 60).
case("init_dims_wrap", "initializer 'w' has the shape 423617476x12956191x3361")(
    lambda: conv_model({}, raw_tensor("w", [423617476, 12956191, 3361], raw=bytes(240))))


# A Reshape whose shape initializer has dims [-1]: a negative memcpy size.
@case("reshape_shape_dims_negative", "initializer 's' has the shape -1")
def _():
    node = helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape")
    return model([node], [vi("x", [1, 8])], [vi("y", None)], [raw_tensor("s", [-1], TensorProto.INT64)])


# A node output that reuses an initializer's name, then read at the new size
# (a heap overflow in prepare_conv and batchnorm).
@case("ssa_concat_over_initializer", "output 'B' is already defined")
def _():
    nodes = [helper.make_node("Concat", ["B", "B"], ["B"], name="cat", axis=0),
             helper.make_node("Gemm", ["x", "B"], ["y"], name="fc")]
    return model(nodes, [vi("x", [1, 4])], [vi("y", None)], [zeros("B", 4, 4)])


@case("ssa_output_over_input", "output 'x' is already defined")
def _():
    nodes = [helper.make_node("Relu", ["x"], ["x"], name="relu"), helper.make_node("Relu", ["x"], ["y"], name="r2")]
    return model(nodes, [vi("x", [1, 4])], [vi("y", None)])


@case("ssa_output_twice", "output 'a' is already defined")
def _():
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="r1"), helper.make_node("Sigmoid", ["x"], ["a"], name="r2")]
    return model(nodes, [vi("x", [1, 4])], [vi("a", None)])


@case("ssa_initializer_twice", "'w' is defined twice")
def _():
    return model(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="conv")], [vi("x", [1, 3, 8, 8])], [vi("y", None)],
        [zeros("w", 4, 3, 3, 3), zeros("w", 4, 3, 1, 1)])


@case("input_twice", "input 'x' is listed twice")
def _():
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [1, 4]), vi("x", [1, 8])],
                 [vi("y", None)])


# A Concat whose output dimension passes 2^31 - 1 (it reported -4611686018427387904 for larger ones).
@case("concat_dimension_past_int", "adds up to more than 2147483647")
def _():
    node = helper.make_node("Concat", ["x", "x", "x"], ["y"], name="cat", axis=1)
    return model([node], [vi("x", [1, 2**30])], [vi("y", None)])


# A Flatten of an input past the bounds: refused at the input.
@case("input_dimension_past_int", "input 'x' has a dimension of 4294967298")
def _():
    return model([helper.make_node("Flatten", ["x"], ["y"], name="flat")], [vi("x", [1, 3, 16, 2**32 + 2])],
                 [vi("y", None)])


@case("input_elements_past_bounds", "input 'x' has more than 2147483647 elements")
def _():
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [4, 1024, 1024, 1024])],
                 [vi("y", None)])


# A run whose activations pass any device's memory (20 values of 8.6 GB alive
# at once): refused before any allocation, not failed midway or aborted.
@case("run_past_device_memory", "of device memory")
def _():
    relus = [helper.make_node("Relu", ["x"], ["r%d" % i], name="relu%d" % i) for i in range(20)]
    adds = [helper.make_node("Add", ["r0", "r1"], ["s1"], name="add1")]
    adds += [helper.make_node("Add", ["s%d" % (i - 1), "r%d" % i], ["s%d" % i], name="add%d" % i) for i in range(2, 20)]
    return model(relus + adds, [vi("x", [1, 1, 46340, 46340])], [vi("s19", None)])


# Models that were accepted and ran nothing (exit 0).
case("input_int64", "input 'x' has element type int64 (7): convgen takes an integer input as a constant")(
    lambda: model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [1, 4], TensorProto.INT64)],
                  [vi("y", None)]))
case("no_outputs", "the graph has no outputs")(
    lambda: model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [1, 4])], []))
# Dropout's mask read: refused as "output 'mask' has no elements (an initializer that is not float32?)" by infer.
case("dropout_mask_read", "its mask output 'mask' is read")(
    lambda: model([helper.make_node("Dropout", ["x"], ["y", "mask"], name="drop"),
                   helper.make_node("Relu", ["y"], ["z"], name="relu")], [vi("x", [1, 4])],
                  [vi("z", None), vi("mask", None)]))

# Tensor files for `convgen infer tests/onnx/block.onnx --input FILE`.
TENSORS = {
    # dims whose product wraps to 60, with 60 floats: it was read as a tensor of 423617476x12956191x3361
    "tensor_dims_wrap": (raw_tensor("x", [423617476, 12956191, 3361], raw=bytes(240)), "more than 2147483647 elements"),
    # the external-data flag was ignored (the tensor read from its raw_data, or garbage)
    "tensor_external": (None, "keeps its data in an external file"),
}


def constant_first():
    """A well-formed model whose Constant node comes first: the nodes after it
    had their attributes read from the node before them (LeakyRelu's alpha
    from the Conv: 0.01, the default, for 0.3). tests/cli/import.sh reads it."""
    nodes = [helper.make_node("Constant", [], ["unused"], name="k", value_float=1.0),
             helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("LeakyRelu", ["c"], ["y"], name="leaky", alpha=0.3)]
    return model(nodes, [vi("x", [1, 3, 8, 8])], [vi("y", None)], [zeros("w", 4, 3, 3, 3)])


def external(out):
    """tests/onnx/external/: tiny.onnx with every initializer in one external
    file, as torch.onnx's dynamo exporter writes models (tests/cli/import.sh
    runs it against tiny's output), and in out/ copies whose external data is
    refused: a location outside the model's folder, absolute, a missing file,
    a file too short, a length that is not the shape's."""
    here = os.path.dirname(os.path.abspath(__file__))
    ext = os.path.join(here, "external")
    os.makedirs(ext, exist_ok=True)
    m = onnx.load(os.path.join(here, "tiny.onnx"))
    onnx.save_model(m, os.path.join(ext, "tiny_external.onnx"), save_as_external_data=True,
                    all_tensors_to_one_file=True, location="tiny_external.onnx.data", size_threshold=0)

    import shutil   # the data beside the broken copies too, for those whose offset or length is wrong
    shutil.copyfile(os.path.join(ext, "tiny_external.onnx.data"), os.path.join(out, "tiny_external.onnx.data"))

    def broken(name, expect, edit):
        b = onnx.load(os.path.join(ext, "tiny_external.onnx"), load_external_data=False)
        t = b.graph.initializer[0]
        entries = {e.key: e for e in t.external_data}
        edit(t, entries)
        CASES[name] = (b, expect)

    broken("external_escape", "external data needs a location inside the model's folder (got '../external/tiny_ex",
           lambda t, e: setattr(e["location"], "value", "../external/tiny_external.onnx.data"))
    broken("external_absolute", "external data needs a location inside the model's folder (got '/etc/passwd')",
           lambda t, e: setattr(e["location"], "value", "/etc/passwd"))
    broken("external_missing", "no_such.data: No such file or directory",
           lambda t, e: setattr(e["location"], "value", "no_such.data"))
    broken("external_short", "does not hold its 864 bytes at offset 99999999",
           lambda t, e: setattr(e["offset"], "value", "99999999"))
    broken("external_length", "external data of 4 bytes for the 864 its shape holds",
           lambda t, e: setattr(e["length"], "value", "4"))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "malformed")
    os.makedirs(out, exist_ok=True)
    external(out)
    with open(os.path.join(out, "..", "constant_first.onnx"), "wb") as f:
        f.write(constant_first().SerializeToString())
    lines = []
    for name, (m, expect) in sorted(CASES.items()):
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(m.SerializeToString())
        lines.append("%s.onnx: %s" % (name, expect))
    ext = numpy_helper.from_array(np.zeros((1, 3, 16, 16), np.float32), "x")
    ext.data_location = TensorProto.EXTERNAL
    TENSORS["tensor_external"] = (ext, TENSORS["tensor_external"][1])
    for name, (t, expect) in sorted(TENSORS.items()):
        with open(os.path.join(out, name + ".pb"), "wb") as f:
            f.write(t.SerializeToString())
        lines.append("%s.pb: %s" % (name, expect))
    with open(os.path.join(out, "EXPECT"), "w") as f:
        f.write("# FILE: text its refusal must contain (tests/onnx/make_malformed.py writes this)\n")
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
