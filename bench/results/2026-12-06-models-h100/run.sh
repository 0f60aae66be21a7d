#!/usr/bin/env bash
# run.sh: issue 30's twelve CNNs (export.py) through `convgen import` and,
# untuned, `convgen infer --expect` against PyTorch's float64 output, on the
# GPU machine under NVIDIA's OpenCL (--target cuda too when TARGETS says so;
# EXPORTER=dynamo: torch.onnx's dynamo exporter, export.py).
# From the repository root with bench/h200-env.sh's packages in .debs; logs
# and a summary into $OUT. Correctness and coverage only: no timing.
set -uo pipefail
out=${OUT:-/tmp/out}
logs=/tmp/model-logs   # every log there, $OUT gets summary.txt and logs.tgz (a call brings back 8 files)
rm -rf "$logs" && mkdir -p "$logs"
. bench/h200-env.sh .debs >/dev/null 2>&1 || { echo "build failed"; exit 1; }
work=/tmp/models
python3 bench/results/2026-12-06-models-h100/export.py "$work" 2>&1 | grep -v Warning | tee "$logs/export.txt"
for m in "$work"/*.onnx; do
  n=$(basename "$m" .onnx)
  timeout 60 build/convgen import "$m" >"$logs/$n.import" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "$n: import exit $rc: $(tail -n 1 "$logs/$n.import" | cut -c 1-300)" | tee -a "$out/summary.txt"
    continue
  fi
  for target in ${TARGETS:-opencl}; do
    start=$(date +%s)
    timeout 120 build/convgen infer "$m" --input "$work/${n}_input.pb" --expect "$work/${n}_output.pb" \
      --target "$target" >"$logs/$n.$target" 2>&1
    rc=$?
    echo "$n ($target): infer exit $rc, $(( $(date +%s) - start )) s: $(grep -hoE 'PASS relative.*|FAIL.*|convgen: [^n].*' \
      "$logs/$n.$target" | head -n 1 | cut -c 1-300)" | tee -a "$out/summary.txt"
  done
done
cp "$out/summary.txt" "$logs/"
tar czf "$out/logs.tgz" -C "$logs" . 2>/dev/null
