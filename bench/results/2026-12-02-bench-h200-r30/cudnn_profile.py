#!/usr/bin/env python3
"""cudnn_profile.py N C H W K: one F.conv2d (3x3, pad 1, bias) + ReLU of that
shape as PyTorch runs it (cudnn.benchmark on, TF32 off), between
cudaProfilerStart and cudaProfilerStop after cuDNN's algorithm is chosen, so
that `ncu --profile-from-start off` profiles the kernels of that one call and
not cuDNN's trials."""
import sys

import torch
import torch.nn.functional as F

n, c, h, w, k = (int(a) for a in sys.argv[1:6])
torch.backends.cudnn.benchmark = True
torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False
x = torch.rand(n, c, h, w, device="cuda") * 2 - 1
wt = torch.rand(k, c, 3, 3, device="cuda") * 2 - 1
b = torch.rand(k, device="cuda") * 2 - 1
for _ in range(5):   # the benchmark's trials, then warm calls
    y = torch.relu(F.conv2d(x, wt, b, padding=1))
torch.cuda.synchronize()
torch.cuda.profiler.start()
y = torch.relu(F.conv2d(x, wt, b, padding=1))
torch.cuda.synchronize()
torch.cuda.profiler.stop()
print(f"n={n} c={c} h={h} w={w} k={k}: done, output {tuple(y.shape)}")
