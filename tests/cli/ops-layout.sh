#!/usr/bin/env bash
# ops-layout.sh: the layout operators and the shape arithmetic folded at
# import (src/onnx/layout.c, fold.c; tests/onnx/make_layout.py writes the
# models): each model imported, its folded nodes gone from the listing, and
# run by `convgen infer` against the output numpy computed; the refusals
# name the node and the reason.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
M=tests/onnx/layout

skip_without_onnx

for net in transpose slice slice9 pad_constant pad_reflect pad_edge pad10 squeeze squeeze11 expand view shape_arith \
  gather_const gather_strided gather_axis1 gather_axis2 concat17 split13 split18 shuffle; do
  run infer "$M/$net.onnx" --input "$M/${net}_input.pb" --expect "$M/${net}_output.pb"
  expect_rc 0 "infer $net.onnx"
  expect_out "PASS relative L2 error" "$net against numpy"
done

# Split, a node of several outputs: one node per output, each its own slice
run import "$M/shuffle.onnx"
expect_rc 0 "import shuffle.onnx"
expect_out "   0  Split              split:0                      1x4x4x4" "Split's first output, a node of its own"
expect_out "   1  Split              split:1                      1x4x4x4" "Split's second output, a node of its own"

# torch.onnx's x.view(x.size(0), -1): Shape, Gather, Unsqueeze, Concat folded
run import "$M/view.onnx"
expect_rc 0 "import view.onnx"
expect_out "   0  Reshape            Reshape_7                    2x48" "the Reshape's shape folded at import"
expect_out "nodes: 2" "only the Reshape and the Relu are kept"
for op in Shape Gather Unsqueeze Concat Constant; do
  grep -q "  $op " "$T/out" && bad "view.onnx: the $op node is listed (it is folded)"
done
run import "$M/shape_arith.onnx"
expect_rc 0 "import shape_arith.onnx"
expect_out "nodes: 4" "Slice, Mul, Div, Cast, ConstantOfShape, Range of constants folded"
for op in Shape Gather Slice Mul Div Cast ConstantOfShape Range Unsqueeze Concat; do
  grep -q "  $op " "$T/out" && bad "shape_arith.onnx: the $op node is listed (it is folded)"
done
run import "$M/gather_const.onnx"
expect_out "nodes: 2" "Gather and Unsqueeze of float constants folded"
# views and layouts kept
run import "$M/squeeze.onnx"
expect_out "   0  Squeeze            sq                           3x4" "Squeeze of the input: a view"
expect_out "   1  Unsqueeze          unsq                         3x1x4x1" "Unsqueeze: axes counted in the output's rank"
run import "$M/slice.onnx"
expect_out "   0  Slice              s                            2x3x5" "Slice: steps 2 and -2, clamped ends"

# a Gather of run-time data at indices that are not affine in their place:
# imported, refused by infer with its reason
run import "$M/bad_gather.onnx"
expect_rc 0 "import bad_gather.onnx"
usage_error "Gather at indices [2, 0, 1]" \
  "node g (Gather): its indices decrease along a dimension (a reversed gather is not taken)" \
  infer "$M/bad_gather.onnx" --input "$M/bad_gather_input.pb"
usage_error "Pad mode wrap" "node p (Pad): mode 'wrap' is not claimed (constant, edge and reflect are)" \
  import "$M/bad_pad_wrap.onnx"
finish
