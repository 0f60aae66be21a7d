#!/usr/bin/env python3
"""Writes tests/onnx/blocks/: the building blocks of today's CNNs, each a
small model written node for node as torch.onnx's TorchScript exporter
writes the block (its node and value names, Constant nodes for scalars,
split sizes and shapes), so that one model uses every operator and fusion
of the block (tests/cli/blocks.sh reads them). Committed, so the suite
needs no onnx package:
    python3 tests/onnx/make_blocks.py [DIR]

Each NAME.onnx has one float input x, NAME_input.pb (uniform in [-1, 1)),
and one output y, NAME_y.pb: what onnx's ReferenceEvaluator computes for a
float64 copy of the model (every float initializer, Constant and graph
input cast to double; its Erf, float32 in onnx's evaluator, replaced by
math.erf in double, and Gelu, whose function body onnx evaluates with
float32 constants, by its formula in double), rounded to float32. Weights
are random from a fixed seed, their spread 1/sqrt(fan-in) so that
activations stay near 1.

mbconv       EfficientNet's MBConv (torchvision's, expand ratio 4) on
             1x16x14x14: 1x1 expand Conv 16->64 -> BatchNormalization ->
             SiLU as x * Sigmoid(x); depthwise 3x3 Conv (group 64) -> BN ->
             SiLU; squeeze-excite: GlobalAveragePool -> 1x1 Conv 64->4 with
             bias -> SiLU -> 1x1 Conv 4->64 -> Sigmoid -> Mul(gate, x), the
             gate broadcast over the plane; 1x1 project Conv 64->16 -> BN ->
             Add of the block's input (the residual). Opset 17.
mbconv_v3    MobileNet V3's inverted residual with squeeze-excite and a hard
             swish (torchvision's, expand 3) on 1x16x14x14: 1x1 Conv 16->48
             -> BN -> HardSwish (the operator, opset 14 on); depthwise 5x5
             Conv stride 2 (group 48) -> BN -> x * HardSigmoid(x) (alpha 1/6,
             beta 1/2: a hard swish as exports before opset 14 write it);
             squeeze-excite: ReduceMean over [2, 3] keepdims (timm's
             x.mean((2, 3), keepdim=True)) -> 1x1 Conv 48->16 -> Relu -> 1x1
             Conv 16->48 -> HardSigmoid (1/6, 1/2) -> Mul; 1x1 project Conv
             48->24 -> BN, no residual (stride 2): 1x24x7x7. Opset 17.
shuffle      ShuffleNet V2's two units (torchvision's) on 1x24x16x16: a
             stride-2 unit, both branches convolved (branch 1: depthwise 3x3
             stride 2 -> BN -> 1x1 Conv -> BN -> Relu; branch 2: 1x1 Conv ->
             BN -> Relu -> depthwise 3x3 stride 2 -> BN -> 1x1 Conv -> BN ->
             Relu), Concat, the channel shuffle Reshape [1,2,24,8,8] ->
             Transpose [0,2,1,3,4] -> Reshape [1,48,8,8] (the shapes Constant
             nodes); then a stride-1 unit: Split of the channels in halves
             (opset 13: the sizes a Constant input), branch 2 on the second
             half, Concat with the first, and the shuffle again, its shapes
             computed as torch writes x.size() arithmetic (Shape -> Gather ->
             Div -> Unsqueeze -> Concat, folded at import). Opset 17.
layernorm_block
             ConvNeXt's block (timm's, layer scale in channels-last) on
             1x24x12x12: depthwise 7x7 Conv pad 3 with bias -> Transpose to
             NHWC -> LayerNormalization over the last axis (epsilon 1e-6) ->
             MatMul 24->96 + Add of the bias -> GELU as opset 17 exports write
             it, 0.5 x (1 + Erf(x / sqrt 2)) (Div, Erf, Add, Mul, Mul) ->
             MatMul 96->24 + Add -> Mul by the layer scale gamma [24] ->
             Transpose back -> Add of the block's input. Opset 17.
layernorm_decomposed
             the same block, the same weights, with the LayerNormalization
             written as exports before opset 17 write it: ReduceMean over
             the last axis, Sub, Pow 2, ReduceMean, Add epsilon, Sqrt, Div,
             Mul by the scale, Add the shift; and the layer scale as
             torchvision's ConvNeXt applies it, a Mul by gamma [24,1,1] after
             the Transpose back. Opset 13.
layernorm_gelu
             the same block, the same weights, with LayerNormalization and
             the Gelu operator. Opset 20.
fire         SqueezeNet's fire modules and an Inception-like join on
             1x16x9x9 (81 elements a channel), the Concats that convgen's
             plan joins (their inputs' nodes write into their output) and
             those it copies: fire 1 (squeeze 1x1 16->8 -> Relu; expand 1x1
             8->16 -> Relu and expand 3x3 8->16 -> Relu; Concat: slices at
             multiples of 16 elements, joined); fire 2 on it (squeeze 32->8,
             expands 8->12: the second slice starts at 972 elements, not a
             multiple of 16, copied); two branches on that (1x1 24->16 ->
             Relu; MaxPool 3x3 stride 1 pad 1 -> 1x1 24->16 -> Relu) and their
             Concat (joined), plus fire 1's output (Add); a 1x1 32->16 -> Relu
             g, and y = Concat(g, Sigmoid(g)) (g read twice: copied). Opset 17.
dense        DenseNet's dense block (torchvision's, growth 16, bottleneck
             32) on 1x16x8x8 and its transition: conv0 3x3 16->32 -> BN ->
             Relu is x0; layer k concatenates x0 .. x(k-1) (Concat; of one
             input for layer 1, as torch.cat of a list of one), then BN ->
             Relu -> 1x1 Conv ->32 -> BN -> Relu -> 3x3 Conv ->16, which is
             xk; three layers, the block's Concat of x0 .. x3 (80
             channels), the transition BN -> Relu -> 1x1 Conv 80->40 ->
             AveragePool 2x2. Its four Concats are one family, joined into
             one buffer (each the first elements of the last). Opset 17.
mixed        Inception v3's Mixed_7b on 1x16x6x6, its 1x3 and 3x1 branch
             concatenated inside the block's Concat: branch1x1 (1x1 16->8 ->
             Relu); branch3x3 (1x1 16->8 -> Relu, then Concat of its 1x3 and
             3x1 8->8 -> Relu); AveragePool 3x3 stride 1 pad 1 -> 1x1 16->8
             -> Relu; the block's Concat (32 channels: both Concats joined,
             the inner one's slices inside the block's buffer); then a head
             u, v (1x1 32->8, u with Relu), w = Concat(u, v) and y =
             Concat(u, v, w): one family whose root reads the other's
             output, so both copy. Opset 17.
The three ConvNeXt models compute one function: they read one input,
layernorm_block_input.pb, and are checked against one output,
layernorm_block_y.pb (their float64 outputs agree to 1e-7, checked here:
1e-16 with the decomposed LayerNormalization, 1e-8 with the Gelu operator,
whose sqrt 2 is exact where the Erf form's is the float32 Constant
1.4142135 torch writes).
"""
import math
import os
import sys

