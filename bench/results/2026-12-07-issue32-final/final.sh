#!/usr/bin/env bash
# final.sh: issue 32's targets from a fresh tune and bench on one code, with
# PyTorch in the same lease, in four calls of one lease (each under the
# device tool's 600 s a command). From the repository root on the GPU
# machine (kind nvidia-h200: the issue's targets are the H200's), carrying
# .debs:
#
#     SET=odd GIT_COMMIT=... bash bench/results/2026-12-07-issue32-final/final.sh
#     SET=b1 ..., SET=b8 ..., SET=b32 ...
#
# SET picks the layers and how they are tuned, each into an empty database
# of its own, under CUDA, fp32 with TF32 off:
#   odd  the issue's four shapes that do not divide, every strategy, TUNE (60) s each;
#   b1   four 3x3 VGG-16 layers at batch 1: wino (every variant) WINO s, then s2 S2 s;
#   b8   the five VGG-16 layers at batch 8: wino (LS=2, WB=2, NARROW's domains) WINO s, then s2 S2 s;
#   b32  vgg16.conv3_2 and conv4_2 at batch 32, as b8.
# Then `convgen bench` (convgen's best three records measured again, the
# naive kernel, cuDNN's every algorithm, each checked first) and
# bench/pytorch.py on bench's CSV (F.conv2d with cudnn.benchmark, per call
# and from a CUDA graph). Each step's exit and wall time in $SET.txt, its
# output in its log; a step past BUDGET (560 s from the start) is skipped.
# Writes $OUT/$SET.txt and $OUT/$SET.tgz (logs, CSVs, the database).
set -u
START=$(date +%s)
SET=${SET:?SET=odd, b1, b8 or b32}
TUNE=${TUNE:-60} WINO=${WINO:-30} S2=${S2:-15} BUDGET=${BUDGET:-560}
NARROW=${NARROW:-"--param LS=2 --param TK=2..16 --param TT=2..32 --param CS=4..16 --param RK=2..8 --param RT=2..8"}
case $SET in
odd) LAYERS="n=1,c=61,h=29,w=29,k=127,kh=3,kw=3,stride=1,pad=1 n=1,c=3,h=149,w=149,k=47,kh=3,kw=3,stride=2,pad=0
n=1,c=200,h=13,w=13,k=300,kh=3,kw=3,stride=1,pad=1 n=1,c=72,h=35,w=35,k=88,kh=5,kw=5,stride=1,pad=2" ;;
b1) LAYERS="vgg16.conv2_2 vgg16.conv3_2 vgg16.conv4_2 vgg16.conv5_1"
  NARROW="" ;;   # every wino variant: round 40's batch-1 results are LS=1's
b8) LAYERS="vgg16.conv1_2,n=8 vgg16.conv2_2,n=8 vgg16.conv3_2,n=8 vgg16.conv4_2,n=8 vgg16.conv5_1,n=8"
  NARROW="$NARROW --param WB=2" ;;
b32) LAYERS="vgg16.conv3_2,n=32 vgg16.conv4_2,n=32"
  NARROW="$NARROW --param WB=2" ;;
*) echo "final.sh: SET=$SET: not odd, b1, b8 or b32" >&2; exit 2 ;;
esac
R=/tmp/issue32-$SET
rm -rf "$R" && mkdir -p "$R"
OUT=${OUT:-$R/out}
mkdir -p "$OUT"
S=$R/$SET.txt
save() { cp "$S" "$OUT/$SET.txt"; tar czf "$OUT/$SET.tgz" --exclude out -C /tmp "issue32-$SET" 2>/dev/null; }
trap save EXIT
{
  echo "command: SET=$SET TUNE=$TUNE WINO=$WINO S2=$S2 NARROW=\"$NARROW\" bash bench/results/2026-12-07-issue32-final/final.sh"
  echo "commit: ${GIT_COMMIT:-unknown}"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
} > "$S"
# shellcheck source=bench/h200-env.sh
. bench/h200-env.sh .debs > "$R/build.log" 2>&1 || { echo "build failed" >> "$S"; tail -n 30 /tmp/h200-make.log >> "$S"; exit 1; }
C=build/convgen
echo "convgen: $($C --version)" >> "$S"
step() {   # step NAME SECONDS COMMAND...: the command's exit and wall time in $S, its output in NAME.log
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
T="--target cuda --device nvidia --db $R/tune.db"
i=0
for L in $LAYERS; do
  i=$((i + 1))
  # shellcheck disable=SC2086 # T and NARROW are lists of words
  if [ "$SET" = odd ]; then
    step "tune_$i" $(( TUNE + 40 )) $C tune "$L" --time "$TUNE" $T
  else
    step "tune_${i}_wino" $(( WINO + 40 )) $C tune "$L" --strategy wino $NARROW --time "$WINO" $T
    step "tune_${i}_s2" $(( S2 + 40 )) $C tune "$L" --strategy s2 --time "$S2" $T
  fi
done
# shellcheck disable=SC2086 # the layers, one word each
step bench 180 $C bench $LAYERS $T --csv "$R/bench.csv" --runs 20
cat "$R/bench.log" >> "$S"
step pytorch 120 python3 bench/pytorch.py "$R/bench.csv" --csv "$R/pytorch.csv"
cat "$R/pytorch.log" >> "$S"
echo "done: $(( $(date +%s) - START )) s" >> "$S"
