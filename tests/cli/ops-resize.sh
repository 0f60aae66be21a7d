#!/usr/bin/env bash
# ops-resize.sh: Resize (src/onnx/resize.c; tests/onnx/make_resize.py writes
# the models): nearest with each rounding and coordinate mode, linear over
# one, two and three axes (torch's bilinear with and without
# align_corners, downsampling, an output of one place), opset 18's axes,
# opset 11's tf_half_pixel_for_nn, and an upsampling decoder whose sizes
# are shape arithmetic folded at import; each run by `convgen infer`
# against the expected outputs. Cubic and antialias import and are refused
# by infer with their reason; malformed nodes are refused at import.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
M=tests/onnx/resize

skip_without_onnx

for net in nearest nearest11 linear linear1 trilinear axes decoder; do
  args=()
  for f in "$M/${net}"_output_*.pb; do args+=(--expect "$f"); done
  run infer "$M/$net.onnx" --input "$M/${net}_input.pb" "${args[@]}"
  expect_rc 0 "infer $net.onnx"
  n=$(grep -c "PASS relative L2 error" "$T/out")
  [ "$n" -eq $((${#args[@]} / 2)) ] || bad "$net.onnx: $n of $((${#args[@]} / 2)) outputs passed"
  grep -q FAIL "$T/out" && bad "$net.onnx: an output failed"
done

run import "$M/decoder.onnx"
expect_rc 0 "import decoder.onnx"
expect_out "Resize             up2                          1x16x8x8  nearest, asymmetric, floor" "nearest x2, listed"
expect_out "Resize             up1                          1x8x16x16  linear, pytorch_half_pixel" \
  "bilinear to the input's plane: sizes folded from Shape, Slice and Concat"
expect_out "nodes: 10" "the shape arithmetic folded away"

run infer "$M/cubic.onnx" --input "$M/cubic_input.pb"
expect_rc 2 "cubic: refused by infer"
expect_err "node resize0 (Resize): mode 'cubic'" "cubic: the node and the reason"
run import "$M/cubic.onnx"
expect_rc 0 "cubic: imported (its shape is known)"

run import "$M/antialias.onnx"
expect_rc 0 "antialias: imported"
run import "$M/bad_both.onnx"
expect_rc 2 "scales and sizes both given"
expect_err "node both (Resize): exactly one of scales and sizes must be given" "both: the reason"
run import "$M/bad_sizes.onnx"
expect_rc 2 "sizes of 3 values for rank 4"
expect_err "sizes must hold one value per resized axis (4)" "bad_sizes: the reason"
run import "$M/bad_mode.onnx"
expect_rc 2 "mode 'bilinear'"
expect_err "mode 'bilinear' is not one of nearest, linear and cubic" "bad_mode: the reason"
finish
