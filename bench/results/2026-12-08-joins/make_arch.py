"""make_arch.py OUTDIR: SqueezeNet 1.1, GoogLeNet and DenseNet-121 with the
shapes torchvision builds them with (random weights, no torch needed),
written as ONNX files, for plan_bytes.c: the activations plan of each."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)


class G:
    def __init__(self):
        self.nodes, self.inits, self.n = [], [], 0

    def name(self, p):
        self.n += 1
        return "%s_%d" % (p, self.n)

    def w(self, shape):
        nm = self.name("w")
        self.inits.append(numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32) * 0.01, nm))
        return nm

    def node(self, op, ins, **at):
        out = self.name(op)
        self.nodes.append(helper.make_node(op, ins, [out], name=out, **at))
        return out

    def conv(self, x, cin, cout, k, s=1, p=0, bias=True, bn=False, relu=True):
        ins = [x, self.w((cout, cin, k, k))] + ([self.w((cout,))] if bias else [])
        h = self.node("Conv", ins, kernel_shape=[k, k], strides=[s, s], pads=[p] * 4)
        if bn:
            h = self.bn(h, cout)
        return self.node("Relu", [h]) if relu else h

    def bn(self, x, c):
        return self.node("BatchNormalization", [x, self.w((c,)), self.w((c,)), self.w((c,)), self.var(c)])

    def var(self, c):
        nm = self.name("var")
        self.inits.append(numpy_helper.from_array(np.ones(c, np.float32), nm))
        return nm

    def save(self, name, shape, out):
        self.nodes[-1].output[0] = "y"
        g = helper.make_graph(self.nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
        m.ir_version = 8
        onnx.save(m, "%s/%s.onnx" % (out, name))


def squeezenet(out):
    g = G()
    h = g.conv("x", 3, 64, 3, 2)
    h = g.node("MaxPool", [h], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
    c = 64
    cfg = [(16, 64), (16, 64), "M", (32, 128), (32, 128), "M", (48, 192), (48, 192), (64, 256), (64, 256)]
    for f in cfg:
        if f == "M":
            h = g.node("MaxPool", [h], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
            continue
        s, e = f
        q = g.conv(h, c, s, 1)
        h = g.node("Concat", [g.conv(q, s, e, 1), g.conv(q, s, e, 3, p=1)], axis=1)
        c = 2 * e
    h = g.conv(h, 512, 1000, 1)
    h = g.node("GlobalAveragePool", [h])
    g.node("Flatten", [h])
    g.save("squeezenet1_1", [1, 3, 224, 224], out)


def googlenet(out):
    g = G()
    bc = lambda x, ci, co, k, s=1, p=0: g.conv(x, ci, co, k, s, p, bias=False, bn=True)
    h = bc("x", 3, 64, 7, 2, 3)
    h = g.node("MaxPool", [h], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
    h = bc(h, 64, 64, 1)
    h = bc(h, 64, 192, 3, 1, 1)
    h = g.node("MaxPool", [h], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
    cfg = [(192, 64, 96, 128, 16, 32, 32), (256, 128, 128, 192, 32, 96, 64), "M",
           (480, 192, 96, 208, 16, 48, 64), (512, 160, 112, 224, 24, 64, 64), (512, 128, 128, 256, 24, 64, 64),
           (512, 112, 144, 288, 32, 64, 64), (528, 256, 160, 320, 32, 128, 128), "M2",
           (832, 256, 160, 320, 32, 128, 128), (832, 384, 192, 384, 48, 128, 128)]
    for f in cfg:
        if f in ("M", "M2"):
            h = g.node("MaxPool", [h], kernel_shape=[3, 3] if f == "M" else [2, 2], strides=[2, 2], ceil_mode=1)
            continue
        ci, c1, r3, c3, r5, c5, cp = f
        b1 = bc(h, ci, c1, 1)
        b2 = bc(bc(h, ci, r3, 1), r3, c3, 3, 1, 1)
        b3 = bc(bc(h, ci, r5, 1), r5, c5, 3, 1, 1)
        b4 = bc(g.node("MaxPool", [h], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1], ceil_mode=1), ci, cp, 1)
        h = g.node("Concat", [b1, b2, b3, b4], axis=1)
    h = g.node("GlobalAveragePool", [h])
    h = g.node("Flatten", [h])
    g.node("Gemm", [h, g.w((1000, 1024)), g.w((1000,))], transB=1)
    g.save("googlenet", [1, 3, 224, 224], out)


def densenet121(out):
    g = G()
    h = g.conv("x", 3, 64, 7, 2, 3, bias=False, bn=True)
    h = g.node("MaxPool", [h], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    c = 64
    for bi, n in enumerate([6, 12, 24, 16]):
        feats = [h]
        for _ in range(n):
            x = g.node("Concat", list(feats), axis=1)
            x = g.node("Relu", [g.bn(x, c)])
            x = g.conv(x, c, 128, 1, bias=False, bn=True)
            feats.append(g.conv(x, 128, 32, 3, 1, 1, bias=False, relu=False))
            c += 32
        h = g.node("Concat", feats, axis=1)
        if bi < 3:
            h = g.node("Relu", [g.bn(h, c)])
            h = g.conv(h, c, c // 2, 1, bias=False, relu=False)
            h = g.node("AveragePool", [h], kernel_shape=[2, 2], strides=[2, 2])
            c //= 2
    h = g.node("Relu", [g.bn(h, c)])
    h = g.node("GlobalAveragePool", [h])
    h = g.node("Flatten", [h])
    g.node("Gemm", [h, g.w((1000, c)), g.w((1000,))], transB=1)
    g.save("densenet121", [1, 3, 224, 224], out)


squeezenet(sys.argv[1])
googlenet(sys.argv[1])
densenet121(sys.argv[1])
