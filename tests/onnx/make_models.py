#!/usr/bin/env python3
"""Writes the small ONNX models tests/cli/import.sh reads (committed, so that
the suite needs no onnx package): python3 tests/onnx/make_models.py [DIR].
Random weights from a fixed seed; the onnx package's checker passes each.
Opset 15: its ReferenceEvaluator runs BatchNormalization of opsets 9 to 13
with batch statistics (its momentum has a default), not inference's.

tiny.onnx: a block of each kind convgen fuses or runs beside its layers:
  conv1  Conv 3->8 3x3 stride 2 pad 1, no bias -> BatchNormalization -> Relu
  dw     Conv 8->8 3x3 pad 1, group 8 -> BatchNormalization -> Clip(0, 6)
  pw     Conv 8->8 1x1 with bias -> Add (the residual: conv1's output) -> Relu
  MaxPool 2x2 stride 2 -> GlobalAveragePool -> Flatten -> Gemm 8->10 -> Softmax
tiny_batch.onnx: tiny's first layer with a symbolic batch ('N').
block.onnx: tiny's blocks without its pooling and classifier, ending in
  GlobalAveragePool and Flatten (what `convgen infer` runs), with block_input.pb and
  block_output.pb: a random input and the output onnx's ReferenceEvaluator
  (numpy, float32) computes for it.
tiny_output.pb: tiny's output for block_input.pb (ReferenceEvaluator).
classifier.onnx: Gemms run as 1x1 convolutions, Constant nodes (classifier()).
softmax11.onnx: a Softmax of opset 11, with softmax11_input.pb and
  softmax11_output.pb (numpy: the reference evaluator has no opset 11 Softmax).
bad_*.onnx: one node each with an attribute or input `convgen import` or
  `convgen infer` refuses (BAD).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)


def init(name, *shape):
    return numpy_helper.from_array(rng.uniform(-1, 1, shape).astype(np.float32), name)


def bn(prefix, c, x, y):
    inits = [init(prefix + s, c) for s in ("_scale", "_b", "_mean")]
    inits.append(numpy_helper.from_array(rng.uniform(0.5, 1.5, c).astype(np.float32), prefix + "_var"))
    node = helper.make_node("BatchNormalization", [x] + [t.name for t in inits], [y], name=prefix)
    return node, inits


def tiny():
    nodes, inits = [], []
    inits += [init("w1", 8, 3, 3, 3), init("wd", 8, 1, 3, 3), init("wp", 8, 8, 1, 1), init("bp", 8),
              init("wg", 10, 8), init("bg", 10),
              numpy_helper.from_array(np.array(0, np.float32), "zero"),
              numpy_helper.from_array(np.array(6, np.float32), "six")]
    nodes.append(helper.make_node("Conv", ["x", "w1"], ["c1"], name="conv1", strides=[2, 2], pads=[1, 1, 1, 1],
                                  kernel_shape=[3, 3]))
    n, i = bn("bn1", 8, "c1", "b1")
    nodes.append(n), inits.extend(i)
    nodes.append(helper.make_node("Relu", ["b1"], ["r1"], name="relu1"))
    nodes.append(helper.make_node("Conv", ["r1", "wd"], ["cd"], name="dw", pads=[1, 1, 1, 1], group=8))
    n, i = bn("bnd", 8, "cd", "bd")
    nodes.append(n), inits.extend(i)
    nodes.append(helper.make_node("Clip", ["bd", "zero", "six"], ["rd"], name="relu6"))
    nodes.append(helper.make_node("Conv", ["rd", "wp", "bp"], ["cp"], name="pw"))
    nodes.append(helper.make_node("Add", ["cp", "r1"], ["s"], name="residual"))
    nodes.append(helper.make_node("Relu", ["s"], ["rs"], name="relu2"))
    nodes.append(helper.make_node("MaxPool", ["rs"], ["mp"], name="pool", kernel_shape=[2, 2], strides=[2, 2]))
    nodes.append(helper.make_node("GlobalAveragePool", ["mp"], ["gp"], name="gap"))
    nodes.append(helper.make_node("Flatten", ["gp"], ["fl"], name="flatten"))
    nodes.append(helper.make_node("Gemm", ["fl", "wg", "bg"], ["logits"], name="fc", transB=1))
    nodes.append(helper.make_node("Softmax", ["logits"], ["y"], name="softmax", axis=1))
    graph = helper.make_graph(nodes, "tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)], producer_name="convgen tests")


def tiny_batch():
    nodes = [helper.make_node("Conv", ["x", "w1"], ["y"], name="conv1", strides=[2, 2], pads=[1, 1, 1, 1])]
    graph = helper.make_graph(nodes, "tiny_batch",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 16, 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 8, 8, 8])],
                              [init("w1", 8, 3, 3, 3)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)], producer_name="convgen tests")


def block():
    """tiny up to its GlobalAveragePool and Flatten, the classifier cut off."""
    m = tiny()
    g = m.graph
    keep = [n for n in g.node if n.name not in ("pool", "fc", "softmax")]
    for n in keep:   # the pooling cut out too: the mean of the residual block's output
        if n.name == "gap":
            n.input[0] = "rs"
    used = {i for n in keep for i in n.input}
    inits = [t for t in g.initializer if t.name in used]
    graph = helper.make_graph(keep, "block", list(g.input), [helper.make_tensor_value_info("fl", TensorProto.FLOAT, [1, 8])],
                              inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)], producer_name="convgen tests")


def bad(op, attrs, inputs, shapes, name, inits=(), outputs=("y",)):
    """A one-node model whose node has an attribute infer refuses (the checker
    is not run: it may refuse it too); inits: more inputs, zeros of shapes[0]."""
    vals = [helper.make_tensor_value_info(i, TensorProto.FLOAT, sh) for i, sh in zip(inputs, shapes) if i]
    consts = [numpy_helper.from_array(np.zeros(shapes[0], np.float32), i) for i in inits]
    node = helper.make_node(op, inputs + list(inits), list(outputs), name=name, **attrs)
    graph = helper.make_graph([node], "bad", vals, [helper.make_tensor_value_info(o, TensorProto.FLOAT, None)
                                                    for o in outputs], consts)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)], producer_name="convgen tests")


BAD = {   # file: the model; tests/cli/infer.sh says the message each gives
    "bad_pool": lambda: bad("MaxPool", {"kernel_shape": [0, 2]}, ["x"], [[1, 1, 4, 4]], "pool"),
    "bad_pool_indices": lambda: bad("MaxPool", {"kernel_shape": [2, 2]}, ["x"], [[1, 1, 4, 4]], "pool",
                                    outputs=("y", "indices")),
    "bad_pool_pads": lambda: bad("AveragePool", {"kernel_shape": [2, 2], "pads": [2, 0, 0, 0]}, ["x"],
                                 [[1, 1, 4, 4]], "pool"),
    "bad_gemm": lambda: bad("Gemm", {}, ["a", "b", "c"], [[3, 4], [4, 5], [2, 5]], "fc"),
    "bad_gemm_alpha": lambda: bad("Gemm", {"alpha": float("inf")}, ["a", "b"], [[3, 4], [4, 5]], "fc"),
    "bad_absent": lambda: bad("Conv", {}, ["x", "", "b"], [[1, 1, 4, 4], None, [1]], "conv"),
    "bad_softmax": lambda: bad("Softmax", {"axis": 2}, ["x"], [[1, 10]], "softmax"),
    "bad_concat": lambda: bad("Concat", {"axis": 1}, ["x"], [[1, 2]], "cat", ["c%d" % i for i in range(16)]),
}


def softmax11(out):
    """classifier.onnx: Gemms run as 1x1 convolutions, Constant nodes (classifier()).
