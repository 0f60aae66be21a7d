#!/usr/bin/env bash
# Call 3: convgen on the second half of issue 30's models, as run2.sh.
# Carry [".debs"].
#
#     GIT_COMMIT=$(git rev-parse --short HEAD) bash bench/results/2026-12-06-models-speed/run3.sh
#
# DeepLabV3 first: its import is refused (Resize is not claimed yet), a
# second. Then ConvNeXt-Tiny (few distinct convolutions), ResNeXt-50, and the
# three with the most distinct, heavier (3x3, 5x5, 1x7) layers: GoogLeNet,
# Inception v3, DenseNet-121. Same estimate per model as run2.sh (the
# heavier kernels take longer to compile under NVRTC); what the deadline cut
# is said in convgen.txt and convgen.csv.
CALL=${CALL:-call3} MODELS=${MODELS:-deeplabv3_mobilenet_v3_large convnext_tiny resnext50_32x4d googlenet inception_v3 densenet121} \
  exec bash bench/results/2026-12-06-models-speed/convgen_call.sh
