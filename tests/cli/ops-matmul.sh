#!/usr/bin/env bash
# ops-matmul.sh: a MatMul whose B is an initializer runs as a 1x1
# convolution (src/onnx/shapes.c, matmul_as_conv; tests/onnx/make_matmul.py
# writes the models): with 32 rows or more, A's rows are the kernels (the
# weights, a value) and B the input; with fewer, each row an image of one
# pixel and B's columns the kernels; a B with a batch is the program. Each
# listed by import, run by `convgen infer` against numpy's float64 output,
# untuned and after a short tune, and the rows form exported and run by the
# exported program.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
M=tests/onnx/matmul

skip_without_onnx

run import "$M/rows.onnx"
expect_rc 0 "import rows.onnx"
expect_out "MatMul             mm                           1x6x6x20  layer n=1,c=16,h=1,w=20,k=36,kh=1,kw=1,stride=1,pad=0,bias=0,relu=0" \
  "36 rows: B's 20 columns the pixels, A's rows the kernels"
expect_out "Relu               relu                         1x6x6x20  computing +Add" "the bias and the Relu: one chain after it"
run import "$M/batch1.onnx"
expect_out "MatMul             mm                           2x4x12  layer n=8,c=8,h=1,w=1,k=12,kh=1,kw=1,stride=1,pad=0,bias=0,relu=1 +Relu" \
  "8 rows: 8 images of one pixel, B's batch of 1 broadcast, the Relu fused"
run import "$M/program.onnx"
expect_out "convolutions: 0 (0 distinct layers); nodes: 1" "B with a batch of 2: the program"

for net in rows batch1 program; do
  run infer "$M/$net.onnx" --input "$M/${net}_input.pb" --expect "$M/${net}_output.pb"
  expect_rc 0 "infer $net.onnx"
  expect_out "PASS relative L2 error" "$net.onnx: its output"
done

db="$T/mm.db"
for net in rows batch1; do
  run tune "$M/$net.onnx" --budget 3 --db "$db"
  expect_rc 0 "tune $net.onnx"
  run infer "$M/$net.onnx" --input "$M/${net}_input.pb" --expect "$M/${net}_output.pb" --db "$db" -v
  expect_rc 0 "infer $net.onnx tuned"
  expect_out "PASS relative L2 error" "$net.onnx tuned: its output"
  expect_err "infer: node mm (MatMul): tuned " "$net.onnx: the MatMul ran its tuned kernel"
done

run export "$M/rows.onnx" --input "$M/rows_input.pb" --db "$db" -o "$T/rows"
expect_rc 0 "export rows.onnx"
if make -C "$T/rows" >"$T/make.log" 2>&1; then
  (cd "$T/rows" && ./network) >"$T/out" 2>"$T/err"
  rc=$?
  expect_rc 0 "the exported rows network"
  expect_out "PASS" "the exported rows network checks its output"
else
  bad "export rows.onnx: make failed: $(tail -n 3 "$T/make.log")"
fi
finish
