#!/usr/bin/env python3
"""Writes the small ONNX models of Resize (src/onnx/resize.c) that
tests/cli/ops-resize.sh runs with `convgen infer` into tests/onnx/resize/
(committed, so that the suite needs no onnx package):
    python3 tests/onnx/make_resize.py [DIR]
Inputs from a fixed seed, uniform in [-1, 1); expected outputs from onnx's
ReferenceEvaluator on the inputs in float64; the checker passes each model.

nearest.onnx (opset 13) on x [1, 3, 7, 6], one output per case, the
expected ones by the spec's formulas in exact rationals (nearest_places):
  0 scales [1, 1, 2, 3], asymmetric, floor (torch's nearest upsampling)
  1 sizes [1, 3, 17, 4], half_pixel, round_prefer_floor (the defaults)
  2 sizes [1, 3, 3, 13], align_corners, ceil
  3 scales [1, 1, 0.5, 1.5], half_pixel, round_prefer_ceil
  4 sizes [1, 3, 1, 1], pytorch_half_pixel (an output of one place)
nearest11.onnx (opset 11) on x [1, 2, 5, 4]: scales [1, 1, 1.5, 2.5] (its
  scales input after an empty roi), tf_half_pixel_for_nn (opset 11 and
  12 only, which the reference evaluator does not know: the expected
  output by numpy, x = (i + 1/2) / scale rounded half up).
linear.onnx (opset 13) on x [1, 3, 7, 6]:
  0 sizes [1, 3, 28, 24], pytorch_half_pixel (torch's bilinear, align_corners=False)
  1 sizes [1, 3, 13, 11], align_corners (align_corners=True)
  2 sizes [1, 3, 4, 5], half_pixel (downsampling)
  3 scales [1, 1, 1.5, 2], asymmetric
  4 sizes [1, 3, 1, 9], pytorch_half_pixel (one row)
linear1.onnx (opset 13) on x [1, 2, 1, 1]: sizes [1, 2, 14, 14],
  pytorch_half_pixel: DeepLabV3's pooled branch upsampled to its plane.
trinearest11.onnx (opset 11) on x [1, 2, 5, 4]: scales [1, 1, 1.5, 2.5] (its
  scales input after an empty roi), tf_half_pixel_for_nn (opset 11 and
  12 only, which the reference evaluator does not know: the expected
  output by numpy, x = (i + 1/2) / scale rounded half up).
linear.onnx (opset 13) on x [1, 2, 3, 4, 5]: sizes [1, 2, 5, 7, 4],
  linear over three axes, half_pixel.
axes.onnx (opset 18) on x [2, 5, 6]: axes [-1] with scales [2.5]
  (nearest) and axes [1] with sizes [8] (linear).
decoder.onnx (opset 17) on x [1, 3, 16, 16]: an upsampling decoder: Conv
  stride 2 + Relu, Conv stride 2 + Relu, Resize x2 nearest, Concat with the
  first stage, Conv + Relu, Resize bilinear to the input's 16x16 (sizes
  through Shape, Slice and Concat, folded at import), Conv 1x1.
cubic.onnx, antialias.onnx: models that import takes and infer refuses
  (cubic interpolation, with an input of zeros; opset 18's antialias).
bad_both.onnx: scales and sizes both given; bad_sizes.onnx: sizes of
  three values for a rank-4 input; bad_mode.onnx: mode 'bilinear'.
Each NAME with NAME_input.pb and NAME_output_K.pb.
"""
import math
import os
import sys
from fractions import Fraction

import numpy as np
import onnx
import onnx.shape_inference
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from float64 import to_double

rng = np.random.default_rng(5)
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "resize")


def f32(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.float32), name)


def i64(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def save(name, nodes, inits, x_shape, noutputs, opset=13, run=True, model_file=True, check=True):
    outs = ["y%d" % k for k in range(noutputs)]
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="convgen tests")
    model.ir_version = 8
    if check:
        onnx.checker.check_model(onnx.shape_inference.infer_shapes(model), full_check=True)
    if model_file:
        onnx.save(model, os.path.join(OUT, name + ".onnx"))
    if not run:
        return
    x = rng.uniform(-1, 1, x_shape).astype(np.float32)
    # the reference in float64: the model's float initializers and input widened
    ys = ReferenceEvaluator(to_double(model)).run(None, {"x": x.astype(np.float64)})
    onnx.save_tensor(numpy_helper.from_array(x, "x"), os.path.join(OUT, name + "_input.pb"))
    for k, y in enumerate(ys):
        onnx.save_tensor(numpy_helper.from_array(np.asarray(y).astype(np.float32), outs[k]),
                         os.path.join(OUT, "%s_output_%d.pb" % (name, k)))


