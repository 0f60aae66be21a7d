#!/usr/bin/env bash
# npy.sh: numpy's .npy files as infer's --input, --expect and -o
# (src/onnx/npy.c): tests/onnx/make_npy.py's files of tests/onnx/block.onnx's
# input and output (float32, float64 rounded, format 2.0), each run against
# the TensorProto reference; an output written as .npy (numpy's header, the
# data 64-byte aligned) read back as --expect; and the refusals, each exit 2
# naming the file and the reason: Fortran order, int64, a short file, a
# header past the end, no magic, a missing file.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
M=tests/onnx/block.onnx
N=tests/onnx/npy

skip_without_onnx

for f in block_input block_input_f8 block_input_v2; do
  run infer "$M" --input "$N/$f.npy" --expect tests/onnx/block_output.pb
  expect_rc 0 "infer with --input $f.npy"
  expect_out "output fl: 1x8  PASS" "$f.npy's input against the TensorProto reference"
done

run infer "$M" --input tests/onnx/block_input.pb --expect "$N/block_output.npy" -o "$T/y.npy"
expect_rc 0 "infer with --expect block_output.npy and -o y.npy"
expect_out "output fl: 1x8 -> $T/y.npy  PASS" "the .npy reference, and the output written as .npy"
[ "$(head -c 6 "$T/y.npy" | od -An -c | tr -d ' ')" = "223NUMPY" ] || bad "y.npy lacks numpy's magic"
head -c 128 "$T/y.npy" | grep -qa "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 8), }" ||
  bad "y.npy's header: $(head -c 128 "$T/y.npy" | tail -c 118)"
[ "$(stat -c %s "$T/y.npy")" -eq $((128 + 32)) ] || bad "y.npy is $(stat -c %s "$T/y.npy") bytes, not a 128-byte header and 8 floats"
run infer "$M" --input "$N/block_input.npy" --expect "$T/y.npy"
expect_rc 0 "infer with the written y.npy as --expect"
expect_out "PASS relative L2 error 0 against $T/y.npy" "the written .npy read back exactly"

usage_error "a Fortran-ordered array" "bad_fortran.npy: it is in Fortran order" infer "$M" --input "$N/bad_fortran.npy"
usage_error "int64 elements" "bad_int.npy: its elements are not little-endian float32, float16 or float64" \
  infer "$M" --input "$N/bad_int.npy"
usage_error "a short file" "bad_short.npy: 3068 bytes of elements, not the 3072 of its shape" \
  infer "$M" --input "$N/bad_short.npy"
usage_error "a header past the end" "bad_header.npy: its header runs past the end of the file" \
  infer "$M" --input "$N/bad_header.npy"
usage_error "no magic" "bad_magic.npy: not a tensor file: protobuf cannot read it as a TensorProto, and it is not a .npy file" \
  infer "$M" --input "$N/bad_magic.npy"
usage_error "an .npy of another shape" "the tensor's shape is not the input's: 1x8 given, 1x3x16x16 wanted" \
  infer "$M" --input "$N/block_output.npy"
finish
