#!/usr/bin/env bash
# default.sh: the default point (what an untuned layer runs; docs/tune.md,
# "Untuned layers") of VGG-16 layers in tf32 and fp16 under CUDA, now tc's
# with the patch staged, by `convgen bench` with an empty database (its
# convgen row the default point, checked against float64 first) beside
# cuDNN's row in the same precision, in one lease. From the repository root
# on the GPU machine, carrying .debs; writes $OUT/default.txt.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
log=$OUT/default.txt
{
  echo "commit: ${GIT_COMMIT:-unknown}"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
} > "$log"
. bench/h200-env.sh .debs >> "$log" 2>&1 || { tail -30 /tmp/h200-make.log >> "$log"; cat "$log"; exit 1; }
for P in tf32 fp16; do
  for L in vgg16.conv1_2 vgg16.conv2_2 vgg16.conv3_2 vgg16.conv4_2 vgg16.conv5_2; do
    echo "== bench $L,precision=$P (no database: the default point)" >> "$log"
    timeout 90 build/convgen bench "$L,precision=$P" --target cuda --device nvidia --db /tmp/none.db 2>>"$OUT/bench.err" |
      grep -E "^  (convgen|cudnn) " | head -n 2 >> "$log"
    grep -E "default point|convgen record|untuned" "$OUT/bench.err" | tail -n 1 >> "$log"
  done
done
cat "$log"
