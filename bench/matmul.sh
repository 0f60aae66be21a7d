#!/usr/bin/env bash
# Naive versus tiled matrix multiply (examples/ir/) at 2048 x 2048 fp32 on the
# default device (the GPU where there is one), plus a correctness pass of every
# example. Usage: bench/matmul.sh OUTDIR [DEVICE]. Writes OUTDIR/log.txt and
# OUTDIR/matmul.md (the table for bench/results/). Each timed program is first
# checked against the reference interpreter: in full at 256, and on sampled
# outputs at 2048 (4096 for the naive kernel; for the tiled one the first,
# the last and one random output, each of which costs the interpreter a whole
# work-group tile: the interpreter is far too slow for all 4M outputs).
set -u
out=${1:?usage: bench/matmul.sh OUTDIR [DEVICE]}
dev=${2:-}
mkdir -p "$out"
log="$out/log.txt"
cg=./build/convgen
devopt=()
[ -n "$dev" ] && devopt=(--device "$dev")
say() { echo "$@" | tee -a "$log"; }

say "# convgen matmul benchmark"
say "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  commit: ${COMMIT:-unknown}  host: $(hostname)"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee -a "$log"
$cg devices 2>&1 | tee -a "$log"

status=0
say "## every example, full check"
for f in examples/ir/*.cg; do
  args=$(sed -n 's/^# run://p' "$f" | head -1)
  if $cg run "$f" $args "${devopt[@]}" --runs 10 >>"$log" 2>&1; then say "PASS $f"; else say "FAIL $f"; status=1; fi
done

N=2048
table="$out/matmul.md"
echo "| program | parameters | check | median us | spread | GFLOP/s |" >"$table"
echo "|---|---|---|---|---|---|" >>"$table"
timed() {  # name file sample params...
  local name=$1 file=$2 sample=$3; shift 3
  local res
  res=$($cg run "$file" "$@" "${devopt[@]}" --sample "$sample" --runs 50 2>&1)
  echo "$res" >>"$log"
  local check med spread
  check=$(echo "$res" | sed -n 's/^check *\([A-Z]*\) *relative L2 error \([^ ]*\).*/\1 \2/p')
  med=$(echo "$res" | sed -n 's/^time *\([0-9.]*\) us median.*/\1/p')
  spread=$(echo "$res" | sed -n 's/^time .*spread \([0-9.]*%\).*/\1/p')
  local gflops=""
  [ -n "$med" ] && gflops=$(awk -v us="$med" -v n=$N 'BEGIN { printf "%.0f", 2*n*n*n / (us * 1e3) }')
  echo "| $name | $* | $check | $med | $spread | $gflops |" >>"$table"
  say "$name $*: check $check, median ${med:-?} us, spread ${spread:-?}"
}

say "## small-size full checks of the timed configurations"
configs=("64 16 4 4" "128 8 8 8" "128 16 8 8" "64 16 8 8")
for cfg in "${configs[@]}"; do
  set -- $cfg
  if $cg run examples/ir/matmul_tiled.cg -p M=256 -p N=256 -p K=256 -p TS=$1 -p TK=$2 -p RM=$3 -p RN=$4 \
      "${devopt[@]}" --runs 10 >>"$log" 2>&1; then say "PASS tiled 256 $cfg"; else say "FAIL tiled 256 $cfg"; status=1; fi
done

say "## $N x $N x $N"
timed naive examples/ir/matmul_naive.cg 4096 -p M=$N -p N=$N -p K=$N
for cfg in "${configs[@]}"; do
  set -- $cfg
  timed tiled examples/ir/matmul_tiled.cg 1 -p M=$N -p N=$N -p K=$N -p TS=$1 -p TK=$2 -p RM=$3 -p RN=$4
done
cat "$table" | tee -a "$log"
exit $status
