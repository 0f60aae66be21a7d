#!/usr/bin/env bash
# run.sh: the first fp16 layers on an NVIDIA GPU (issue 31). From the
# repository root on the GPU machine, carrying .debs:
#
#     GIT_COMMIT=... bash bench/results/2026-12-06-fp16-gpu/run.sh
#
# 1. test_cudnn with CONVGEN_TEST_GPU=1: cuDNN's fp16 rows (half tensors
#    summed in float, NCHW and NHWC) checked against float64 on the GPU;
# 2. `convgen run --precision fp16` of random points of each strategy under
#    NVIDIA's OpenCL (vload_half/vstore_half) and CUDA (__half), each
#    checked against float64 with the half tolerance;
# 3. four fp16 layers tuned TUNE s each under CUDA, then `convgen bench`:
#    convgen's best, the naive kernel and cuDNN in fp16 (CLBlast is fp32
#    only), one process, one lease;
# 4. a torchvision MobileNet V3 Large (random weights, export.py's) run
#    whole by `convgen infer` in fp32 and in fp16 under CUDA, untuned (each
#    convolution its default point), checked against PyTorch's float64
#    output and timed (--runs 20): the memory and time of the fp16 network.
# Writes $OUT/fp16.tgz (the logs, the CSV, the database) and $OUT/fp16.txt.
# BUDGET (600): seconds the call may take; the steps run in the order
# above but 4 comes before 3, and a step past the budget is skipped.
set -u
START=$(date +%s)
TUNE=${TUNE:-10}
R=/tmp/fp16
rm -rf "$R" && mkdir -p "$R"
OUT=${OUT:-$R/out}
mkdir -p "$OUT"
S=$R/fp16.txt
save() { cp "$S" "$OUT/fp16.txt"; tar czf "$OUT/fp16.tgz" -C /tmp fp16 2>/dev/null; }
trap save EXIT
{
  echo "commit: ${GIT_COMMIT:-unknown}"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
} > "$S"
# shellcheck source=bench/h200-env.sh
. bench/h200-env.sh .debs > "$R/build.log" 2>&1 || { echo "build failed" >> "$S"; tail -n 30 /tmp/h200-make.log >> "$S"; exit 1; }
make -j"$(nproc)" build/tests/bench/test_cudnn >> "$R/build.log" 2>&1 || { echo "test build failed" >> "$S"; exit 1; }
C=build/convgen
echo "convgen: $($C --version)" >> "$S"
BUDGET=${BUDGET:-600}   # seconds from the start: a step that would end past it is skipped
step() {   # step NAME SECONDS COMMAND...: the command's exit and wall time in fp16.txt, its output in NAME.log
  local name=$1 t=$2 t0 rc left
  shift 2
  left=$(( BUDGET - ($(date +%s) - START) ))
  if [ "$left" -lt 15 ]; then echo "$name: skipped (the call's budget)" >> "$S"; return; fi
  [ "$t" -gt "$left" ] && t=$left
  t0=$(date +%s)
  timeout "$t" "$@" > "$R/$name.log" 2>&1
  rc=$?
  echo "$name: exit $rc, $(( $(date +%s) - t0 )) s; $(tail -n 1 "$R/$name.log")" >> "$S"
  save
}
step test_cudnn 120 env CONVGEN_TEST_GPU=1 build/tests/bench/test_cudnn
grep "cuDNN on" "$R/test_cudnn.log" >> "$S"
L1=n=1,c=64,h=56,w=56,k=64,kh=3,kw=3,pad=1,bias=1,relu=1
L2=n=1,c=144,h=56,w=56,k=144,kh=3,kw=3,pad=1,groups=144,bias=1,act=relu6
for t in opencl cuda; do
  for s in direct s1 s2 s3; do step "run_${t}_$s" 60 $C run "$L1" --precision fp16 --strategy $s --random 2 --target $t --device nvidia --runs 10; done
  step "run_${t}_dw" 60 $C run "$L2" --precision fp16 --strategy dw --random 2 --target $t --device nvidia --runs 10
done
M=mobilenet_v3_large W=/tmp/models
mkdir -p $W
[ -f $W/${M}_output.pb ] || step export 150 python3 bench/results/2026-12-06-models-h100/export.py $W $M
for p in fp32 fp16; do
  step "infer_$p" 120 $C infer $W/$M.onnx --input $W/${M}_input.pb --expect $W/${M}_output.pb --precision $p \
    --target cuda --device nvidia --db "$R/none.db" --runs 20
  grep -E "^device memory|^output|^time" "$R/infer_$p.log" >> "$S"
done
LAYERS="vgg16.conv3_2 n=1,c=256,h=14,w=14,k=1024,bias=1 $L1 $L2"
for L in $LAYERS; do
  n=$(echo "$L" | tr -c 'a-z0-9\n' _ | cut -c1-40)
  step "tune_$n" $(( TUNE + 60 )) $C tune "$L" --precision fp16 --time "$TUNE" --target cuda --device nvidia --db "$R/fp16.db"
done
# shellcheck disable=SC2086 # the layers, one word each
step bench 240 $C bench $LAYERS --precision fp16 --target cuda --device nvidia --db "$R/fp16.db" --csv "$R/bench.csv" --runs 20
cat "$R/bench.log" >> "$S"
echo "done: $(( $(date +%s) - START )) s" >> "$S"