softmax11.onnx: a Softmax of opset 11 (the input seen as 2-D, the
    dimensions from axis on its rows), its output computed here with numpy:
    onnx 1.16's ReferenceEvaluator normalizes along the one axis whatever
    the opset."""
    node = helper.make_node("Softmax", ["x"], ["y"], name="softmax", axis=1)
    graph = helper.make_graph([node], "softmax11", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], producer_name="convgen tests")
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "softmax11.onnx"))
    x = rng.uniform(-3, 3, (2, 3, 4)).astype(np.float32)
    rows = x.reshape(2, 12).astype(np.float64)
    e = np.exp(rows - rows.max(axis=1, keepdims=True))
    y = (e / e.sum(axis=1, keepdims=True)).reshape(2, 3, 4)
    onnx.save_tensor(numpy_helper.from_array(x, "x"), os.path.join(out, "softmax11_input.pb"))
    onnx.save_tensor(numpy_helper.from_array(y.astype(np.float32), "y"), os.path.join(out, "softmax11_output.pb"))


class Net:
    """A whole network as its nodes are added, its weights drawn from its own
    seed (so that the models above keep theirs). Convolutions have He-scaled
    weights and a batch norm with running statistics, so that activations
    stay of the order of 1 through the depth."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], {}
        self.const("zero", 0.0), self.const("six", 6.0)

    def const(self, name, v):
        self.inits.append(numpy_helper.from_array(np.array(v, np.float32), name))
        return name

    def weight(self, name, shape, lo=-1.0, hi=1.0):
        self.inits.append(numpy_helper.from_array(self.rng.uniform(lo, hi, shape).astype(np.float32), name))
        return name

    def node(self, op, inputs, **attrs):
        self.count[op] = self.count.get(op, 0) + 1
        name = "%s%d" % (op.lower(), self.count[op])
        self.nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def conv_bn(self, x, cin, cout, k, stride=1, group=1, act="relu"):
        """Conv (no bias) -> BatchNormalization -> act (relu, relu6 or None)."""
        fan_in = cin // group * k * k
        w = self.weight("w%d" % len(self.inits), (cout, cin // group, k, k), -np.sqrt(6 / fan_in), np.sqrt(6 / fan_in))
        y = self.node("Conv", [x, w], kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4, group=group)
        p = "bn%d" % len(self.inits)
        stats = [self.weight(p + "_scale", cout, 0.5, 1.5), self.weight(p + "_b", cout, -0.1, 0.1),
                 self.weight(p + "_mean", cout, -0.1, 0.1), self.weight(p + "_var", cout, 0.5, 1.5)]
        y = self.node("BatchNormalization", [y] + stats)
        if act == "relu":
            return self.node("Relu", [y])
        if act == "relu6":
            return self.node("Clip", [y, "zero", "six"])
        return y

    def classifier(self, x, c, classes, softmax):
        """GlobalAveragePool -> Flatten -> Gemm (-> Softmax)."""
        y = self.node("Flatten", [self.node("GlobalAveragePool", [x])], axis=1)
        w, b = self.weight("fc_w", (classes, c), -np.sqrt(3 / c), np.sqrt(3 / c)), self.weight("fc_b", classes)
        y = self.node("Gemm", [y, w, b], transB=1)
        return self.node("Softmax", [y], axis=1) if softmax else y

    def model(self, name, x, shape, y, classes):
        graph = helper.make_graph(self.nodes, name, [helper.make_tensor_value_info(x, TensorProto.FLOAT, shape)],
                                  [helper.make_tensor_value_info(y, TensorProto.FLOAT, [shape[0], classes])],
                                  self.inits)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)], producer_name="convgen tests")


