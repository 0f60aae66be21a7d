"""float64.py: the float64 copy of a model that the test generators'
references run (make_models.py, make_blocks.py, make_resize.py,
make_convtranspose.py, make_mobilenet_v3.py import it from their folder):
onnx's ReferenceEvaluator computes in the model's types, and its float32 run
of a whole network is itself 1e-5 off, a tenth of infer's tolerance."""
import numpy as np
import onnx
from onnx import TensorProto, numpy_helper


def to_double(model):
    """A copy of model with its float initializers, its Constant nodes'
    float tensors and its graph inputs and outputs in float64 (other types
    kept: an int64 shape stays one), and no value_info (its float32 types
    would contradict the copy's)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph

    def widen(t):
        t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float64), t.name))

    for t in g.initializer:
        if t.data_type == TensorProto.FLOAT:
            widen(t)
    for n in g.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.TENSOR and a.t.data_type == TensorProto.FLOAT:
                widen(a.t)
    for v in list(g.input) + list(g.output):
        if v.type.tensor_type.elem_type == TensorProto.FLOAT:
            v.type.tensor_type.elem_type = TensorProto.DOUBLE
    del g.value_info[:]
    return m
