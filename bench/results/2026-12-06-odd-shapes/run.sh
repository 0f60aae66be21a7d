#!/usr/bin/env bash
# run.sh: issue 32's shapes that do not divide, tuned from an empty
# database and benched against cuDNN and PyTorch in one lease. From the
# repository root on the GPU machine (kind nvidia-h200: the issue's targets
# are the H200's), carrying .debs:
#
#     GIT_COMMIT=... bash bench/results/2026-12-06-odd-shapes/run.sh
#
# Each of the four layers of issue 32's targets (its prime channel counts
# and odd planes) tuned TUNE s (60, the issue's) under CUDA into a database
# of its own, then `convgen bench` (convgen's best, the naive kernel, CLBlast
# and cuDNN's every algorithm, fp32 with TF32 off, each checked first) and
# bench/pytorch.py on bench's CSV (F.conv2d with cudnn.benchmark, per call
# and from a CUDA graph), in the same lease. Writes $OUT/odd.tgz (logs,
# CSVs, the database) and $OUT/odd.txt. BUDGET (580): seconds the call may
# take, a step past it skipped.
set -u
START=$(date +%s)
TUNE=${TUNE:-60} BUDGET=${BUDGET:-580}
R=/tmp/odd
rm -rf "$R" && mkdir -p "$R"
OUT=${OUT:-$R/out}
mkdir -p "$OUT"
S=$R/odd.txt
save() { cp "$S" "$OUT/odd.txt"; tar czf "$OUT/odd.tgz" -C /tmp odd 2>/dev/null; }
trap save EXIT
{
  echo "commit: ${GIT_COMMIT:-unknown}"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
} > "$S"
# shellcheck source=bench/h200-env.sh
. bench/h200-env.sh .debs > "$R/build.log" 2>&1 || { echo "build failed" >> "$S"; tail -n 30 /tmp/h200-make.log >> "$S"; exit 1; }
C=build/convgen
echo "convgen: $($C --version)" >> "$S"
step() {   # step NAME SECONDS COMMAND...: the command's exit and wall time in odd.txt, its output in NAME.log
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
LAYERS="n=1,c=61,h=29,w=29,k=127,kh=3,kw=3,stride=1,pad=1 n=1,c=3,h=149,w=149,k=47,kh=3,kw=3,stride=2,pad=0
n=1,c=200,h=13,w=13,k=300,kh=3,kw=3,stride=1,pad=1 n=1,c=72,h=35,w=35,k=88,kh=5,kw=5,stride=1,pad=2"
i=0
for L in $LAYERS; do
  i=$((i + 1))
  step "tune_$i" $(( TUNE + 40 )) $C tune "$L" --time "$TUNE" --target cuda --device nvidia --db "$R/odd.db"
done
# shellcheck disable=SC2086 # the layers, one word each
step bench 150 $C bench $LAYERS --target cuda --device nvidia --db "$R/odd.db" --csv "$R/bench.csv" --runs 20
cat "$R/bench.log" >> "$S"
step pytorch 90 python3 bench/pytorch.py "$R/bench.csv" --csv "$R/pytorch.csv"
cat "$R/pytorch.log" >> "$S"
echo "done: $(( $(date +%s) - START )) s" >> "$S"
