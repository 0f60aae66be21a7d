#!/usr/bin/env bash
# check.sh: the warp's tile product (mmaTF32, mma3xTF32; docs/ir.md, "Tile
# products") and strategy tc on the GPU machine, from the repository root,
# carrying .debs: bench/h200-env.sh builds convgen; then each program and
# layer runs with `convgen run` (checked against the float64 interpreter or
# reference on fresh random data, output poisoned, before any time is
# taken) under --target cuda (mma.sync.m16n8k8 on the tensor cores) and, for
# the programs, under NVIDIA's OpenCL (each lane its own dot products).
# Writes $OUT/mma.txt.
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
  run examples/ir/matmul_mma.cg -p M=1024 -p N=1024 -p K=1024 --target cuda
  run examples/ir/matmul_tiled.cg -p M=1024 -p N=1024 -p K=1024 -p TS=64 -p TK=16 -p RM=8 -p RN=8 --target cuda
fi
run tests/programs/mma_f16_half_inputs.cg -p M=32 -p N=16 -p K=32 --target cuda
run vgg16.conv3_2 --strategy tc -p LT=2 -p RW=8 -p RK=16 -p TH=1 --target cuda
run vgg16.conv3_2 --strategy tc -p LT=2 -p RW=16 -p RK=32 -p TH=4 --target cuda
run vgg16.conv3_2,precision=fp16 --strategy tc -p LT=2 -p RW=16 -p RK=32 -p TH=4 --target cuda
run n=1,c=16,h=8,w=16,k=32,pad=1,bias=1,groups=2,act=silu --strategy tc -p LT=1 -p RW=16 -p RK=8 -p TH=2 --target cuda
run n=1,c=3,h=9,w=11,k=4,pad=1,bias=1,relu=1 --strategy tc -p LT=1 -p RW=16 -p RK=8 -p TH=3 --target cuda
# tc against s2 and cuDNN (every algorithm, FMA math) by `convgen bench`:
# each strategy tuned alone for TUNE seconds into its own database, then
# bench measures that database's best beside cuDNN
TUNE=${TUNE:-20}
[ "${SMALL:-0}" = 1 ] && BUDGET=0
for L in vgg16.conv3_2 vgg16.conv3_2,precision=fp16; do
  for S in tc s2; do
    if [ $(( $(date +%s) - START )) -gt $(( BUDGET - 80 )) ]; then echo "== $L $S: skipped (budget)" >> "$log"; continue; fi
    echo "== tune $L --strategy $S --time $TUNE; bench" >> "$log"
    timeout $((TUNE + 60)) build/convgen tune $L --strategy $S --target cuda --device nvidia --db /tmp/$S.db --time $TUNE 2>&1 | tail -n 4 >> "$log"
    timeout 200 build/convgen bench $L --target cuda --device nvidia --db /tmp/$S.db >> "$log" 2>> "$OUT/bench.err"
    echo "exit $?" >> "$log"
  done
done
cat "$log"
