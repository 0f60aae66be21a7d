#!/usr/bin/env bash
# check.sh: the warp's tile product (mmaTF32, mma3xTF32; docs/ir.md, "Tile
# products") and strategy tc on the GPU machine, from the repository root,
# carrying .debs: bench/h200-env.sh builds convgen; then each program and
# layer runs with `convgen run` (checked against the float64 interpreter or
# reference on fresh random data, output poisoned, before any time is
# taken) under --target cuda (mma.sync.m16n8k8 on the tensor cores) and, for
# the programs, under NVIDIA's OpenCL (each lane its own dot products).
# LS=2 (chunks staged in local memory) and precision=tf32 (one TF32
# product a step) likewise. Writes $OUT/mma.txt.
set -u
OUT=${OUT:-/tmp/out}
START=$(date +%s) BUDGET=${BUDGET:-400}   # the tune-and-bench pairs start only while 80 s of BUDGET are left
mkdir -p "$OUT"
log=$OUT/mma.txt
{
  echo "commit: ${GIT_COMMIT:-unknown}"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
} > "$log"
. bench/h200-env.sh .debs >> "$log" 2>&1 || { tail -30 /tmp/h200-make.log >> "$log"; cat "$log"; exit 1; }
run() {
  echo "== convgen run $*" >> "$log"
  timeout 120 build/convgen run "$@" --device nvidia >> "$log" 2>&1
  echo "exit $?" >> "$log"
}
for t in cuda opencl; do
  run examples/ir/matmul_mma.cg -p M=32 -p N=24 -p K=40 --target $t
  run tests/programs/mma_tf32_warps.cg -p M=32 -p N=32 -p K=16 --target $t
done
if [ "${SMALL:-0}" != 1 ]; then   # SMALL=1: the checks alone, no large product, no tune or bench
  run examples/ir/matmul_mma.cg -p M=512 -p N=512 -p K=512 --target cuda
  run examples/ir/matmul_tiled.cg -p M=512 -p N=512 -p K=512 -p TS=64 -p TK=16 -p RM=8 -p RN=8 --target cuda
fi
run tests/programs/mma_f16_half_inputs.cg -p M=32 -p N=16 -p K=32 --target cuda
run vgg16.conv3_2 --strategy tc -p LT=2 -p RW=8 -p RK=16 -p TH=1 --target cuda
run vgg16.conv3_2 --strategy tc -p LT=2 -p RW=8 -p RK=32 -p TH=4 --target cuda
run vgg16.conv3_2,precision=fp16 --strategy tc -p LT=2 -p RW=8 -p RK=32 -p TH=4 --target cuda
run vgg16.conv3_2,precision=tf32 --strategy tc -p LT=2 -p RW=8 -p RK=32 -p TH=4 --target cuda
run n=1,c=16,h=8,w=16,k=32,pad=1,bias=1,groups=2,act=silu --strategy tc -p LT=1 -p RW=16 -p RK=8 -p TH=2 --target cuda
run n=1,c=3,h=9,w=11,k=4,pad=1,bias=1,relu=1 --strategy tc -p LT=1 -p RW=16 -p RK=8 -p TH=3 --target cuda
# LS=2: the chunks staged in local memory, shared by the warps
for P in "" ",precision=tf32" ",precision=fp16"; do
  run "vgg16.conv3_2$P" --strategy tc -p LT=1 -p LS=2 -p RW=32 -p RK=32 -p TH=4 -p CS=4 --target cuda
  run "vgg16.conv3_2$P" --strategy tc -p LT=2 -p LS=2 -p RW=8 -p RK=32 -p TH=4 -p CS=8 --target cuda
done
run n=1,c=5,h=7,w=13,k=11,pad=1,bias=1,act=silu --strategy tc -p LT=1 -p LS=2 -p RW=16 -p RK=8 -p TH=1 -p CS=3 --target cuda
# tc against s2 and cuDNN (every algorithm; TF32 math for the tf32 layer,
# tensor-op math and both layouts for fp16) by `convgen bench`: tc, then s2
# (not for tf32, whose s2 is fp32's), tuned for TUNE seconds each into one
# database a precision (tune's last lines give each strategy's best), then
# bench measures that database's best beside cuDNN
TUNE=${TUNE:-20}
[ "${SMALL:-0}" = 1 ] && BUDGET=0
for L in vgg16.conv3_2 vgg16.conv3_2,precision=tf32 vgg16.conv3_2,precision=fp16; do
  db=/tmp/$(echo "$L" | tr ',=' '__').db
  for S in tc s2; do
    [ "$S" = s2 ] && [ "${L#*tf32}" != "$L" ] && continue
    if [ $(( $(date +%s) - START )) -gt $(( BUDGET - 60 )) ]; then echo "== $L $S: skipped (budget)" >> "$log"; continue; fi
    echo "== tune $L --strategy $S --time $TUNE" >> "$log"
    timeout $((TUNE + 40)) build/convgen tune $L --strategy $S --target cuda --device nvidia --db "$db" --time $TUNE 2>&1 | tail -n 4 >> "$log"
  done
  if [ $(( $(date +%s) - START )) -gt $(( BUDGET - 40 )) ]; then echo "== bench $L: skipped (budget)" >> "$log"; continue; fi
  echo "== bench $L" >> "$log"
  timeout 120 build/convgen bench $L --target cuda --device nvidia --db "$db" >> "$log" 2>> "$OUT/bench.err"
  echo "exit $?" >> "$log"
done
cat "$log"