import numpy as np
import onnx
import onnx.shape_inference
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from onnx.reference.ops._op import OpRunUnaryNum

from float64 import to_double

rng = np.random.default_rng(5)
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "blocks")


class Erf(OpRunUnaryNum):
    """Erf in the input's precision (onnx's evaluator computes it in float32)."""
    op_domain = ""

    def _run(self, x):
        return (np.vectorize(math.erf, otypes=[x.dtype])(x),)


class Gelu(OpRunUnaryNum):
    """Gelu (approximate none) in the input's precision (onnx's function body has float32 constants)."""
    op_domain = ""

    def _run(self, x, approximate=None):
        assert approximate in (None, "none")
        return (0.5 * x * (1 + np.vectorize(math.erf, otypes=[x.dtype])(x / math.sqrt(2))),)


class Graph:
    """Nodes and initializers in graph order; a node's output is named as
    torch.onnx names it, the node's name followed by _output_0."""

    def __init__(self):
        self.nodes, self.inits = [], []

    def init(self, name, arr, dtype=np.float32):
        self.inits.append(numpy_helper.from_array(np.asarray(arr, dtype), name))
        return name

    def rand(self, name, shape, scale=1.0, lo=-1.0, hi=1.0):
        return self.init(name, rng.uniform(lo, hi, shape) * scale)

    def node(self, op, inputs, name, outputs=1, **attrs):
        outs = ["%s_output_%d" % (name, i) for i in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, outs, name=name, **attrs))
        return outs[0] if outputs == 1 else outs

    def const(self, name, value, dtype=np.float32):
        """A Constant node, as torch writes a scalar or a shape."""
        return self.node("Constant", [], name, value=numpy_helper.from_array(np.array(value, dtype)))


