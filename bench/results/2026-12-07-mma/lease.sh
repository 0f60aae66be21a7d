#!/usr/bin/env bash
# lease.sh: in one lease, tc's best tuned point of h100-run1 in tf32 and in
# fp32 (3xTF32), s2's best fp32 point, and bench's cuDNN rows for the same
# layer in fp32 (FMA) and tf32 (default math), so that the figures compare
# (README.md, "Tiles"). From the repository root on the GPU machine,
# carrying .debs; writes $OUT/lease.txt.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
log=$OUT/lease.txt
{
  echo "commit: ${GIT_COMMIT:-unknown}"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv,noheader | head -n 1)"
} > "$log"
. bench/h200-env.sh .debs >> "$log" 2>&1 || { tail -30 /tmp/h200-make.log >> "$log"; cat "$log"; exit 1; }
run() {
  echo "== convgen run $*" >> "$log"
  timeout 90 build/convgen run "$@" --target cuda --device nvidia 2>&1 | grep -E "^(check|time|  k0|convgen)" >> "$log"
}
TC="-p LT=2 -p LS=2 -p LP=3 -p RW=8 -p RK=32 -p TH=4 -p CS=9"
run vgg16.conv3_2,precision=tf32 --strategy tc $TC
run vgg16.conv3_2 --strategy tc $TC
run vgg16.conv3_2 --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=3 -p LC=1 -p LP=3 -p RW=7 -p RK=4 -p TW=8 -p TH=7 -p TK=4 -p CC=8
run vgg16.conv3_2,precision=tf32 --strategy tc $TC
for L in vgg16.conv3_2 vgg16.conv3_2,precision=tf32; do
  echo "== bench $L (no database: convgen's row untuned)" >> "$log"
  timeout 120 build/convgen bench "$L" --target cuda --device nvidia --db /tmp/none.db 2>&1 | grep -E "^  (convgen|cudnn) " >> "$log"
done
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv >> "$log"
cat "$log"