def resize(k, mode, coord, nearest=None, scales=None, sizes=None, inits=None, src="x", **attrs):
    """Resize node k of src, its scales or sizes as initializers s<k>."""
    ins = [src, "", "", ""]
    if scales is not None:
        inits.append(f32("s%d" % k, scales))
        ins[2] = "s%d" % k
    if sizes is not None:
        inits.append(i64("s%d" % k, sizes))
        ins[3] = "s%d" % k
    while ins[-1] == "":
        ins.pop()
    if nearest:
        attrs["nearest_mode"] = nearest
    return helper.make_node("Resize", ins, ["y%d" % k], name="resize%d" % k, mode=mode,
                            coordinate_transformation_mode=coord, **attrs)


def nearest_places(d, c, p, q, coord, mode):
    """The places nearest reads along an axis (length d to c, scale p/q),
    in exact rationals as the spec's formulas give them."""
    out = []
    for i in range(c):
        if p == q and c == d:
            out.append(i)
            continue
        s = Fraction(p, q)
        x = {"half_pixel": (i + Fraction(1, 2)) / s - Fraction(1, 2),
             "pytorch_half_pixel": (i + Fraction(1, 2)) / s - Fraction(1, 2) if c > 1 else Fraction(-1, 2),
             "align_corners": Fraction(i * (d - 1), c - 1) if c > 1 else Fraction(0),
             "asymmetric": i / s}[coord]
        j = {"floor": math.floor(x), "ceil": math.ceil(x), "round_prefer_floor": math.ceil(x - Fraction(1, 2)),
             "round_prefer_ceil": math.floor(x + Fraction(1, 2))}[mode]
        out.append(min(max(j, 0), d - 1))
    return out


def nearest():
    """Expected outputs from nearest_places: the reference evaluator's float
    coordinates put case 1's x(8) = 3 (exactly, 8.5 * 7/17 - 1/2) at
    3.0000000000000004 and then read place 2."""
    inits = []
    cases = [("asymmetric", "floor", dict(scales=[1, 1, 2, 3])),
             ("half_pixel", "round_prefer_floor", dict(sizes=[1, 3, 17, 4])),
             ("align_corners", "ceil", dict(sizes=[1, 3, 3, 13])),
             ("half_pixel", "round_prefer_ceil", dict(scales=[1, 1, 0.5, 1.5])),
             ("pytorch_half_pixel", "round_prefer_floor", dict(sizes=[1, 3, 1, 1]))]
    nodes = [resize(k, "nearest", coord, mode, inits=inits, **size) for k, (coord, mode, size) in enumerate(cases)]
    shape = [1, 3, 7, 6]
    save("nearest", nodes, inits, shape, len(nodes), run=False)
    x = rng.uniform(-1, 1, shape).astype(np.float32)
    onnx.save_tensor(numpy_helper.from_array(x, "x"), os.path.join(OUT, "nearest_input.pb"))
    for k, (coord, mode, size) in enumerate(cases):
        y = x
        for a in range(4):
            if "sizes" in size:
                c = size["sizes"][a]
                p, q = c, shape[a]
            else:
                p, q = Fraction(size["scales"][a]).limit_denominator(64).as_integer_ratio()
                c = int(shape[a] * size["scales"][a])
            y = np.take(y, nearest_places(shape[a], c, p, q, coord, mode), axis=a)
        onnx.save_tensor(numpy_helper.from_array(y, "y%d" % k), os.path.join(OUT, "nearest_output_%d.pb" % k))


def nearest11():
    inits = [f32("roi", [])]
    nodes = [resize(0, "nearest", "tf_half_pixel_for_nn", "round_prefer_ceil", scales=[1, 1, 1.5, 2.5], inits=inits)]
    nodes[0].input[1] = "roi"
    save("nearest11", nodes, inits, [1, 2, 5, 4], 1, opset=11, run=False)
    x = rng.uniform(-1, 1, [1, 2, 5, 4]).astype(np.float32)
    def places(d, c, s):
        return [min(int(np.floor((i + 0.5) / s + 0.5)), d - 1) for i in range(c)]
    y = x[:, :, places(5, 7, 1.5), :][:, :, :, places(4, 10, 2.5)]
    onnx.save_tensor(numpy_helper.from_array(x, "x"), os.path.join(OUT, "nearest11_input.pb"))
    onnx.save_tensor(numpy_helper.from_array(y, "y0"), os.path.join(OUT, "nearest11_output_0.pb"))


def linear():
    inits = []
    nodes = [resize(0, "linear", "pytorch_half_pixel", sizes=[1, 3, 28, 24], inits=inits),
             resize(1, "linear", "align_corners", sizes=[1, 3, 13, 11], inits=inits),
             resize(2, "linear", "half_pixel", sizes=[1, 3, 4, 5], inits=inits),
             resize(3, "linear", "asymmetric", scales=[1, 1, 1.5, 2], inits=inits),
             resize(4, "linear", "pytorch_half_pixel", sizes=[1, 3, 1, 9], inits=inits)]
    save("linear", nodes, inits, [1, 3, 7, 6], len(nodes))
    inits = []
    save("linear1", [resize(0, "linear", "pytorch_half_pixel", sizes=[1, 2, 14, 14], inits=inits)], inits,
         [1, 2, 1, 1], 1)
    inits = []
    save("trilinear", [resize(0, "linear", "half_pixel", sizes=[1, 2, 5, 7, 4], inits=inits)], inits,
         [1, 2, 3, 4, 5], 1)


