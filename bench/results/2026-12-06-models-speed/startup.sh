#!/usr/bin/env bash
# startup.sh: issue 30's "a tuned ResNet-50 starts running within 5 s of
# `convgen infer`": the wall time of `convgen infer resnet50.onnx --input X
# --expect Y` (import, each convolution's one point compiled, the other
# nodes' programs compiled, one run, the check), under each target, twice in
# a row (the second may find the driver's caches warm), with the database
# DB (default: round 33's, every H200 record so far, ResNet-50's layers
# among them). On the H200 each convolution compiles its tuned record; on
# another GPU the records are not its own and each compiles its default
# point, one point a layer all the same (-v's lines say which ran).
# Run from the repository root after a build (CONVGEN, default build/convgen);
# writes $R/startup.txt and the -v logs into $R/logs (R: default /tmp/startup).
# THREADS="1 16" repeats the pair of starts with CONVGEN_BUILD_THREADS at
# each value (empty, the default: convgen's own choice); each pair gets a
# compute cache of its own (CUDA_CACHE_PATH, NVIDIA's OpenCL keeps its
# builds there), empty for its first start.
set -u
CONVGEN=${CONVGEN:-build/convgen}
R=${R:-/tmp/startup}
W=${WORK:-/tmp/models}
mkdir -p "$R/logs" "$W"
DB=${DB:-$R/r33.db}
[ -f "$DB" ] || gunzip -c bench/results/2026-12-03-bench-h200-r33/call3/tune.db.gz > "$DB"
[ -f "$W/resnet50_output.pb" ] || python3 bench/models.py "$W" --models resnet50 --export-only > "$R/logs/export.log" 2>&1
{
  echo "commit: ${GIT_COMMIT:-?}  convgen: $("$CONVGEN" --version)"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  for t in cuda opencl; do
    for th in ${THREADS:-default}; do
      cache=$R/cache/$t.$th
      rm -rf "$cache"
      mkdir -p "$cache"
      for k in 1 2; do
        f=$R/logs/resnet50.$t.$th.$k
        s=$(date +%s.%N)
        if [ "$th" = default ]; then unset CONVGEN_BUILD_THREADS; else export CONVGEN_BUILD_THREADS=$th; fi
        CUDA_CACHE_PATH=$cache "$CONVGEN" infer "$W/resnet50.onnx" --input "$W/resnet50_input.pb" \
          --expect "$W/resnet50_output.pb" --target "$t" --db "$DB" ${DEVICE:+--device "$DEVICE"} -v > "$f.out" 2> "$f.err"
        rc=$?
        w=$(awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
        echo "resnet50 $t, build threads $th, run $k: exit $rc, $w s from the command to its exit;" \
          "$(grep -o 'PASS relative L2 error [^ ]*' "$f.out")"
        grep -o 'steps prepared and run once in .*' "$f.err" | sed 's/^/  /'
        echo "  convolutions: $(grep -c '(Conv): tuned ' "$f.err") tuned here," \
          "$(grep -c '(Conv): not tuned' "$f.err") not (their default point or another's)"
      done
    done
  done
  unset CONVGEN_BUILD_THREADS
} | tee "$R/startup.txt"
