#!/usr/bin/env bash
# patch2.sh: tc's LS=3 (the patch staged) on vgg16.conv3_2 in fp16 and at
# more tf32 points, beside s2's fp16 point of h100-run1 and bench's cuDNN
# rows (fp16: half tensors, tensor-op math; tf32: TF32), all in one lease,
# every point checked against float64 first. From the repository root on
# the GPU machine, carrying .debs; writes $OUT/patch2.txt.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
log=$OUT/patch2.txt
{
  echo "commit: ${GIT_COMMIT:-unknown}"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
} > "$log"
. bench/h200-env.sh .debs >> "$log" 2>&1 || { tail -30 /tmp/h200-make.log >> "$log"; cat "$log"; exit 1; }
while read -r layer strategy point; do
  [ -z "$layer" ] && continue
  args=()
  for kv in $point; do args+=(-p "$kv"); done
  echo "== $layer $strategy $point" >> "$log"
  timeout 60 build/convgen run "$layer" --strategy "$strategy" "${args[@]}" --target cuda --device nvidia 2>&1 |
    grep -E "^(check|time|convgen)" >> "$log"
done <<'POINTS'
vgg16.conv3_2,precision=fp16 s2 LK=2 LH=2 LW=2 LS=3 LC=3 LP=2 LN=2 LX=2 CK=64 RW=4 RK=8 TW=14 TH=4 TK=2 CC=1
vgg16.conv3_2,precision=fp16 tc LT=1 LS=3 LP=2 RW=64 RK=32 TH=4 CB=1
vgg16.conv3_2,precision=fp16 tc LT=1 LS=3 LP=2 RW=32 RK=32 TH=4 CB=1
vgg16.conv3_2,precision=fp16 tc LT=1 LS=3 LP=2 RW=64 RK=16 TH=4 CB=1
vgg16.conv3_2,precision=fp16 tc LT=1 LS=3 LP=3 RW=32 RK=16 TH=4 CB=1
vgg16.conv3_2,precision=tf32 tc LT=1 LS=3 LP=3 RW=64 RK=32 TH=4 CB=1
vgg16.conv3_2,precision=tf32 tc LT=1 LS=3 LP=2 RW=64 RK=32 TH=4 CB=1
vgg16.conv3_2,precision=tf32 tc LT=1 LS=3 LP=3 RW=64 RK=32 TH=2 CB=1
vgg16.conv3_2,precision=tf32 tc LT=1 LS=3 LP=3 RW=64 RK=16 TH=4 CB=1
vgg16.conv3_2,precision=tf32 tc LT=1 LS=3 LP=3 RW=64 RK=32 TH=8 CB=1
vgg16.conv3_2,precision=tf32 tc LT=1 LS=3 LP=3 RW=32 RK=32 TH=8 CB=1
POINTS
for L in vgg16.conv3_2,precision=fp16 vgg16.conv3_2,precision=tf32; do
  echo "== bench $L (no database: convgen's row untuned)" >> "$log"
  timeout 120 build/convgen bench "$L" --target cuda --device nvidia --db /tmp/none.db 2>&1 | grep -E "^  (convgen|cudnn) " >> "$log"
done
cat "$log"
