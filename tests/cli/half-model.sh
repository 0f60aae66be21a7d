#!/usr/bin/env bash
# half-model.sh: a model in float16 (tests/onnx/make_half.py: block.onnx as
# torch's model.half() exports it): import reads its float16 initializers,
# Constants and input as float32 and says so; infer runs it as it is, in
# fp16 (its records fp16 layers'), within fp16's bound of the float64 output
# of its float16 values, and with --precision fp32 in fp32 within 1e-4, with
# the input as a float16 TensorProto or .npy, and with its initializers in
# an external file; a ConstantOfShape of a float16 value and a Cast to
# float16 of a constant fold; a float16 initializer short of its data is
# refused.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
skip_without_onnx
H=tests/onnx/half

run import "$H/block_half.onnx"
expect_rc 0 "import a float16 model"
expect_out "float16 15 tensors (initializers, constants, inputs) read as float32, exactly; run in fp16, as it is" \
  "import says what it widened, and how the model runs"
expect_out "layer n=1,c=3,h=16,w=16,k=8,kh=3,kw=3,stride=2,pad=1,bias=1,relu=1" "its layers are fp32 layers"

for m in block_half block_half_ext; do
  for in in input.pb input.npy; do
    run infer "$H/$m.onnx" --input "$H/$in" --expect "$H/output.pb" --precision fp32
    expect_rc 0 "infer $m with $in in fp32"
    grep -qE "^output fl: 1x8  PASS relative L2 error [0-9.e+-]+ against $H/output.pb \(tolerance 1e-4\)$" "$T/out" ||
      bad "infer $m with $in in fp32: PASS against the float64 output of its float16 values"
  done
done
expect_err "--precision fp32\` tunes them" "the untuned note of a float16 model run in fp32 says --precision fp32"
# as it is: in fp16, its convolutions fp16 layers, within the bound of its roundings to half
run infer "$H/block_half.onnx" --input "$H/input.npy" --expect "$H/output.pb"
expect_rc 0 "infer a float16 model"
grep -qE "^output fl: 1x8  PASS relative L2 error [0-9.e+-]+ against $H/output.pb \(tolerance 0.00547, fp16\)$" "$T/out" ||
  bad "a float16 model runs in fp16 by default, checked within fp16's bound"
expect_err "--precision fp16\` tunes them" "the untuned note tunes a float16 model's fp16 layers"
err=$(sed -n 's/.*PASS relative L2 error \([0-9.e+-]*\) .*/\1/p' "$T/out")
awk -v e="$err" 'BEGIN { exit !(e > 1e-5) }' || bad "a float16 model's run rounds to half (error $err)"
run tune "$H/block_half.onnx" --time 1 --db "$T/h.db"
expect_rc 0 "tune a float16 model"
expect_out ",precision=fp16" "tune takes a float16 model's convolutions as fp16 layers"

# the shape arithmetic of a mixed-precision export: ConstantOfShape of a
# float16 value, Cast of a constant to float16 (rounded to half)
run infer "$H/consts.onnx" --input "$H/consts_input.pb" --expect "$H/consts_output.pb" --precision fp32
expect_rc 0 "infer a float16 model's constants"
expect_out "output y: 1x4  PASS relative L2 error 0 against $H/consts_output.pb" \
  "ConstantOfShape of a float16 value and a Cast to float16 of a constant, folded"

usage_error "a float16 initializer short of its data" "initializer 'w1' does not hold the 216 float16 values of its shape" \
  import "$H/bad_short.onnx"
finish
