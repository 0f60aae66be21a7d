#!/usr/bin/env bash
# Call 2: convgen on the first half of issue 30's models (convgen_call.sh:
# export, build, then convgen.sh: untuned under CUDA and OpenCL with round
# 33's database, `convgen tune --time $TUNE_TIME --target cuda` from an empty
# database, tuned under both targets). Carry [".debs"].
#
#     GIT_COMMIT=$(git rev-parse --short HEAD) bash bench/results/2026-12-06-models-speed/run2.sh
#
# The mobile models: 1x1 and depthwise layers, cheap kernels to compile but
# many distinct layers, cheapest first. Estimate (H200): ~1 min to build
# (the exports beside it), then per model ~10-30 s an infer (4 of them) and
# ~max(TUNE_TIME, 1.5 s x distinct layers) to tune: ~80-130 s a model, so
# the last one or two may be "skipped (deadline)" at 550 s; convgen.txt and
# convgen.csv say which, for a later call (convgen_call.sh with CALL, MODELS).
CALL=${CALL:-call2} MODELS=${MODELS:-squeezenet1_1 shufflenet_v2_x1_0 mnasnet1_0 regnet_y_400mf mobilenet_v3_large efficientnet_b0} \
  exec bash bench/results/2026-12-06-models-speed/convgen_call.sh