def axes():
    inits = []
    nodes = [resize(0, "nearest", "asymmetric", "floor", scales=[2.5], inits=inits, axes=[-1]),
             resize(1, "linear", "half_pixel", sizes=[8], inits=inits, axes=[1])]
    save("axes", nodes, inits, [2, 5, 6], len(nodes), opset=18, run=False)
    # expected: the same resizes over every axis (the reference evaluator's
    # axes path fails on this input), from the same input
    inits = []
    nodes = [resize(0, "nearest", "asymmetric", "floor", scales=[1, 1, 2.5], inits=inits),
             resize(1, "linear", "half_pixel", sizes=[2, 8, 6], inits=inits)]
    save("axes", nodes, inits, [2, 5, 6], len(nodes), opset=13, run=True, model_file=False)


def decoder():
    def w(name, *shape):
        return numpy_helper.from_array(rng.uniform(-0.5, 0.5, shape).astype(np.float32), name)
    inits = [w("w1", 8, 3, 3, 3), w("b1", 8), w("w2", 16, 8, 3, 3), w("b2", 16), w("w3", 8, 24, 3, 3), w("b3", 8),
             w("w4", 2, 8, 1, 1), w("b4", 2), f32("up", [1, 1, 2, 2]), i64("st", [2]), i64("en", [4]),
             i64("hw0", [0]), f32("roi", []), f32("none", [])]
    n = helper.make_node
    nodes = [n("Conv", ["x", "w1", "b1"], ["c1"], name="enc1", strides=[2, 2], pads=[1, 1, 1, 1]),
             n("Relu", ["c1"], ["r1"], name="relu1"),
             n("Conv", ["r1", "w2", "b2"], ["c2"], name="enc2", strides=[2, 2], pads=[1, 1, 1, 1]),
             n("Relu", ["c2"], ["r2"], name="relu2"),
             n("Resize", ["r2", "roi", "up"], ["u2"], name="up2", mode="nearest",
               coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
             n("Concat", ["u2", "r1"], ["cat"], name="skip", axis=1),
             n("Conv", ["cat", "w3", "b3"], ["c3"], name="dec", pads=[1, 1, 1, 1]),
             n("Relu", ["c3"], ["r3"], name="relu3"),
             n("Shape", ["x"], ["xs"], name="shape"),
             n("Slice", ["xs", "st", "en", "hw0"], ["hw"], name="hw"),
             n("Shape", ["r3"], ["rs"], name="rshape"),
             n("Slice", ["rs", "hw0", "st", "hw0"], ["nc"], name="nc"),
             n("Concat", ["nc", "hw"], ["size"], name="size", axis=0),
             n("Resize", ["r3", "roi", "none", "size"], ["u3"], name="up1", mode="linear",
               coordinate_transformation_mode="pytorch_half_pixel"),
             n("Conv", ["u3", "w4", "b4"], ["y0"], name="head")]
    save("decoder", nodes, inits, [1, 3, 16, 16], 1, opset=17)


def refused():
    inits = []
    save("cubic", [resize(0, "cubic", "half_pixel", sizes=[1, 1, 6, 6], inits=inits)], inits, [1, 1, 3, 3], 1,
         run=False)
    onnx.save_tensor(numpy_helper.from_array(np.zeros([1, 1, 3, 3], np.float32), "x"),
                     os.path.join(OUT, "cubic_input.pb"))
    inits = []
    save("antialias", [resize(0, "linear", "half_pixel", sizes=[1, 1, 2, 2], inits=inits, antialias=1)], inits,
         [1, 1, 6, 6], 1, opset=18, run=False)
    inits = [f32("sc", [1, 1, 2, 2]), i64("sz", [1, 1, 6, 6])]
    save("bad_both", [helper.make_node("Resize", ["x", "", "sc", "sz"], ["y0"], name="both")], inits,
         [1, 1, 3, 3], 1, run=False, check=False)
    inits = []
    save("bad_sizes", [resize(0, "nearest", "asymmetric", "floor", sizes=[1, 6, 6], inits=inits)], inits,
         [1, 1, 3, 3], 1, run=False, check=False)
    inits = []
    node = resize(0, "nearest", "asymmetric", "floor", sizes=[1, 1, 6, 6], inits=inits)
    next(a for a in node.attribute if a.name == "mode").s = b"bilinear"
    graph = helper.make_graph([node], "bad_mode", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 3, 3])],
                              [helper.make_tensor_value_info("y0", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="convgen tests")
    model.ir_version = 8
    onnx.save(model, os.path.join(OUT, "bad_mode.onnx"))   # the checker refuses the mode too


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    nearest()
    nearest11()
    linear()
    axes()
    decoder()
    refused()
