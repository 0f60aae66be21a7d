#!/usr/bin/env bash
# tables.sh: issue 31's tables for one precision P (tf32 or fp16), in one
# lease: the 14 VGG-16 and AlexNet layers tuned TUNE seconds in all (their
# default point, now tc's with the patch staged under CUDA, measured first,
# then every strategy), benched beside cuDNN in the same precision, and
# bench/pytorch.py on bench's CSV (PyTorch's tf32 default, or half
# channels_last). Not run yet: written after ed92eac (tune and bench now
# lower tile products for CUDA), for the next lease. From the repository
# root on the GPU machine, carrying .debs:
#   P=tf32 GIT_COMMIT=... bash bench/results/2026-12-07-mma/tables.sh
# writes $OUT/tables_P.txt, bench_P.csv, pytorch_P.csv and tune_P.db.
set -u
OUT=${OUT:-/tmp/out}
P=${P:?P=tf32 or P=fp16}
TUNE=${TUNE:-240}
mkdir -p "$OUT"
log=$OUT/tables_$P.txt
{
  echo "commit: ${GIT_COMMIT:-unknown}"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
  echo "precision: $P, tune: $TUNE s for the 14 layers"
} > "$log"
. bench/h200-env.sh .debs >> "$log" 2>&1 || { tail -30 /tmp/h200-make.log >> "$log"; cat "$log"; exit 1; }
db=$OUT/tune_$P.db
echo "== tune vgg16 alexnet --precision $P --time $TUNE" >> "$log"
timeout $((TUNE + 120)) build/convgen tune vgg16 alexnet --precision "$P" --target cuda --device nvidia --db "$db" \
  --time "$TUNE" 2>&1 | tail -n 18 >> "$log"
echo "== bench vgg16 alexnet --precision $P" >> "$log"
timeout 300 build/convgen bench vgg16 alexnet --precision "$P" --target cuda --device nvidia --db "$db" \
  --csv "$OUT/bench_$P.csv" 2>"$OUT/bench_$P.err" | tail -n 8 >> "$log"
echo "== pytorch.py --precision $P" >> "$log"
timeout 200 python3 bench/pytorch.py "$OUT/bench_$P.csv" --precision "$P" --csv "$OUT/pytorch_$P.csv" 2>/dev/null |
  tail -n 20 >> "$log"
gzip -f "$db"
cat "$log"
