#!/usr/bin/env bash
# tiles.sh: how tc's time on vgg16.conv3_2 in tf32 moves with the warp's
# tile (RW pixels x RK channels), the work-group's rows (TH warps) and the
# staged chunk (LS=2, CS steps, LP=1: no prefetch registers), each point
# checked against float64 by `convgen run` before it is timed, under
# --target cuda. From the repository root on the GPU machine, carrying
# .debs; writes $OUT/tiles.txt. (README.md, "Tiles".)
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
log=$OUT/tiles.txt
{
  echo "commit: ${GIT_COMMIT:-unknown}"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
} > "$log"
. bench/h200-env.sh .debs >> "$log" 2>&1 || { tail -30 /tmp/h200-make.log >> "$log"; cat "$log"; exit 1; }
L=vgg16.conv3_2,precision=tf32
while read -r point; do
  [ -z "$point" ] && continue
  args=()
  for kv in $point; do args+=(-p "$kv"); done
  echo "== $point" >> "$log"
  timeout 60 build/convgen run "$L" --strategy tc "${args[@]}" --target cuda --device nvidia 2>&1 |
    grep -E "^(check|time|  k0|convgen)" >> "$log"
done <<'POINTS'
LT=2 LS=2 LP=3 RW=8 RK=32 TH=4 CS=9
LT=2 LS=2 RW=8 RK=32 TH=4 CS=9
LT=1 RW=16 RK=8 TH=1
LT=1 RW=64 RK=8 TH=1
LT=1 RW=64 RK=32 TH=1
LT=1 RW=64 RK=32 TH=2
LT=1 RW=64 RK=32 TH=4
LT=2 RW=56 RK=32 TH=1
LT=2 RW=56 RK=32 TH=4
LT=1 LS=2 RW=64 RK=32 TH=2 CS=2
LT=1 LS=2 RW=64 RK=32 TH=2 CS=4
LT=1 LS=2 RW=64 RK=32 TH=2 CS=8
LT=1 LS=2 RW=64 RK=32 TH=4 CS=4
LT=1 LS=2 RW=32 RK=32 TH=8 CS=4
POINTS
cat "$log"
