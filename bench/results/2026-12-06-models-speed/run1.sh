#!/usr/bin/env bash
# Call 1: PyTorch's baselines of issue 30's twelve models (pytorch.py):
# eager, CUDA graph, torch.compile with freezing (called, and replayed from a
# CUDA graph), each checked against the float64 reference, with its peak
# device memory. Needs no convgen build and no ONNX file (pytorch.py builds
# each model as export.py does), so nothing to carry.
#
#     GIT_COMMIT=$(git rev-parse --short HEAD) bash bench/results/2026-12-06-models-speed/run1.sh
#
# Environment: MODELS (comma- or space-separated names of export.py's
# MODELS; default all twelve), RUNS (20), CALL_BUDGET (550 s), COMPILE_TIMEOUT
# (120 s: torch.compile's first call), MODEL_TIMEOUT (180 s: one model).
# Expected: 5-9 minutes on a 16-core H200 machine (per model ~5 s to start,
# 1-5 s of float64 reference on the CPU, 2-5 s eager and graph, 15-60 s
# torch.compile cold, under 1 s per timing); a model that would start with
# under 40 s left is recorded "skipped (budget)": run it again with MODELS.
# Brings back call1.tgz (logs: a log and a JSON-lines file per model,
# pytorch.txt), pytorch.csv and info.txt.
set -u
. bench/results/2026-12-06-models-speed/call.sh call1 "$0" "MODELS=${MODELS:-all}" "RUNS=${RUNS:-20}"
models=${MODELS:-all}
models=${models// /,}
python3 "$D/pytorch.py" --models "$models" --csv "$R/pytorch.csv" --logs "$R/logs" --runs "${RUNS:-20}" \
  --budget $(( DEADLINE - $(date +%s) - 5 )) --compile-timeout "${COMPILE_TIMEOUT:-120}" \
  --model-timeout "${MODEL_TIMEOUT:-180}" > "$R/pytorch.txt" 2> "$R/pytorch.log"
echo "pytorch.py: exit $?, $(date -u '+%H:%M:%S UTC')" >> "$R/info.txt"
cat "$R/pytorch.txt"