def resnet18():
    """ResNet-18's shape at a sixteenth of its width (4, 8, 16, 32 channels)
    on 1x3x64x64: the 7x7 stride-2 stem, MaxPool 3x3 stride 2, four stages of
    two basic blocks (3x3, 3x3, the residual Add, ReLU; a 1x1 stride-2
    convolution on the shortcut where the shape changes), GlobalAveragePool,
    Flatten, Gemm to 10 classes, Softmax."""
    n = Net(18)
    y = n.conv_bn("x", 3, 4, 7, stride=2)
    y = n.node("MaxPool", [y], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 4
    for stage, cout in enumerate([4, 8, 16, 32]):
        for block in range(2):
            stride = 2 if stage > 0 and block == 0 else 1
            r = n.conv_bn(y, cin, cout, 3, stride)
            r = n.conv_bn(r, cout, cout, 3, act=None)
            short = y if stride == 1 and cin == cout else n.conv_bn(y, cin, cout, 1, stride, act=None)
            y, cin = n.node("Relu", [n.node("Add", [r, short])]), cout
    return n.model("resnet18", "x", [1, 3, 64, 64], n.classifier(y, cin, 10, True), 10)


def mobilenet_v2():
    """MobileNet V2's shape at an eighth of its width (channels rounded up to
    4: 8 in the stem, then 4, 4, 4, 8, 12, 20, 40) on 1x3x64x64: the 3x3 stride-2 stem, its 17
    inverted residual blocks (a 1x1 expansion by t with ReLU6, a 3x3
    depthwise with ReLU6, a linear 1x1 projection, the residual Add where
    the shape stays), a 1x1 convolution to 128, GlobalAveragePool, Flatten,
    Gemm to 10 classes (no Softmax)."""
    n = Net(2)
    y = n.conv_bn("x", 3, 8, 3, stride=2, act="relu6")
    cin = 8
    for t, c, reps, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                          (6, 160, 3, 2), (6, 320, 1, 1)]:
        cout = (c // 8 + 3) // 4 * 4
        for i in range(reps):
            stride, hidden = s if i == 0 else 1, cin * t
            r = n.conv_bn(y, cin, hidden, 1, act="relu6") if t != 1 else y
            r = n.conv_bn(r, hidden, hidden, 3, stride, group=hidden, act="relu6")
            r = n.conv_bn(r, hidden, cout, 1, act=None)
            y, cin = (n.node("Add", [r, y]) if stride == 1 and cin == cout else r), cout
    y = n.conv_bn(y, cin, 128, 1, act="relu6")
    return n.model("mobilenet_v2", "x", [1, 3, 64, 64], n.classifier(y, 128, 10, False), 10)


def reference64(model, x):
    """The ReferenceEvaluator's output for x with the model's weights and x in
    float64: its float32 run of a whole network is itself 1e-5 off (MobileNet
    V2's below), a tenth of the tolerance."""
    from onnx.reference import ReferenceEvaluator
    from float64 import to_double
    m = to_double(model)
    (y,) = ReferenceEvaluator(m).run(None, {m.graph.input[0].name: x.astype(np.float64)})
    return y


def networks(out):
    """resnet18.onnx and mobilenet_v2.onnx, each with NAME_input.pb (a random
    image) and NAME_output.pb (onnx's ReferenceEvaluator's output for it, in
    float64: reference64)."""
    for name, make in [("resnet18", resnet18), ("mobilenet_v2", mobilenet_v2)]:
        model = make()
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(out, name + ".onnx"))
        x = np.random.default_rng(len(name)).uniform(-1, 1, (1, 3, 64, 64)).astype(np.float32)
        y = reference64(model, x)
        onnx.save_tensor(numpy_helper.from_array(x, "x"), os.path.join(out, name + "_input.pb"))
        onnx.save_tensor(numpy_helper.from_array(y.astype(np.float32), "y"), os.path.join(out, name + "_output.pb"))


