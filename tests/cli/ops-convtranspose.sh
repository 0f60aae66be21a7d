#!/usr/bin/env bash
# ops-convtranspose.sh: ConvTranspose (src/onnx/convtranspose.c;
# tests/onnx/make_convtranspose.py writes the models): import rewrites each
# node into a layout node inserting zeros (and one computing its weights
# when they are not constants) and an ordinary Conv, which the listing shows;
# each model run by `convgen infer` against the expected outputs with the
# default points, then with the kernels of a short tune with the direct
# strategy, with s2 and with dw (the depthwise case), as any Conv is tuned;
# fused.onnx exported whole and its program run; the models import
# refuses, each with its reason.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
M=tests/onnx/convtranspose

skip_without_onnx

# infer_all NET [ARGS...]: NET.onnx on its inputs against every expected
# output, each PASS.
infer_all() {
  local net=$1 f n want=0
  shift
  local args=()
  while IFS= read -r f; do args+=(--input "$f"); done < <(ls "$M/${net}"_input_*.pb | sort -V)
  while IFS= read -r f; do args+=(--expect "$f") want=$((want + 1)); done < <(ls "$M/${net}"_output_*.pb | sort -V)
  run infer "$M/$net.onnx" "${args[@]}" "$@"
  expect_rc 0 "infer $net.onnx $*"
  n=$(grep -c "PASS relative L2 error" "$T/out")
  [ "$n" -eq "$want" ] || bad "$net.onnx $*: $n of $want outputs passed"
  grep -q FAIL "$T/out" && bad "$net.onnx $*: an output failed"
}

run import --operators
expect_rc 0 "import --operators"
expect_out "rewritten at import into its weights' layout node" "ConvTranspose's row, listed with its rewrite"

run import "$M/cases.onnx"
expect_rc 0 "import cases.onnx"
expect_out "Conv               ct0                          1x3x7x8  layer n=1,c=4,h=5,w=6,k=3,kh=3,kw=3,stride=1,pad=2,bias=0" \
  "stride 1: no zeros inserted, a Conv padded by k - 1"
expect_out "from ConvTranspose (stride 1x1; its weights flipped at import)" "the Conv's line says what it came from"
expect_out "ConvTranspose      ct1:zeros                    1x4x9x11  zeros inserted, stride 2x2" "stride 2: 5x6 to 9x11"
expect_out "Conv               ct1                          1x3x10x12  layer n=1,c=4,h=9,w=11,k=3,kh=3,kw=3,stride=1,pad_top=1,pad_left=1,pad_bottom=2,pad_right=2,bias=1" \
  "pads 1 and output_padding 1: pads' 1 before, 2 after"
expect_out "layer n=1,c=4,h=9,w=11,k=6,kh=3,kw=3,stride=1,pad=2,groups=2,bias=1" "group 2"
expect_out "layer n=1,c=4,h=9,w=11,k=4,kh=3,kw=3,stride=1,pad_top=1,pad_left=1,pad_bottom=2,pad_right=2,groups=4" \
  "depthwise"
expect_out "ct7:zeros                    1x4x7x9  zeros inserted, stride 2x2, cropped 1,1,1,1" \
  "pads past the kernel's extent crop the zeros' plane"
expect_out "convolutions: 12 (12 distinct layers); nodes: 23" "twelve convolutions, eleven of them after zeros"

run import "$M/fused.onnx"
expect_rc 0 "import fused.onnx"
expect_out "bias=1,relu=1 +BatchNormalization +Relu  from ConvTranspose" "its batch norm and Relu fused into the Conv"
expect_out "convolutions: 1 (1 distinct layer); nodes: 4" "fused.onnx: one layer"

run import "$M/weights_input.onnx"
expect_rc 0 "import weights_input.onnx"
expect_out "ConvTranspose      up:weights                   6x2x3x3  W [C, K/group, kh, kw]" \
  "W a graph input: its convolution's weights computed by a node"
expect_out "its weights flipped by a node" "weights_input: the Conv's line"

# the default points (no database)
# (names.onnx: a later node's output has the name the zeros' value would take)
for net in cases fused decoder weights_input names; do infer_all "$net"; done

# the kernels of a short tune, as any convolution's: direct on every case,
# s2 on the upsamplers, dw on the depthwise one
run tune "$M/cases.onnx" --strategy direct --budget 1 --db "$T/direct.db"
expect_rc 0 "tune cases.onnx with direct"
infer_all cases --db "$T/direct.db" -v
[ "$(grep -c ' (Conv): tuned direct ' "$T/err")" -eq 12 ] || bad "cases.onnx: not every convolution ran direct's record"
for net in fused decoder; do
  run tune "$M/$net.onnx" --strategy s2 --budget 2 --db "$T/s2.db"
  expect_rc 0 "tune $net.onnx with s2"
  infer_all "$net" --db "$T/s2.db" -v
  expect_err "node up (Conv): tuned s2 " "$net.onnx: the ConvTranspose's convolution ran s2's record"
done
run tune "$M/cases.onnx" --strategy dw --budget 2 --db "$T/dw.db"
infer_all cases --db "$T/dw.db" -v
expect_err "node ct6 (Conv): tuned dw " "the depthwise ConvTranspose's convolution ran dw's record"

# exported whole: the zeros' program and the Conv's kernels, its flipped
# weights in weights.bin, run by the exported program without convgen
run export "$M/fused.onnx" --input "$M/fused_input_0.pb" -o "$T/fused"
expect_rc 0 "export fused.onnx"
if make -s -C "$T/fused" >"$T/make.log" 2>&1; then
  "$T/fused/network" >"$T/net.out" 2>&1 || bad "fused.onnx's exported program: exit $?: $(head -c 400 "$T/net.out")"
  grep -q "PASS relative L2 error 0 " "$T/net.out" || bad "fused.onnx's exported program: $(head -c 400 "$T/net.out")"
else
  bad "fused.onnx's exported program does not build: $(head -c 400 "$T/make.log")"
fi

for bad in "1d|node 1d (ConvTranspose): X has rank 3 (a 1-D ConvTranspose): convgen takes the 2-D ConvTranspose" \
  "output_shape|output_shape with auto_pad NOTSET leaves a padding of 2 along axis 2" \
  "crop|its pads (1, 0) crop away every element of X along axis 2" \
  "group|group=3 does not divide the input channels (4)" \
  "pad_limit|the convolution it becomes is not a layer convgen takes: pad_h must be between 0 and 64 (got 80)" \
  "auto_pads|pads and auto_pad SAME_UPPER are both given"; do
  usage_error "bad_${bad%%|*}.onnx" "${bad#*|}" import "$M/bad_${bad%%|*}.onnx"
done
finish