def conv(g, x, path, param, cin, cout, k, stride=1, group=1, bias=False):
    fan_in = cin // group * k * k
    ins = [x, g.rand(param + ".weight", (cout, cin // group, k, k), math.sqrt(3.0 / fan_in))]
    if bias:
        ins.append(g.rand(param + ".bias", (cout,), 0.5))
    return g.node("Conv", ins, path + "/Conv", dilations=[1, 1], group=group, kernel_shape=[k, k],
                  pads=[k // 2] * 4, strides=[stride, stride])


def bn(g, x, path, param, c):
    ins = [x, g.rand(param + ".weight", (c,), lo=0.5, hi=1.5), g.rand(param + ".bias", (c,), 0.5),
           g.rand(param + ".running_mean", (c,), 0.5), g.rand(param + ".running_var", (c,), lo=0.5, hi=1.5)]
    return g.node("BatchNormalization", ins, path + "/BatchNormalization", epsilon=1e-5, momentum=0.9)


def silu(g, x, path):
    return g.node("Mul", [x, g.node("Sigmoid", [x], path + "/Sigmoid")], path + "/Mul")


def hardsigmoid(g, x, path):
    return g.node("HardSigmoid", [x], path + "/HardSigmoid", alpha=1.0 / 6, beta=0.5)


def build(name, g, x_shape, opset):
    graph = helper.make_graph(g.nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], g.inits)
    # the last node's output is the graph's y
    graph.node[-1].output[0] = "y"
    opsets = [helper.make_opsetid("", opset)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="convgen tests")
    model.ir_version = max(8, helper.find_min_ir_version_for(opsets))   # torch.onnx writes IR version 8
    # y declared with its shape, as torch writes it (import checks it against its own shape rules)
    model.graph.output[0].CopyFrom(onnx.shape_inference.infer_shapes(model, strict_mode=True).graph.output[0])
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(OUT, name + ".onnx"))
    return model


def reference(model, x):
    """y in float64 (and the float32 evaluation's relative L2 distance to it, printed as a check)."""
    y64 = ReferenceEvaluator(to_double(model), new_ops=[Erf, Gelu]).run(None, {"x": x.astype(np.float64)})[0]
    y32 = ReferenceEvaluator(model).run(None, {"x": x})[0]
    err = np.linalg.norm(y32 - y64) / np.linalg.norm(y64)
    print("%-22s %-12s float32 reference vs float64: %.2e" % (model.graph.name, "x".join(map(str, y64.shape)), err))
    assert err < 1e-5, err
    return y64


def save_io(name, x, y):
    onnx.save_tensor(numpy_helper.from_array(x, "x"), os.path.join(OUT, name + "_input.pb"))
    onnx.save_tensor(numpy_helper.from_array(y.astype(np.float32), "y"), os.path.join(OUT, name + "_y.pb"))


def model_io(name, g, x_shape, opset):
    model = build(name, g, x_shape, opset)
    x = rng.uniform(-1, 1, x_shape).astype(np.float32)
    save_io(name, x, reference(model, x))


def mbconv():
    g = Graph()
    # torchvision's MBConv: block.0 expand, block.1 depthwise, block.2 squeeze-excite, block.3 project
    p = "/block/block.0/block.0."
    h = conv(g, "x", p + "0", "block.0.0", 16, 64, 1)
    h = silu(g, bn(g, h, p + "1", "block.0.1", 64), p + "2")
    p = "/block/block.1/block.1."
    h = conv(g, h, p + "0", "block.1.0", 64, 64, 3, group=64)
    h = silu(g, bn(g, h, p + "1", "block.1.1", 64), p + "2")
    s = g.node("GlobalAveragePool", [h], "/block/block.2/avgpool/GlobalAveragePool")
    s = conv(g, s, "/block/block.2/fc1", "block.2.fc1", 64, 4, 1, bias=True)
    s = silu(g, s, "/block/block.2/activation")
    s = conv(g, s, "/block/block.2/fc2", "block.2.fc2", 4, 64, 1, bias=True)
    s = g.node("Sigmoid", [s], "/block/block.2/scale_activation/Sigmoid")
    h = g.node("Mul", [s, h], "/block/block.2/Mul")   # torchvision: scale * input
    p = "/block/block.3/block.3."
    h = bn(g, conv(g, h, p + "0", "block.3.0", 64, 16, 1), p + "1", "block.3.1", 16)
    g.node("Add", [h, "x"], "/Add")                    # result += input
    model_io("mbconv", g, [1, 16, 14, 14], 17)


def mbconv_v3():
    g = Graph()
    p = "/block/block.0/block.0."
    h = conv(g, "x", p + "0", "block.0.0", 16, 48, 1)
    h = g.node("HardSwish", [bn(g, h, p + "1", "block.0.1", 48)], p + "2/HardSwish")
    p = "/block/block.1/block.1."
    h = bn(g, conv(g, h, p + "0", "block.1.0", 48, 48, 5, stride=2, group=48), p + "1", "block.1.1", 48)
    h = g.node("Mul", [h, hardsigmoid(g, h, p + "2")], p + "2/Mul")
    s = g.node("ReduceMean", [h], "/block/block.2/ReduceMean", axes=[2, 3], keepdims=1)
    s = conv(g, s, "/block/block.2/fc1", "block.2.fc1", 48, 16, 1, bias=True)
    s = g.node("Relu", [s], "/block/block.2/activation/Relu")
    s = conv(g, s, "/block/block.2/fc2", "block.2.fc2", 16, 48, 1, bias=True)
    s = hardsigmoid(g, s, "/block/block.2/scale_activation")
    h = g.node("Mul", [s, h], "/block/block.2/Mul")
    p = "/block/block.3/block.3."
    bn(g, conv(g, h, p + "0", "block.3.0", 48, 24, 1), p + "1", "block.3.1", 24)
    model_io("mbconv_v3", g, [1, 16, 14, 14], 17)


def branch2(g, x, unit, c, stride):
    """ShuffleNet V2's branch2: 1x1 -> BN -> Relu -> dw 3x3 -> BN -> 1x1 -> BN -> Relu."""
    p, q = "/%s/branch2/branch2." % unit, "%s.branch2." % unit
    h = bn(g, conv(g, x, p + "0", q + "0", c, c, 1), p + "1", q + "1", c)
    h = g.node("Relu", [h], p + "2/Relu")
    h = bn(g, conv(g, h, p + "3", q + "3", c, c, 3, stride=stride, group=c), p + "4", q + "4", c)
    h = bn(g, conv(g, h, p + "5", q + "5", c, c, 1), p + "6", q + "6", c)
    return g.node("Relu", [h], p + "7/Relu")


def shuffle():
    g = Graph()
    c = 24                                   # each branch's channels; the units' outputs have 2c
    # unit 1, stride 2: both branches read x
    p, q = "/unit1/branch1/branch1.", "unit1.branch1."
    b1 = bn(g, conv(g, "x", p + "0", q + "0", c, c, 3, stride=2, group=c), p + "1", q + "1", c)
    b1 = bn(g, conv(g, b1, p + "2", q + "2", c, c, 1), p + "3", q + "3", c)
    b1 = g.node("Relu", [b1], p + "4/Relu")
    b2 = branch2(g, "x", "unit1", c, 2)
    h = g.node("Concat", [b1, b2], "/unit1/Concat", axis=1)
    # channel_shuffle(x, 2): x.view(1, 2, c, 8, 8).transpose(1, 2).view(1, 2c, 8, 8), the shapes constants
    h = g.node("Reshape", [h, g.const("/unit1/Constant", [1, 2, c, 8, 8], np.int64)], "/unit1/Reshape")
    h = g.node("Transpose", [h], "/unit1/Transpose", perm=[0, 2, 1, 3, 4])
    h = g.node("Reshape", [h, g.const("/unit1/Constant_1", [1, 2 * c, 8, 8], np.int64)], "/unit1/Reshape_1")
    # unit 2, stride 1: x.chunk(2, dim=1) is a Split with its sizes as an input (opset 13 on)
    x1, x2 = g.node("Split", [h, g.const("/unit2/Constant", [c, c], np.int64)], "/unit2/Split", outputs=2, axis=1)
    h = g.node("Concat", [x1, branch2(g, x2, "unit2", c, 1)], "/unit2/Concat", axis=1)
    # the shuffle with its shape from x.size(): batch, channels, height, width gathered from Shape
    shape = g.node("Shape", [h], "/unit2/Shape")
    dims = [g.node("Gather", [shape, g.const("/unit2/Constant_%d" % (i + 1), i, np.int64)],
                   "/unit2/Gather" + ("_%d" % i if i else ""), axis=0) for i in range(4)]
    cpg = g.node("Div", [dims[1], g.const("/unit2/Constant_5", 2, np.int64)], "/unit2/Div")
    groups = g.const("/unit2/Constant_6", 2, np.int64)

    def unsq(v, i):
        return g.node("Unsqueeze", [v, g.const("/unit2/Constant_%d" % (7 + i), [0], np.int64)],
                      "/unit2/Unsqueeze" + ("_%d" % i if i else ""))
    view5 = g.node("Concat", [unsq(dims[0], 0), unsq(groups, 1), unsq(cpg, 2), unsq(dims[2], 3), unsq(dims[3], 4)],
                   "/unit2/Concat_1", axis=0)
    h = g.node("Reshape", [h, view5], "/unit2/Reshape")
    h = g.node("Transpose", [h], "/unit2/Transpose", perm=[0, 2, 1, 3, 4])
    view4 = g.node("Concat", [unsq(dims[0], 5), unsq(dims[1], 6), unsq(dims[2], 7), unsq(dims[3], 8)],
                   "/unit2/Concat_2", axis=0)
    g.node("Reshape", [h, view4], "/unit2/Reshape_1")
    model_io("shuffle", g, [1, c, 16, 16], 17)


C, HW = 24, 12                                  # the ConvNeXt block's channels and plane


def convnext_weights():
    """One set of weights for the three ConvNeXt models."""
    a = math.sqrt(3.0 / 49)
    b1, b2 = math.sqrt(3.0 / C), math.sqrt(3.0 / (4 * C))
    return {"dwconv.weight": rng.uniform(-a, a, (C, 1, 7, 7)), "dwconv.bias": rng.uniform(-0.5, 0.5, C),
            "norm.weight": rng.uniform(0.5, 1.5, C), "norm.bias": rng.uniform(-0.5, 0.5, C),
            "pwconv1.weight": rng.uniform(-b1, b1, (C, 4 * C)), "pwconv1.bias": rng.uniform(-0.5, 0.5, 4 * C),
            "pwconv2.weight": rng.uniform(-b2, b2, (4 * C, C)), "pwconv2.bias": rng.uniform(-0.5, 0.5, C),
            "gamma": rng.uniform(0.5, 1.5, C)}


def convnext(name, w, layernorm, gelu, nchw_scale, opset):
    g = Graph()
    for k, v in w.items():
        if k == "gamma" and nchw_scale:
            v = v.reshape(C, 1, 1)           # torchvision's layer_scale: [C, 1, 1], after the permute back
        g.init(k if k != "gamma" else ("layer_scale" if nchw_scale else "gamma"), v)
    h = g.node("Conv", ["x", "dwconv.weight", "dwconv.bias"], "/dwconv/Conv", dilations=[1, 1], group=C,
               kernel_shape=[7, 7], pads=[3, 3, 3, 3], strides=[1, 1])
    h = g.node("Transpose", [h], "/Transpose", perm=[0, 2, 3, 1])
    if layernorm:
        h = g.node("LayerNormalization", [h, "norm.weight", "norm.bias"], "/norm/LayerNormalization", axis=-1,
                   epsilon=1e-6)
    else:                                    # F.layer_norm below opset 17
        mean = g.node("ReduceMean", [h], "/norm/ReduceMean", axes=[-1])
        d = g.node("Sub", [h, mean], "/norm/Sub")
        sq = g.node("Pow", [d, g.const("/norm/Constant", 2.0)], "/norm/Pow")
        var = g.node("ReduceMean", [sq], "/norm/ReduceMean_1", axes=[-1])
        var = g.node("Add", [var, g.const("/norm/Constant_1", 1e-6)], "/norm/Add")
        h = g.node("Div", [d, g.node("Sqrt", [var], "/norm/Sqrt")], "/norm/Div")
        h = g.node("Mul", [h, "norm.weight"], "/norm/Mul")
        h = g.node("Add", [h, "norm.bias"], "/norm/Add_1")
    h = g.node("MatMul", [h, "pwconv1.weight"], "/pwconv1/MatMul")
    h = g.node("Add", ["pwconv1.bias", h], "/pwconv1/Add")
    if gelu:
        h = g.node("Gelu", [h], "/act/Gelu")
    else:                                    # nn.GELU as opset 17 exports write it
        e = g.node("Div", [h, g.const("/act/Constant", math.sqrt(2.0))], "/act/Div")
        e = g.node("Erf", [e], "/act/Erf")
        e = g.node("Add", [e, g.const("/act/Constant_1", 1.0)], "/act/Add")
        h = g.node("Mul", [h, e], "/act/Mul")
        h = g.node("Mul", [h, g.const("/act/Constant_2", 0.5)], "/act/Mul_1")
    h = g.node("MatMul", [h, "pwconv2.weight"], "/pwconv2/MatMul")
    h = g.node("Add", ["pwconv2.bias", h], "/pwconv2/Add")
    if not nchw_scale:
        h = g.node("Mul", ["gamma", h], "/Mul")
    h = g.node("Transpose", [h], "/Transpose_1", perm=[0, 3, 1, 2])
    if nchw_scale:
        h = g.node("Mul", ["layer_scale", h], "/Mul")
    g.node("Add", ["x", h], "/Add")          # input + drop_path(x)
    return build(name, g, [1, C, HW, HW], opset)


def convnext_models():
    w = convnext_weights()
    models = [convnext("layernorm_block", w, True, False, False, 17),
              convnext("layernorm_decomposed", w, False, False, True, 13),
              convnext("layernorm_gelu", w, True, True, False, 20)]
    x = rng.uniform(-1, 1, (1, C, HW, HW)).astype(np.float32)
    ys = [reference(m, x) for m in models]
    for y in ys[1:]:
        # 1e-8 between the Gelu operator and the Erf form: the latter's sqrt 2 a float32 constant, as torch writes it
        assert np.linalg.norm(y - ys[0]) / np.linalg.norm(ys[0]) < 1e-7
    save_io("layernorm_block", x, ys[0])


def fire_module(g, x, n, cin, squeeze, expand):
    """SqueezeNet's fire module n: squeeze 1x1 -> Relu, expand 1x1 and 3x3 -> Relu each, Concat."""
    p, q = "/features/features.%d/" % n, "features.%d." % n
    s = g.node("Relu", [conv(g, x, p + "squeeze", q + "squeeze", cin, squeeze, 1, bias=True)], p + "squeeze_activation/Relu")
    e1 = g.node("Relu", [conv(g, s, p + "expand1x1", q + "expand1x1", squeeze, expand, 1, bias=True)],
                p + "expand1x1_activation/Relu")
    e3 = g.node("Relu", [conv(g, s, p + "expand3x3", q + "expand3x3", squeeze, expand, 3, bias=True)],
                p + "expand3x3_activation/Relu")
    return g.node("Concat", [e1, e3], p + "Concat", axis=1)


def fire():
    g = Graph()
    f1 = fire_module(g, "x", 3, 16, 8, 16)
    f2 = fire_module(g, f1, 4, 32, 8, 12)
    a = g.node("Relu", [conv(g, f2, "/mixed/branch1x1", "mixed.branch1x1", 24, 16, 1, bias=True)], "/mixed/Relu")
    p = g.node("MaxPool", [f2], "/mixed/MaxPool", kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1])
    b = g.node("Relu", [conv(g, p, "/mixed/branch_pool", "mixed.branch_pool", 24, 16, 1, bias=True)], "/mixed/Relu_1")
    c = g.node("Concat", [a, b], "/mixed/Concat", axis=1)
    d = g.node("Add", [c, f1], "/Add")
    h = g.node("Relu", [conv(g, d, "/head", "head", 32, 16, 1, bias=True)], "/head/Relu")
    g.node("Concat", [h, g.node("Sigmoid", [h], "/head/Sigmoid")], "/Concat", axis=1)
    model_io("fire", g, [1, 16, 9, 9], 17)


def dense():
    g = Graph()
    h = bn(g, conv(g, "x", "/features/conv0", "features.conv0", 16, 32, 3), "/features/norm0", "features.norm0", 32)
    feats = [g.node("Relu", [h], "/features/relu0/Relu")]
    for k in range(1, 4):
        p, q = "/features/denseblock1/denselayer%d/" % k, "features.denseblock1.denselayer%d." % k
        cin = 32 + 16 * (k - 1)
        h = g.node("Concat", list(feats), p + "Concat", axis=1)
        h = g.node("Relu", [bn(g, h, p + "norm1", q + "norm1", cin)], p + "relu1/Relu")
        h = g.node("Relu", [bn(g, conv(g, h, p + "conv1", q + "conv1", cin, 32, 1), p + "norm2", q + "norm2", 32)],
                   p + "relu2/Relu")
        feats.append(conv(g, h, p + "conv2", q + "conv2", 32, 16, 3))
    h = g.node("Concat", feats, "/features/denseblock1/Concat", axis=1)
    h = g.node("Relu", [bn(g, h, "/features/transition1/norm", "features.transition1.norm", 80)],
               "/features/transition1/relu/Relu")
    h = conv(g, h, "/features/transition1/conv", "features.transition1.conv", 80, 40, 1)
    g.node("AveragePool", [h], "/features/transition1/pool/AveragePool", kernel_shape=[2, 2], strides=[2, 2])
    model_io("dense", g, [1, 16, 8, 8], 17)


def conv_kxl(g, x, path, param, cin, cout, kh, kw):
    """A kh x kw Conv with bias, padded to keep the plane, and its Relu."""
    ins = [x, g.rand(param + ".weight", (cout, cin, kh, kw), math.sqrt(3.0 / (cin * kh * kw))),
           g.rand(param + ".bias", (cout,), 0.5)]
    h = g.node("Conv", ins, path + "/Conv", dilations=[1, 1], group=1, kernel_shape=[kh, kw],
               pads=[kh // 2, kw // 2, kh // 2, kw // 2], strides=[1, 1])
    return g.node("Relu", [h], path + "/Relu")


def mixed():
    g = Graph()
    b1 = conv_kxl(g, "x", "/Mixed_7b/branch1x1", "Mixed_7b.branch1x1", 16, 8, 1, 1)
    t = conv_kxl(g, "x", "/Mixed_7b/branch3x3_1", "Mixed_7b.branch3x3_1", 16, 8, 1, 1)
    b3 = g.node("Concat", [conv_kxl(g, t, "/Mixed_7b/branch3x3_2a", "Mixed_7b.branch3x3_2a", 8, 8, 1, 3),
                           conv_kxl(g, t, "/Mixed_7b/branch3x3_2b", "Mixed_7b.branch3x3_2b", 8, 8, 3, 1)],
                "/Mixed_7b/Concat", axis=1)
    p = g.node("AveragePool", ["x"], "/Mixed_7b/AveragePool", kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1])
    bp = conv_kxl(g, p, "/Mixed_7b/branch_pool", "Mixed_7b.branch_pool", 16, 8, 1, 1)
    h = g.node("Concat", [b1, b3, bp], "/Mixed_7b/Concat_1", axis=1)
    u = conv_kxl(g, h, "/head/u", "head.u", 32, 8, 1, 1)
    v = conv(g, h, "/head/v", "head.v", 32, 8, 1, bias=True)
    w = g.node("Concat", [u, v], "/head/Concat", axis=1)
    g.node("Concat", [u, v, w], "/head/Concat_1", axis=1)
    model_io("mixed", g, [1, 16, 6, 6], 17)


def main():
    os.makedirs(OUT, exist_ok=True)
    mbconv()
    mbconv_v3()
    shuffle()
    convnext_models()
    fire()
    dense()
    mixed()


if __name__ == "__main__":
    main()