def classifier(out):
    """classifier.onnx: what convgen runs as 1x1 convolutions and reads as
    initializers, on a batch of 2: Gemm 12->7 with B [K, N] (transB 0) and C,
    Relu, Gemm 7->5 with B [N, K] (transB 1) and C [1, 5] through an Identity
    (torch's exporter shares equal initializers so), then Clip with its
    bounds from Constant nodes (value and value_float), and a Reshape whose
    shape a Constant gives (value_ints); classifier_input.pb and
    classifier_output.pb (the reference evaluator, float64)."""
    r = np.random.default_rng(12)

    def w(name, *shape):
        return numpy_helper.from_array(r.uniform(-1, 1, shape).astype(np.float32), name)

    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["g1"], name="fc1"),
             helper.make_node("Relu", ["g1"], ["r1"], name="relu1"),
             helper.make_node("Identity", ["b2"], ["b2_shared"], name="shared"),
             helper.make_node("Gemm", ["r1", "w2", "b2_shared"], ["g2"], name="fc2", transB=1),
             helper.make_node("Constant", [], ["lo"], name="lo", value=numpy_helper.from_array(np.float32(-0.5))),
             helper.make_node("Constant", [], ["hi"], name="hi", value_float=0.75),
             helper.make_node("Clip", ["g2", "lo", "hi"], ["c"], name="clip"),
             helper.make_node("Constant", [], ["shape"], name="shape", value_ints=[10]),
             helper.make_node("Reshape", ["c", "shape"], ["y"], name="flat")]
    graph = helper.make_graph(nodes, "classifier", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 12])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [10])],
                              [w("w1", 12, 7), w("b1", 7), w("w2", 5, 7), w("b2", 1, 5)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)], producer_name="convgen tests")
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "classifier.onnx"))
    x = r.uniform(-1, 1, (2, 12)).astype(np.float32)
    y = reference64(model, x)
    onnx.save_tensor(numpy_helper.from_array(x, "x"), os.path.join(out, "classifier_input.pb"))
    onnx.save_tensor(numpy_helper.from_array(y.astype(np.float32), "y"), os.path.join(out, "classifier_output.pb"))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    models = {"tiny": tiny(), "tiny_batch": tiny_batch(), "block": block()}   # each draws its weights once
    for name, model in models.items():
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(out, name + ".onnx"))
    for name, make in BAD.items():
        onnx.save(make(), os.path.join(out, name + ".onnx"))
    from onnx.reference import ReferenceEvaluator
    x = rng.uniform(-1, 1, (1, 3, 16, 16)).astype(np.float32)
    (y,) = ReferenceEvaluator(models["block"]).run(None, {"x": x})
    onnx.save_tensor(numpy_helper.from_array(x, "x"), os.path.join(out, "block_input.pb"))
    onnx.save_tensor(numpy_helper.from_array(y.astype(np.float32), "fl"), os.path.join(out, "block_output.pb"))
    (y,) = ReferenceEvaluator(models["tiny"]).run(None, {"x": x})   # block's input, the whole of tiny
    onnx.save_tensor(numpy_helper.from_array(y.astype(np.float32), "y"), os.path.join(out, "tiny_output.pb"))
    softmax11(out)
    networks(out)
    classifier(out)


if __name__ == "__main__":
    main()
