#!/usr/bin/env python3
"""export.py DIR [NAME...]: torchvision's CNNs with random weights (seed 0),
exported by torch.onnx's TorchScript exporter (opset 17; EXPORTER=dynamo:
its default one, torch.export-based, opset 18) to DIR/NAME.onnx, with a random
input DIR/NAME_input.pb and the model's output computed by PyTorch in
float64 on the CPU (DIR/NAME_output.pb, stored as float32): the reference
`convgen infer --expect` checks against (relative L2 at most 1e-4)."""
import os
import sys
import time

import numpy as np
import onnx
import torch
import torchvision
from onnx import numpy_helper

MODELS = [  # name, constructor, input side
    ("mobilenet_v3_large", lambda: torchvision.models.mobilenet_v3_large(), 224),
    ("efficientnet_b0", lambda: torchvision.models.efficientnet_b0(), 224),
    ("shufflenet_v2_x1_0", lambda: torchvision.models.shufflenet_v2_x1_0(), 224),
    ("mnasnet1_0", lambda: torchvision.models.mnasnet1_0(), 224),
    ("regnet_y_400mf", lambda: torchvision.models.regnet_y_400mf(), 224),
    ("densenet121", lambda: torchvision.models.densenet121(), 224),
    ("convnext_tiny", lambda: torchvision.models.convnext_tiny(), 224),
    ("googlenet", lambda: torchvision.models.googlenet(aux_logits=False, init_weights=True), 224),
    ("inception_v3", lambda: torchvision.models.inception_v3(aux_logits=False, init_weights=True), 299),
    ("resnext50_32x4d", lambda: torchvision.models.resnext50_32x4d(), 224),
    ("squeezenet1_1", lambda: torchvision.models.squeezenet1_1(), 224),
    ("deeplabv3_mobilenet_v3_large",
     lambda: torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None,
                                                                          aux_loss=False), 224),
]


class Out(torch.nn.Module):   # a segmentation model's dict output as its tensor
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        y = self.m(x)
        return y["out"] if isinstance(y, dict) else y


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    only = sys.argv[2:]
    for name, make, side in MODELS:
        if only and name not in only:
            continue
        t = time.time()
        torch.manual_seed(0)
        m = Out(make()).eval()
        x = torch.rand(1, 3, side, side) * 2 - 1
        path = os.path.join(out, name + ".onnx")
        try:
            dynamo = os.environ.get("EXPORTER") == "dynamo"
            kw = {"dynamo": dynamo} if "dynamo" in torch.onnx.export.__code__.co_varnames else {}
            torch.onnx.export(m, (x,), path, opset_version=18 if dynamo else 17, input_names=["x"], output_names=["y"],
                              **kw)
        except Exception as e:   # noqa: BLE001 - said, and the next model
            print("%s: export failed: %s" % (name, str(e).splitlines()[0][:200]), flush=True)
            continue
        with torch.no_grad():
            y = m.double()(x.double()).float().numpy()
        onnx.save_tensor(numpy_helper.from_array(x.numpy(), "x"), os.path.join(out, name + "_input.pb"))
        onnx.save_tensor(numpy_helper.from_array(np.ascontiguousarray(y), "y"), os.path.join(out, name + "_output.pb"))
        print("%s: exported (%d nodes, %.1f s)" % (name, len(onnx.load(path).graph.node), time.time() - t), flush=True)


if __name__ == "__main__":
    main()
