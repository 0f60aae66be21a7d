#!/usr/bin/env bash
# patch.sh: tc with LS=3 (the work-group's patch of the input staged in
# local memory, CB blocks of 8 input channels at a time, each value once)
# on vgg16.conv3_2 in tf32 and fp32, beside LS=2's best point of
# h100-run1, then tc tuned TUNE seconds in tf32 and benched beside cuDNN
# (TF32), all in one lease, every point checked against float64 first.
# From the repository root on the GPU machine, carrying .debs; writes
# $OUT/patch.txt. (README.md, "The patch staged".)
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
log=$OUT/patch.txt
{
  echo "commit: ${GIT_COMMIT:-unknown}"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
} > "$log"
. bench/h200-env.sh .debs >> "$log" 2>&1 || { tail -30 /tmp/h200-make.log >> "$log"; cat "$log"; exit 1; }
while read -r layer point; do
  [ -z "$layer" ] && continue
  args=()
  for kv in $point; do args+=(-p "$kv"); done
  echo "== $layer $point" >> "$log"
  timeout 60 build/convgen run "$layer" --strategy tc "${args[@]}" --target cuda --device nvidia 2>&1 |
    grep -E "^(check|time|convgen)" >> "$log"
done <<'POINTS'
vgg16.conv3_2,precision=tf32 LT=2 LS=2 LP=3 RW=8 RK=32 TH=4 CS=9
vgg16.conv3_2,precision=tf32 LT=2 LS=3 LP=3 RW=8 RK=32 TH=4 CB=1
vgg16.conv3_2,precision=tf32 LT=2 LS=3 LP=3 RW=8 RK=32 TH=4 CB=2
vgg16.conv3_2,precision=tf32 LT=1 LS=3 LP=3 RW=32 RK=32 TH=4 CB=1
vgg16.conv3_2,precision=tf32 LT=1 LS=3 LP=3 RW=64 RK=32 TH=4 CB=1
vgg16.conv3_2,precision=tf32 LT=1 LS=3 LP=3 RW=64 RK=16 TH=8 CB=1
vgg16.conv3_2,precision=tf32 LT=1 LS=3 RW=64 RK=32 TH=4 CB=2
vgg16.conv3_2,precision=tf32 LT=1 LS=3 LP=3 RW=64 RK=32 TH=2 CB=2
vgg16.conv3_2 LT=1 LS=3 LP=3 RW=64 RK=32 TH=4 CB=1
POINTS
TUNE=${TUNE:-60}
echo "== tune vgg16.conv3_2,precision=tf32 --strategy tc --time $TUNE" >> "$log"
timeout $((TUNE + 60)) build/convgen tune vgg16.conv3_2,precision=tf32 --strategy tc --target cuda --device nvidia \
  --db /tmp/patch.db --time "$TUNE" 2>&1 | tail -n 3 >> "$log"
echo "== bench vgg16.conv3_2,precision=tf32" >> "$log"
timeout 120 build/convgen bench vgg16.conv3_2,precision=tf32 --target cuda --device nvidia --db /tmp/patch.db 2>&1 |
  grep -E "^  (convgen|cudnn) " >> "$log"
cat "$log"
