#!/usr/bin/env bash
# ab.sh: this session's issue-31 choices against the points they change, in
# one lease (written 2026-12-07, not run yet). Each pair is one recorded
# point and the same point with one choice changed, both timed by `convgen
# run` under CUDA (checked against float64 first) on the same warm GPU:
#   tc  LA=2 (the taps in chunk order, 96efa90) and LP=4 (cp.async, 3b655c9)
#       on round 38's best tf32 point of vgg16.conv3_2;
#   s2  LP=4 on round 33's best s2 point of vgg16.conv3_2 (fp32, LP=3);
#   wino LP=4 on round 42's best batch-8 point of vgg16.conv4_2;
#   tc in fp16 with its chunks staged as halves (b252b84, b084314).
# From the repository root on the GPU machine, carrying .debs:
#   GIT_COMMIT=... bash bench/results/2026-12-07-async/ab.sh
# writes $OUT/ab.txt (each run's check and time lines). About 3 minutes
# with the build.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
log=$OUT/ab.txt
{
  echo "command: bash bench/results/2026-12-07-async/ab.sh"
  echo "commit: ${GIT_COMMIT:-unknown}"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
} > "$log"
# shellcheck source=bench/h200-env.sh
. bench/h200-env.sh .debs >> "$log" 2>&1 || { tail -30 /tmp/h200-make.log >> "$log"; cat "$log"; exit 1; }
run() {   # run LABEL LAYER STRATEGY PRECISION POINT
  echo "== $1: $2 --strategy $3 --precision $4 $5" >> "$log"
  local ps=()
  for kv in $5; do ps+=(-p "$kv"); done
  timeout 120 build/convgen run "$2" --strategy "$3" --precision "$4" --target cuda --device nvidia --runs 20 \
    "${ps[@]}" 2>&1 | grep -E "check|^time|error|convgen:" >> "$log"
}
TC="LT=1 LS=3 RW=64 RK=32 TH=4 CB=1"
run tc-base vgg16.conv3_2 tc tf32 "$TC LP=3"
run tc-LA2 vgg16.conv3_2 tc tf32 "$TC LP=3 LA=2"
run tc-LP4 vgg16.conv3_2 tc tf32 "$TC LP=4"
run tc-LA2-LP4 vgg16.conv3_2 tc tf32 "$TC LP=4 LA=2"
run tc-fp16-base vgg16.conv3_2 tc fp16 "LT=1 LS=3 LP=2 LG=2 RW=32 RK=16 TH=2 TK=2 CB=1"
run tc-fp16-LA2 vgg16.conv3_2 tc fp16 "LT=1 LS=3 LP=2 LG=2 LA=2 RW=32 RK=16 TH=2 TK=2 CB=1"
# fp16 staged as halves (b252b84) and multiplied from them (b084314): round 38's fp16 points (81.7 and
# 123.5 us there, staged as floats, another lease) and the 64 x 32 tile in two slots, which fits now
run tc-fp16-32x32 vgg16.conv3_2 tc fp16 "LT=1 LS=3 LP=2 RW=32 RK=32 TH=4 CB=1"
run tc-fp16-64x32 vgg16.conv3_2 tc fp16 "LT=1 LS=3 LP=2 RW=64 RK=32 TH=4 CB=1"
run tc-fp16-64x32-LP3 vgg16.conv3_2 tc fp16 "LT=1 LS=3 LP=3 RW=64 RK=32 TH=4 CB=1"
run tc-fp16-64x32-LP3-LA2 vgg16.conv3_2 tc fp16 "LT=1 LS=3 LP=3 LA=2 RW=64 RK=32 TH=4 CB=1"
S2="LK=2 LH=2 LW=2 LS=2 LC=1 LR=2 LN=2 LX=2 CK=64 RW=1 RK=8 RH=14 TW=8 TH=2 TK=8 CC=2"
run s2-base vgg16.conv3_2 s2 fp32 "$S2 LP=3"
run s2-LP4 vgg16.conv3_2 s2 fp32 "$S2 LP=4"
WI="WM=2 LS=2 WB=2 RT=7 RK=4 TT=28 TK=8 CS=16"
run wino-base vgg16.conv4_2,n=8 wino fp32 "$WI LP=3"
run wino-LP4 vgg16.conv4_2,n=8 wino fp32 "$WI LP=4"
cat "$log"
