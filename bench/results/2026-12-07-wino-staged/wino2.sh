#!/usr/bin/env bash
# wino2.sh: strategy wino with M's chunks staged in local memory (LS=2, issue
# 32) on the GPU, in one lease: the five VGG-16 layers at batch 8 in fp32 (TF32
# off), each tuned TUNE seconds with `--strategy wino --param LS=2` into a
# database that starts as round 40's (../2026-12-07-wino/h100-run2: wino LS=1
# and s2 records of three of them on an H100; records are per GPU, so on
# another GPU it adds nothing), then `convgen bench` on it beside cuDNN (every
# algorithm, Winograd's among them, FMA math): bench measures convgen's best
# three records again in this lease. Each candidate is checked against the
# float64 reference before it is timed; wino's filter transform (a kernel of
# the weights alone) runs once, in the checked run, as a network runs it
# (docs/design.md, section 5), and each layer's best wino point is run
# alone at the end to print its kernels' times, the filter transform's
# apart. From the repository root on the GPU machine, carrying .debs:
#   GIT_COMMIT=... bash bench/results/2026-12-07-wino-staged/wino2.sh
# writes $OUT/wino2.txt, bench.csv, bench.err and tune.db.gz.
set -u
OUT=${OUT:-/tmp/out}
TUNE=${TUNE:-30}
LAYERS=${LAYERS:-"vgg16.conv1_2,n=8 vgg16.conv2_2,n=8 vgg16.conv3_2,n=8 vgg16.conv4_2,n=8 vgg16.conv5_1,n=8"}
# the search within work-groups of 8 to 256 work-items' worth of tiles and
# chunks of 4 to 16 channels: a 30-s search of the whole space (tens of
# thousands of points a layer) spends most of it on groups of one or two
NARROW=${NARROW:-"--param TK=2..16 --param TT=2..32 --param CS=4..16 --param RK=2..8 --param RT=2..8"}
mkdir -p "$OUT"
log=$OUT/wino2.txt
{
  echo "commit: ${GIT_COMMIT:-unknown}"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
  echo "layers: $LAYERS; tune: $TUNE s a layer, wino LS=2 $NARROW"
} > "$log"
. bench/h200-env.sh .debs >> "$log" 2>&1 || { tail -30 /tmp/h200-make.log >> "$log"; cat "$log"; exit 1; }
db=$OUT/tune.db
gunzip -c bench/results/2026-12-07-wino/h100-run2/tune.db.gz > "$db"
echo "== tune --strategy wino --param LS=2 --time $TUNE a layer" >> "$log"
for layer in $LAYERS; do
  # shellcheck disable=SC2086
  timeout $((TUNE + 90)) build/convgen tune "$layer" --strategy wino --param LS=2 $NARROW --target cuda \
    --device nvidia --db "$db" --time "$TUNE" 2>&1 | tail -n 4 >> "$log"
done
echo "== bench" >> "$log"
# shellcheck disable=SC2086
timeout 400 build/convgen bench $LAYERS --target cuda --device nvidia --db "$db" --csv "$OUT/bench.csv" \
  2>"$OUT/bench.err" | tail -n 14 >> "$log"
echo "== each layer's best wino point run alone: its kernels, the filter transform once" >> "$log"
for layer in $LAYERS; do
  line=$(build/convgen best "$layer" --target cuda --device nvidia --db "$db" 2>/dev/null | grep -F "$layer " | grep " wino ")
  [ -n "$line" ] || continue
  point=$(echo "$line" | awk '{for (i = 7; i <= NF; i++) printf " -p %s", $i}')
  echo "-- $layer:$point" >> "$log"
  # shellcheck disable=SC2086
  timeout 120 build/convgen run "$layer" --strategy wino $point --target cuda --device nvidia 2>&1 |
    grep -E "check|time|^  k" >> "$log"
done
gzip -f "$db"
cat "$log"
