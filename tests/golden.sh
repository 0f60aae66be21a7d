#!/usr/bin/env bash
# golden.sh: the emitted kernels of every example, and of fixed points of the
# strategies (POINTS below), kept in tests/golden/.
#   tests/golden.sh check    compile every example (with its `# run:` sizes) and
#                            diff against tests/golden/NAME.cl; exit 1 on a difference
#   tests/golden.sh update   rewrite tests/golden/ (then review `git diff tests/golden`)
# A refactor that should not change output must leave every file byte-identical.
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-check}
cg=${CONVGEN:-$PWD/${BUILD:-build}/convgen}
mkdir -p tests/golden
# every scratch file in a folder of its own (never /dev/null: the suite runs
# as root in CI, and must not write outside what it made)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
# compare KIND NAME FILE CMD...: CMD's output (stdout and stderr) against
# FILE (written there in update mode), reported as "KIND NAME".
compare() {
  local kind=$1 name=$2 file=$3 out
  shift 3
  if ! out=$("$@" 2>&1); then
    echo "FAIL $kind $name: compile failed: $out"
    status=1
    return
  fi
  if [ "$mode" = update ]; then
    printf '%s\n' "$out" >"$file"
    echo "wrote $file"
  elif ! diff -u "$file" <(printf '%s\n' "$out") >"$tmp/diff" 2>&1; then
    echo "FAIL $kind $name"
    head -40 "$tmp/diff"
    status=1
  else
    echo "PASS $kind $name"
  fi
}
# golden NAME ARGS...: `convgen compile ARGS` against tests/golden/NAME.cl.
golden() {
  local name=$1
  shift
  compare golden "$name" "tests/golden/$name.cl" "$cg" compile "$@"
}
for f in examples/ir/*.cg; do
  # shellcheck disable=SC2046
  golden "$(basename "$f" .cg)" "$f" $(sed -n 's/^# run://p' "$f" | head -1)
done
# Strategy points: NAME LAYER ARGS... (one kernel each, derived by rules).
POINTS=(
  "s2_patch n=1,c=5,h=11,w=13,k=6,kh=3,kw=3,stride=1,pad=1 --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=3 -p LC=1 -p RW=1 -p RK=2 -p TW=13 -p TH=11 -p TK=1 -p CC=1"
  "s2_rows n=1,c=5,h=12,w=13,k=6,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1 --strategy s2 -p LK=1 -p LH=1 -p LW=1 -p LR=2 -p RH=3 -p RK=2 -p RW=1"
  "s2_prefetch n=1,c=4,h=10,w=12,k=8,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1 --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=3 -p LC=2 -p LP=2 -p RW=2 -p RK=2 -p TW=3 -p TH=5 -p TK=2 -p CC=2"
  "s2_double n=1,c=4,h=10,w=12,k=8,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1 --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=3 -p LC=2 -p LP=3 -p RW=2 -p RK=2 -p TW=3 -p TH=5 -p TK=2 -p CC=2"
  "s2_split n=1,c=8,h=6,w=8,k=8,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1 --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=3 -p LC=3 -p LP=2 -p LN=2 -p LX=2 -p RW=2 -p RK=2 -p TW=2 -p TH=3 -p TK=2 -p CC=2 -p CK=4"
  "s2_residual n=1,c=4,h=10,w=12,k=8,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1,residual=1 --strategy s2 -p LK=1 -p LH=1 -p LW=1 -p RW=2 -p RK=2"
  "s2_split_residual n=1,c=8,h=6,w=8,k=8,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1,residual=1 --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=3 -p LC=3 -p LP=2 -p LN=2 -p LX=2 -p RW=2 -p RK=2 -p TW=2 -p TH=3 -p TK=2 -p CC=2 -p CK=4"
  "s2_depthwise n=1,c=8,h=10,w=12,k=8,kh=3,kw=3,stride=1,pad=1,groups=8,bias=1,act=relu6 --strategy s2 -p LK=1 -p LH=1 -p LW=1 -p RW=4 -p RK=1"
  "dw n=1,c=8,h=10,w=12,k=8,kh=3,kw=3,stride=1,pad=1,groups=8,bias=1,act=relu6 --strategy dw -p LV=3 -p RH=2 -p RW=2"
  "s2_grouped_residual n=1,c=8,h=6,w=8,k=12,kh=3,kw=3,stride=1,pad=1,groups=4,bias=1,relu=1,residual=1 --strategy s2 -p LK=1 -p LH=1 -p LW=1 -p RW=2 -p RK=3"
  "s1_grouped n=1,c=8,h=10,w=12,k=16,kh=3,kw=3,stride=1,pad=1,groups=4,bias=1,relu=1 --strategy s1 -p SO=9 -p WPT=12 -p KPG=2"
  "s2_half n=1,c=4,h=10,w=12,k=8,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1,precision=fp16 --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=3 -p LC=2 -p LP=2 -p RW=2 -p RK=2 -p TW=3 -p TH=5 -p TK=2 -p CC=2"
  "s2_padded n=1,c=4,h=13,w=13,k=8,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1 --strategy s2 -p LK=1 -p LH=1 -p LW=1 -p LO=3 -p RW=4 -p RK=2"
  "s2_channels n=1,c=7,h=8,w=8,k=13,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1 --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=2 -p LC=2 -p LE=2 -p RW=2 -p RK=2 -p TW=2 -p TH=4 -p TK=2 -p CC=4"
  "s2_scale n=1,c=16,h=7,w=7,k=8,kh=1,kw=1,stride=1,pad=0,bias=1,act=silu,scale=1 --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=2 -p LC=1 -p LP=2 -p RW=7 -p RK=2 -p TW=1 -p TH=7 -p TK=2 -p CC=4"
  "s2_split_scale n=1,c=16,h=7,w=7,k=8,kh=1,kw=1,stride=1,pad=0,bias=1,act=silu,scale=1 --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=2 -p LC=1 -p LP=2 -p LN=2 -p LX=2 -p RW=7 -p RK=2 -p TW=1 -p TH=7 -p TK=2 -p CC=4 -p CK=8"
  "tc n=1,c=8,h=6,w=16,k=16,kh=3,kw=3,stride=1,pad=1,bias=1,act=relu6 --strategy tc -p LT=2 -p RW=16 -p RK=16 -p TH=2"
  "tc_staged n=1,c=8,h=6,w=16,k=16,kh=3,kw=3,stride=1,pad=1,bias=1,act=relu6 --strategy tc -p LT=2 -p LS=2 -p RW=16 -p RK=16 -p TH=2 -p CS=3"
  "tc_patch n=1,c=8,h=6,w=16,k=16,kh=3,kw=3,stride=1,pad=1,bias=1,act=relu6 --strategy tc -p LT=1 -p LS=3 -p LP=3 -p RW=16 -p RK=16 -p TH=2 -p CB=1"
  "tc_grid n=1,c=8,h=6,w=16,k=16,kh=3,kw=3,stride=1,pad=1,bias=1,act=relu6 --strategy tc -p LT=1 -p LS=3 -p LP=3 -p LG=2 -p RW=16 -p RK=8 -p TH=2 -p TK=2 -p CB=1"
  "tc_taps n=1,c=16,h=6,w=16,k=16,kh=3,kw=3,stride=1,pad=1,bias=1,act=relu6 --strategy tc -p LT=1 -p LS=3 -p LP=3 -p LA=2 -p RW=16 -p RK=16 -p TH=2 -p CB=1"
  "wino n=1,c=3,h=6,w=6,k=2,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1 --strategy wino -p WM=1 -p RK=2 -p RT=3"
  "wino_staged n=1,c=4,h=6,w=6,k=4,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1 --strategy wino -p WM=1 -p LS=2 -p LP=2 -p RK=2 -p RT=3 -p TK=2 -p TT=3 -p CS=2"
)
for point in "${POINTS[@]}"; do
  # shellcheck disable=SC2086
  golden $point
done
# The CUDA target (--target cuda) on programs with each thing its dialect
# prints otherwise: vectors and their components, local arrays, barriers, the
# work-item builtins, a pipelined chunk loop; against tests/golden/NAME.cu.
CUDA=(
  "vector_add_float4 examples/ir/vector_add_float4.cg $(sed -n 's/^# run://p' examples/ir/vector_add_float4.cg | head -1)"
  "vector_add_half examples/ir/vector_add_half.cg $(sed -n 's/^# run://p' examples/ir/vector_add_half.cg | head -1)"
  "vector_add_half4 examples/ir/vector_add_half4.cg $(sed -n 's/^# run://p' examples/ir/vector_add_half4.cg | head -1)"
  "matmul_tiled examples/ir/matmul_tiled.cg $(sed -n 's/^# run://p' examples/ir/matmul_tiled.cg | head -1)"
  "s2_prefetch ${POINTS[2]#s2_prefetch }"
  "row_tile_padded examples/ir/row_tile_padded.cg $(sed -n 's/^# run://p' examples/ir/row_tile_padded.cg | head -1)"
  "dw n=1,c=8,h=10,w=12,k=8,kh=3,kw=3,stride=1,pad=1,groups=8,bias=1,act=relu6 --strategy dw -p LV=3 -p RH=2 -p RW=2"
  "s2_half ${POINTS[11]#s2_half }"
  "matmul_mma examples/ir/matmul_mma.cg $(sed -n 's/^# run://p' examples/ir/matmul_mma.cg | head -1)"
  "tc n=1,c=8,h=6,w=16,k=16,kh=3,kw=3,stride=1,pad=1,bias=1,act=relu6 --strategy tc -p LT=2 -p RW=16 -p RK=16 -p TH=2"
  "tc_staged n=1,c=8,h=6,w=16,k=16,kh=3,kw=3,stride=1,pad=1,bias=1,act=relu6 --strategy tc -p LT=2 -p LS=2 -p RW=16 -p RK=16 -p TH=2 -p CS=3"
  "tc_patch n=1,c=8,h=6,w=16,k=16,kh=3,kw=3,stride=1,pad=1,bias=1,act=relu6 --strategy tc -p LT=1 -p LS=3 -p LP=3 -p RW=16 -p RK=16 -p TH=2 -p CB=1"
  "tc_grid n=1,c=8,h=6,w=16,k=16,kh=3,kw=3,stride=1,pad=1,bias=1,act=relu6 --strategy tc -p LT=1 -p LS=3 -p LP=3 -p LG=2 -p RW=16 -p RK=8 -p TH=2 -p TK=2 -p CB=1"
  "tc_taps n=1,c=16,h=6,w=16,k=16,kh=3,kw=3,stride=1,pad=1,bias=1,act=relu6 --strategy tc -p LT=1 -p LS=3 -p LP=3 -p LA=2 -p RW=16 -p RK=16 -p TH=2 -p CB=1"
  "s2_async n=1,c=4,h=10,w=12,k=8,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1 --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=3 -p LC=2 -p LP=4 -p RW=2 -p RK=2 -p TW=3 -p TH=5 -p TK=2 -p CC=2"
  "tc_async n=1,c=16,h=6,w=16,k=16,kh=3,kw=3,stride=1,pad=1,bias=1,act=relu6 --strategy tc -p LT=1 -p LS=3 -p LP=4 -p LA=2 -p RW=16 -p RK=16 -p TH=2 -p CB=1"
  "tc_half n=1,c=16,h=6,w=16,k=16,kh=3,kw=3,stride=1,pad=1,bias=1,act=relu6,precision=fp16 --strategy tc -p LT=1 -p LS=3 -p LP=3 -p LA=2 -p RW=16 -p RK=16 -p TH=2 -p CB=1"
  "wino_staged n=1,c=4,h=6,w=6,k=4,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1 --strategy wino -p WM=1 -p LS=2 -p LP=2 -p RK=2 -p RT=3 -p TK=2 -p TT=3 -p CS=2"
)
for c in "${CUDA[@]}"; do
  # shellcheck disable=SC2086
  set -- $c
  name=$1
  shift
  compare cuda "$name" "tests/golden/$name.cu" "$cg" compile "$@" --target cuda
done
# Derivations: NAME LAYER ARGS..., the rules each strategy applies for one
# fixed point (`convgen compile ... --derivation`), against tests/golden/NAME.derivation.
derivation() {
  local name=$1
  shift
  compare derivation "$name" "tests/golden/$name.derivation" "$cg" compile "$@" --derivation -o "$tmp/derivation.cl"
}
DERIVATIONS=(
  "direct n=1,c=3,h=9,w=11,k=4,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1 --strategy direct"
  "s1 n=1,c=3,h=9,w=11,k=4,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1 --strategy s1 -p SO=9 -p WPT=11 -p KPG=2"
  "s2 n=1,c=4,h=10,w=12,k=8,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1 --strategy s2 -p LK=1 -p LH=1 -p LW=1 -p RW=2 -p RK=2"
  "s2_double n=1,c=4,h=10,w=12,k=8,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1 --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=3 -p LC=2 -p LP=3 -p RW=2 -p RK=2 -p TW=3 -p TH=5 -p TK=2 -p CC=2"
  "s2_split n=1,c=8,h=6,w=8,k=8,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1 --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=3 -p LC=3 -p LP=2 -p LN=2 -p LX=2 -p RW=2 -p RK=2 -p TW=2 -p TH=3 -p TK=2 -p CC=2 -p CK=4"
  "s3 n=1,c=4,h=10,w=12,k=8,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1 --strategy s3 -p CG=2"
  "s2_residual n=1,c=4,h=10,w=12,k=8,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1,residual=1 --strategy s2 -p LK=1 -p LH=1 -p LW=1 -p RW=2 -p RK=2"
  "s1_residual n=1,c=3,h=9,w=11,k=4,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1,residual=1 --strategy s1 -p SO=9 -p WPT=11 -p KPG=2"
  "s2_depthwise n=1,c=8,h=10,w=12,k=8,kh=3,kw=3,stride=1,pad=1,groups=8,bias=1,act=relu6 --strategy s2 -p LK=1 -p LH=1 -p LW=1 -p RW=4 -p RK=1"
  "direct_grouped n=1,c=8,h=6,w=8,k=12,kh=3,kw=3,stride=1,pad=1,groups=4 --strategy direct"
  "dw n=1,c=8,h=10,w=12,k=8,kh=3,kw=3,stride=1,pad=1,groups=8,bias=1,act=relu6 --strategy dw -p LV=3 -p RH=2 -p RW=2"
  "s2_padded n=1,c=4,h=13,w=13,k=8,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1 --strategy s2 -p LK=1 -p LH=1 -p LW=1 -p LO=3 -p RW=4 -p RK=2"
  "s2_channels n=1,c=7,h=8,w=8,k=13,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1 --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=2 -p LC=2 -p LE=2 -p RW=2 -p RK=2 -p TW=2 -p TH=4 -p TK=2 -p CC=4"
  "s2_scale n=1,c=16,h=7,w=7,k=8,kh=1,kw=1,stride=1,pad=0,bias=1,act=silu,scale=1 --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=2 -p LC=1 -p LP=2 -p RW=7 -p RK=2 -p TW=1 -p TH=7 -p TK=2 -p CC=4"
  "tc n=1,c=8,h=6,w=16,k=16,kh=3,kw=3,stride=1,pad=1,bias=1,act=relu6 --strategy tc -p LT=2 -p RW=16 -p RK=16 -p TH=2"
  "tc_staged n=1,c=8,h=6,w=16,k=16,kh=3,kw=3,stride=1,pad=1,bias=1,act=relu6 --strategy tc -p LT=2 -p LS=2 -p RW=16 -p RK=16 -p TH=2 -p CS=3"
  "tc_patch n=1,c=8,h=6,w=16,k=16,kh=3,kw=3,stride=1,pad=1,bias=1,act=relu6 --strategy tc -p LT=1 -p LS=3 -p LP=3 -p RW=16 -p RK=16 -p TH=2 -p CB=1"
  "tc_grid n=1,c=8,h=6,w=16,k=16,kh=3,kw=3,stride=1,pad=1,bias=1,act=relu6 --strategy tc -p LT=1 -p LS=3 -p LP=3 -p LG=2 -p RW=16 -p RK=8 -p TH=2 -p TK=2 -p CB=1"
  "tc_taps n=1,c=16,h=6,w=16,k=16,kh=3,kw=3,stride=1,pad=1,bias=1,act=relu6 --strategy tc -p LT=1 -p LS=3 -p LP=3 -p LA=2 -p RW=16 -p RK=16 -p TH=2 -p CB=1"
  "wino n=1,c=3,h=6,w=6,k=2,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1 --strategy wino -p WM=1 -p RK=2 -p RT=3"
  "wino_staged n=1,c=4,h=6,w=6,k=4,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1 --strategy wino -p WM=1 -p LS=2 -p LP=2 -p RK=2 -p RT=3 -p TK=2 -p TT=3 -p CS=2"
)
for point in "${DERIVATIONS[@]}"; do
  # shellcheck disable=SC2086
  derivation $point
done
exit $status
