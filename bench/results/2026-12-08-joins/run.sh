#!/usr/bin/env bash
# run.sh: the models whose Concats are now joined (SqueezeNet 1.1's fire
# modules, GoogLeNet's inception blocks, DenseNet-121's dense blocks, whose
# batch norms after each Concat are also one kernel with their ReLU now),
# convgen and PyTorch in ONE call, so that both sides come from one lease
# when the session's device time holds a single call:
#
#     GIT_COMMIT=$(git rev-parse --short HEAD) bash bench/results/2026-12-08-joins/run.sh
#
# from the repository root on the GPU machine, carrying .debs, timeout 600.
# First convgen's side, ../2026-12-06-models-speed/convgen_call.sh as call
# "convgen" (export, build, then per model untuned under CUDA and OpenCL,
# `tune --time 30`, tuned under both), its steps stopped at CONVGEN_BUDGET
# (380 s) from the start; then PyTorch's side, pytorch.py on the same models
# as call "pytorch" (eager, CUDA graph, torch.compile replayed from a CUDA
# graph), within TOTAL_BUDGET (575 s) from the start. Each call's folder
# comes back as NAME.tgz with its CSV and info.txt (call.sh's save);
# ../2026-12-06-models-speed/table.py reads the two folders.
#
# Environment: MODELS (default "squeezenet1_1 googlenet densenet121"),
# CONVGEN_BUDGET, TOTAL_BUDGET, and convgen_call.sh's and pytorch.py's own.
set -u
D0=bench/results/2026-12-06-models-speed
MODELS=${MODELS:-squeezenet1_1 googlenet densenet121}
START0=$(date +%s)
CALL=convgen CALL_BUDGET=${CONVGEN_BUDGET:-380} MODELS="$MODELS" bash "$D0/convgen_call.sh"
CALL_BUDGET=$(( ${TOTAL_BUDGET:-575} - ($(date +%s) - START0) ))
export CALL_BUDGET
. "$D0/call.sh" pytorch "$0" "MODELS=$MODELS" "RUNS=${RUNS:-20}"
models=${MODELS// /,}
python3 "$D0/pytorch.py" --models "$models" --csv "$R/pytorch.csv" --logs "$R/logs" --runs "${RUNS:-20}" \
  --budget $(( DEADLINE - $(date +%s) - 5 )) --compile-timeout "${COMPILE_TIMEOUT:-120}" \
  --model-timeout "${MODEL_TIMEOUT:-180}" > "$R/pytorch.txt" 2> "$R/pytorch.log"
echo "pytorch.py: exit $?, $(date -u '+%H:%M:%S UTC')" >> "$R/info.txt"
save
cat "$R/pytorch.txt"
