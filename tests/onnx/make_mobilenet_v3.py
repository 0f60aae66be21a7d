#!/usr/bin/env python3
"""Writes tests/onnx/mobilenet_v3.onnx, mobilenet_v3_input.pb and
mobilenet_v3_output.pb: a MobileNet V3 Large at an eighth of its width on a
64x64 image, standing for torchvision's mobilenet_v3_large as
torch.onnx.export writes it in eval mode at opset 17 (the README's
walkthrough, tests/cli/readme-mobile.sh). Committed, so the suite needs no
onnx package:
    python3 tests/onnx/make_mobilenet_v3.py [DIR]

The structure is torchvision's, node for node as its TorchScript exporter
writes it (node names such as /features/features.4/block/block.2/fc1/Conv,
IR version 8): each batch norm folded into its convolution, which has a
bias (the exporter's eval-mode folding); the stem Conv 3->4 3x3 stride 2
-> HardSwish; torchvision's 15 inverted residual blocks (kernel, expanded
and output channels, squeeze-excite, activation and stride as its
configuration gives them), each a 1x1 expansion Conv -> Relu or HardSwish
(left out where the expansion is 1), a depthwise 3x3 or 5x5 Conv (group =
its channels) -> Relu or HardSwish, in 8 of them a squeeze-excite
(GlobalAveragePool -> 1x1 Conv with bias -> Relu -> 1x1 Conv ->
HardSigmoid (alpha 1/6, beta 1/2) -> Mul of the gate and the block's
values), a linear 1x1 projection Conv, and the residual Add of the block's
input where the stride is 1 and the channels stay (10 blocks); then the
last 1x1 Conv 20->120 -> HardSwish, GlobalAveragePool, Flatten, Gemm
120->160 -> HardSwish, Gemm 160->10 (the Dropout between them gone in eval
mode). 62 convolutions, 10 classes.

Widths: torchvision's channels times 1/8, rounded as its _make_divisible
rounds them but to a multiple of 4 (not 8, which would make most of them
8): stem 4; blocks' (expanded, output) channels (4, 4), (8, 4), (12, 4),
(12, 8), (16, 8), (16, 8), (32, 12), (24, 12), (24, 12), (24, 12), (60, 16),
(84, 16), (84, 20), (120, 20), (120, 20); squeeze channels a quarter of the
expanded, rounded so; the last 1x1 conv 6 x 20 = 120; the classifier's
hidden layer 1280 / 8 = 160. 81,890 weights, a file of 366 KB.

Weights are random from a fixed seed, uniform, their variance GAIN over
the fan-in (GAIN by what follows the convolution), biases in [-0.1, 0.1),
so that activations stay of the order of 1 to 10 through the depth (the
logits about 10) and the hard swishes and HardSigmoid gates see values on
both sides of their bends. The input is uniform in [-1, 1); the output is what
onnx's ReferenceEvaluator computes for a float64 copy of the model and the
input, rounded to float32 (its float32 run is checked to be within 1e-5 of
it, a tenth of infer's tolerance).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from float64 import to_double

rng = np.random.default_rng(3)
WIDTH, DIVISOR, CLASSES, SIZE = 1 / 8, 4, 10, 64
# the weights' variance times fan-in, by what follows the conv: chosen so that activations stay of the
# order of 1 to 10 through the depth and the hard swishes and the gates see values past their bends
GAIN = {"RE": 2.5, "HS": 3.5, "fc1": 2, "fc2": 6, "project": 1}

# torchvision's mobilenet_v3_large: (input, kernel, expanded, output channels, squeeze-excite, activation, stride)
LARGE = [(16, 3, 16, 16, False, "RE", 1), (16, 3, 64, 24, False, "RE", 2), (24, 3, 72, 24, False, "RE", 1),
         (24, 5, 72, 40, True, "RE", 2), (40, 5, 120, 40, True, "RE", 1), (40, 5, 120, 40, True, "RE", 1),
         (40, 3, 240, 80, False, "HS", 2), (80, 3, 200, 80, False, "HS", 1), (80, 3, 184, 80, False, "HS", 1),
         (80, 3, 184, 80, False, "HS", 1), (80, 3, 480, 112, True, "HS", 1), (112, 3, 672, 112, True, "HS", 1),
         (112, 5, 672, 160, True, "HS", 2), (160, 5, 960, 160, True, "HS", 1), (160, 5, 960, 160, True, "HS", 1)]


def divisible(v):
    """torchvision's _make_divisible, to a multiple of DIVISOR."""
    n = max(DIVISOR, int(v + DIVISOR / 2) // DIVISOR * DIVISOR)
    return n + DIVISOR if n < 0.9 * v else n


def width(c):
    return divisible(c * WIDTH)


class Graph:
    """Nodes and initializers in graph order, named as torch.onnx names them:
    a node's output is its name followed by _output_0, a weight folded with
    its batch norm is onnx::Conv_N."""

    def __init__(self):
        self.nodes, self.inits, self.folded = [], [], 0

    def init(self, name, arr):
        self.inits.append(numpy_helper.from_array(np.asarray(arr, np.float32), name))
        return name

    def node(self, op, inputs, name, **attrs):
        out = name + "_output_0"
        self.nodes.append(helper.make_node(op, inputs, [out], name=name, **attrs))
        return out

    def conv(self, x, path, cin, cout, k, stride=1, group=1, gain=2.0, param=None):
        """Conv with bias: a batch norm folded into it (param None: named
        onnx::Conv_N as the exporter names folded weights), or a conv of
        its own with bias (the squeeze-excite's, named by param)."""
        fan_in = cin // group * k * k
        a = np.sqrt(3 * gain / fan_in)
        if param is None:
            wn, bn = "onnx::Conv_%d" % (500 + self.folded), "onnx::Conv_%d" % (501 + self.folded)
            self.folded += 2
        else:
            wn, bn = param + ".weight", param + ".bias"
        w = self.init(wn, rng.uniform(-a, a, (cout, cin // group, k, k)))
        b = self.init(bn, rng.uniform(-0.1, 0.1, cout))
        return self.node("Conv", [x, w, b], path + "/Conv", dilations=[1, 1], group=group, kernel_shape=[k, k],
                         pads=[k // 2] * 4, strides=[stride, stride])

    def act(self, x, path, kind):
        op = {"RE": "Relu", "HS": "HardSwish"}[kind]
        return self.node(op, [x], path + "/" + op)

    def conv_act(self, x, path, cin, cout, k, kind, stride=1, group=1):
        """torchvision's Conv2dNormActivation: PATH.0 the conv (its batch norm
        PATH.1 folded in), PATH.2 the activation."""
        gain = GAIN[kind]
        return self.act(self.conv(x, path + ".0", cin, cout, k, stride, group, gain), path + ".2", kind)

    def gemm(self, x, path, param, cin, cout, gain):
        a = np.sqrt(3 * gain / cin)
        w = self.init(param + ".weight", rng.uniform(-a, a, (cout, cin)))
        b = self.init(param + ".bias", rng.uniform(-0.1, 0.1, cout))
        return self.node("Gemm", [x, w, b], path + "/Gemm", alpha=1.0, beta=1.0, transB=1)


def squeeze_excite(g, x, path, param, c):
    """torchvision's SqueezeExcitation: scale = hardsigmoid(fc2(relu(fc1(avgpool(x))))); scale * x."""
    q = divisible(c // 4)
    s = g.node("GlobalAveragePool", [x], path + "/avgpool/GlobalAveragePool")
    s = g.conv(s, path + "/fc1", c, q, 1, gain=GAIN["fc1"], param=param + ".fc1")
    s = g.node("Relu", [s], path + "/activation/Relu")
    s = g.conv(s, path + "/fc2", q, c, 1, gain=GAIN["fc2"], param=param + ".fc2")
    s = g.node("HardSigmoid", [s], path + "/scale_activation/HardSigmoid", alpha=1.0 / 6, beta=0.5)
    return g.node("Mul", [s, x], path + "/Mul")


def inverted_residual(g, x, i, cin, k, exp, cout, se, kind, stride):
    """features.i: torchvision's InvertedResidual, its sub-blocks numbered from block.0."""
    top, param, n, h = "/features/features.%d" % i, "features.%d.block" % i, 0, x

    def path(n):
        return "%s/block/block.%d/block.%d" % (top, n, n)
    if exp != cin:
        h, n = g.conv_act(h, path(n), cin, exp, 1, kind), n + 1
    h, n = g.conv_act(h, path(n), exp, exp, k, kind, stride, group=exp), n + 1
    if se:
        h, n = squeeze_excite(g, h, "%s/block/block.%d" % (top, n), "%s.%d" % (param, n), exp), n + 1
    h = g.conv(h, path(n) + ".0", exp, cout, 1, gain=GAIN["project"])
    return g.node("Add", [h, x], top + "/Add") if stride == 1 and cin == cout else h


def mobilenet_v3():
    g = Graph()
    c = width(16)
    y = g.conv_act("x", "/features/features.0/features.0", 3, c, 3, "HS", stride=2)
    for i, (cin, k, exp, cout, se, kind, stride) in enumerate(LARGE, start=1):
        y = inverted_residual(g, y, i, width(cin), k, width(exp), width(cout), se, kind, stride)
    c = width(LARGE[-1][3])
    last, hidden = 6 * c, width(1280)
    y = g.conv_act(y, "/features/features.16/features.16", c, last, 1, "HS")
    y = g.node("GlobalAveragePool", [y], "/avgpool/GlobalAveragePool")
    y = g.node("Flatten", [y], "/Flatten", axis=1)
    y = g.gemm(y, "/classifier/classifier.0", "classifier.0", last, hidden, 2.0)
    y = g.node("HardSwish", [y], "/classifier/classifier.1/HardSwish")
    g.gemm(y, "/classifier/classifier.3", "classifier.3", hidden, CLASSES, 1.0)
    g.nodes[-1].output[0] = "y"
    graph = helper.make_graph(g.nodes, "main_graph",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, SIZE, SIZE])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, CLASSES])], g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="convgen tests")
    model.ir_version = 8                     # torch.onnx writes IR version 8
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    model = mobilenet_v3()
    onnx.save(model, os.path.join(out, "mobilenet_v3.onnx"))
    x = rng.uniform(-1, 1, (1, 3, SIZE, SIZE)).astype(np.float32)
    (y,) = ReferenceEvaluator(to_double(model)).run(None, {"x": x.astype(np.float64)})
    (y32,) = ReferenceEvaluator(model).run(None, {"x": x})
    err = np.linalg.norm(y32 - y) / np.linalg.norm(y)
    convs = sum(n.op_type == "Conv" for n in model.graph.node)
    print("mobilenet_v3: %d nodes, %d convolutions, %d weights; y %s; float32 reference vs float64: %.2e" %
          (len(model.graph.node), convs, sum(np.prod(t.dims) for t in model.graph.initializer), np.round(y, 3), err))
    assert err < 1e-5, err
    onnx.save_tensor(numpy_helper.from_array(x, "x"), os.path.join(out, "mobilenet_v3_input.pb"))
    onnx.save_tensor(numpy_helper.from_array(y.astype(np.float32), "y"), os.path.join(out, "mobilenet_v3_output.pb"))


if __name__ == "__main__":
    main()
