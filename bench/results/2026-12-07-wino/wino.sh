#!/usr/bin/env bash
# wino.sh: strategy wino (Winograd F(2,3) and F(4,3), issue 32) on a GPU for
# the first time, in one lease: four 3x3 VGG-16 layers in fp32 (TF32 off),
# each tuned TUNE seconds with --strategy wino and then with --strategy s2
# into one database, then `convgen bench` on it beside cuDNN (every
# algorithm, Winograd's among them, FMA math). Each candidate is checked
# against the float64 reference before it is timed. wino's time includes
# its filter transform (a kernel of the weights alone) in every run. From
# the repository root on the GPU machine, carrying .debs:
#   GIT_COMMIT=... bash bench/results/2026-12-07-wino/wino.sh
# writes $OUT/wino.txt, bench.csv, bench.err and tune.db.gz.
set -u
OUT=${OUT:-/tmp/out}
TUNE=${TUNE:-30}
LAYERS=${LAYERS:-"vgg16.conv2_2 vgg16.conv3_2 vgg16.conv4_2 vgg16.conv5_1"}
mkdir -p "$OUT"
log=$OUT/wino.txt
{
  echo "commit: ${GIT_COMMIT:-unknown}"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
  echo "layers: $LAYERS; tune: $TUNE s a layer and strategy"
} > "$log"
. bench/h200-env.sh .debs >> "$log" 2>&1 || { tail -30 /tmp/h200-make.log >> "$log"; cat "$log"; exit 1; }
db=$OUT/tune.db
for s in wino s2; do
  echo "== tune --strategy $s --time $TUNE a layer" >> "$log"
  for layer in $LAYERS; do
    timeout $((TUNE + 90)) build/convgen tune "$layer" --strategy "$s" --target cuda --device nvidia --db "$db" \
      --time "$TUNE" 2>&1 | tail -n 4 >> "$log"
  done
done
echo "== bench" >> "$log"
# shellcheck disable=SC2086
timeout 300 build/convgen bench $LAYERS --target cuda --device nvidia --db "$db" --csv "$OUT/bench.csv" \
  2>"$OUT/bench.err" | tail -n 12 >> "$log"
gzip -f "$db"
cat "$log"
