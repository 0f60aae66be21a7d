#!/usr/bin/env bash
# int-inputs.sh: a graph input of integer type bound as a constant from its
# --input file at import (src/onnx/onnx.c, bind_input): tests/onnx/make_int_inputs.py's
# Reshape whose shape is an int64 (and an int32) graph input, listed before
# the float32 one, run against numpy's output; import's listing and -v's
# line; export; and the refusals, each exit 2 with a message naming the
# input and the file: no file, a file of another type, of another shape, not
# a TensorProto, missing, the files' count.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
M=tests/onnx/intinputs

skip_without_onnx

run infer "$M/reshape.onnx" --input "$M/reshape_shape.pb" --input "$M/reshape_x.pb" --expect "$M/reshape_y.pb" -v
expect_rc 0 "infer reshape.onnx with its shape bound"
expect_out "output y: 4x3x2  PASS" "the Reshape to the bound shape [4, 3, -1]"
expect_err "input 'shape' (int64 [3]) bound as a constant from $M/reshape_shape.pb: the model is specialised to it" \
  "infer -v says the input is bound"
expect_clean "infer reshape.onnx"

run infer "$M/reshape32.onnx" --input "$M/reshape32_shape.pb" --input "$M/reshape_x.pb" --expect "$M/reshape_y.pb"
expect_rc 0 "infer reshape32.onnx (an int32 shape, widened)"
expect_out "output y: 4x3x2  PASS" "the Reshape to the bound int32 shape"
[ -s "$T/err" ] && bad "infer without -v wrote on stderr: $(head -c 300 "$T/err")"

run import "$M/reshape.onnx" --input "$M/reshape_shape.pb" --input "$M/reshape_x.pb"
expect_rc 0 "import reshape.onnx --input"
expect_out "input   shape: 3 (int64), bound as a constant from $M/reshape_shape.pb" "import lists the bound input"
expect_out "output  y: 4x3x2" "import's output shape from the bound values"
grep -q "^input   x: 2x3x4$" "$T/out" || bad "import lists x as a run-time input: $(head -c 300 "$T/out")"

run export "$M/reshape.onnx" --input "$M/reshape_shape.pb" --input "$M/reshape_x.pb" -o "$T/exp"
expect_rc 0 "export reshape.onnx with its shape bound"
expect_out "1 input and the output" "the exported program's one input, x"
[ -f "$T/exp/input_0.bin" ] && [ ! -e "$T/exp/input_1.bin" ] || bad "export wrote other inputs than x's"

usage_error "an int64 input without its file" \
  "reshape.onnx: input 'shape' has element type int64 (7): convgen takes an integer input as a constant, its values given with --input FILE.pb (the graph's input 0" \
  infer "$M/reshape.onnx"
usage_error "export without --input: no random values for an int64 input" "input 'shape' has element type int64" \
  export "$M/reshape.onnx" -o "$T/exp2"
[ -e "$T/exp2" ] && bad "export of a refused model wrote $T/exp2"
usage_error "an int32 tensor for an int64 input" \
  "reshape32_shape.pb: a tensor of data type 6, for input 'shape', which is int64 (data type 7)" \
  infer "$M/reshape.onnx" --input "$M/reshape32_shape.pb" --input "$M/reshape_x.pb"
usage_error "a tensor of another shape" "reshape_shape4.pb: the tensor's shape is not input 'shape''s: 4, declared 3" \
  infer "$M/reshape.onnx" --input "$M/reshape_shape4.pb" --input "$M/reshape_x.pb"
usage_error "a float32 tensor for an int64 input" "reshape_x.pb: a tensor of data type 1, for input 'shape'" \
  infer "$M/reshape.onnx" --input "$M/reshape_x.pb" --input "$M/reshape_x.pb"
printf '\377\377\377' >"$T/garbage.pb"
usage_error "a file that is not a TensorProto" \
  "garbage.pb: not a tensor file: protobuf cannot read it as a TensorProto (the --input of input 'shape')" \
  infer "$M/reshape.onnx" --input "$T/garbage.pb" --input "$M/reshape_x.pb"
usage_error "a missing file" "--input for input 'shape': $T/none.pb" \
  infer "$M/reshape.onnx" --input "$T/none.pb" --input "$M/reshape_x.pb"
usage_error "one file for two inputs" "reshape.onnx has 2 inputs; 1 --input given" \
  infer "$M/reshape.onnx" --input "$M/reshape_shape.pb"
usage_error "the float32 input's file checked at run time, its place among the files" "input 1 ('x'): the tensor's shape is not the input's: 4x3x2 given, 2x3x4 wanted" \
  infer "$M/reshape.onnx" --input "$M/reshape_shape.pb" --input "$M/reshape_y.pb"
finish
