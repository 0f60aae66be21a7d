#!/usr/bin/env bash
# fusion.sh: the elementwise tails import fuses into a convolution's store
# (src/onnx/onnx.c, fuse; docs/onnx.md, "Fusion at import"), on the models of
# tests/onnx/fusion (tests/onnx/make_fusion.py): x * Sigmoid(x) as the
# layer's silu, x * HardSigmoid(x) with alpha 1/6 and beta 1/2 as its
# hardswish, a HardSigmoid alone as its hardsigmoid; a gate that feeds
# another node too is not fused; chains of elementwise operators between
# other operators computed by their last node's kernel. Each model then run
# by infer against onnx's reference evaluator.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
F=tests/onnx/fusion

skip_without_onnx

run import "$F/silu.onnx"
expect_rc 0 "import silu.onnx"
expect_out "bias=1,act=silu +BatchNormalization +Sigmoid +Mul" "x * Sigmoid(x) after a batch norm: the layer's silu"
expect_out "bias=0,act=silu +Sigmoid +Mul" "Sigmoid(x) * x, the gate first: fused too"
expect_out "layer n=1,c=6,h=10,w=12,k=5,kh=3,kw=3,stride=1,pad=0,bias=0,relu=0" \
  "a gate that another node reads too is not fused"
grep -q "sig3 .*fused into node 7" "$T/out" && bad "sig3, read by two nodes, was fused into the convolution"
expect_out "  10  Add                notgate                      1x5x8x10  computing +Sigmoid +Mul" \
  "the gate read twice and its Mul: in the Add's chain, after the convolution"
run infer "$F/silu.onnx" --input "$F/silu_input.pb" --expect "$F/silu_z.pb"
expect_rc 0 "infer silu.onnx"
expect_out "PASS relative L2 error" "the fused SiLU against onnx's reference"

run import "$F/hardswish.onnx"
expect_rc 0 "import hardswish.onnx"
expect_out "act=hardswish +HardSigmoid +Mul" "x * HardSigmoid(x) (alpha 1/6, beta 1/2): the layer's hardswish"
expect_out "bias=1,act=hardsigmoid(0.2,0.4) +HardSigmoid" "a HardSigmoid alone: the layer's hardsigmoid"
run infer "$F/hardswish.onnx" --input "$F/hardswish_input.pb" --expect "$F/hardswish_y.pb"
expect_rc 0 "infer hardswish.onnx"
expect_out "PASS relative L2 error" "the fused hard swish and hard sigmoid against onnx's reference"
# elementwise chains between other operators (fuse_chains): each computed
# by its last node's kernel; a value read twice or a graph output is stored
run import "$F/chain.onnx"
expect_rc 0 "import chain.onnx"
expect_out "  11  Neg                neg                          2x4x5x6  computing +Div +Erf +Add +Mul +Mul +Mul +Relu +Add +Sigmoid +Max +HardSigmoid" \
  "GELU, Relu, a broadcast shift, Sigmoid, Max of three, HardSigmoid: one kernel"
expect_out "  14  Sub                sub                          2x4x5x6  computing +Tanh +Abs" \
  "Tanh read by two nodes of one chain and the Abs of it: in Sub's kernel"
expect_out "  15  Exp                exp                          2x4x5x6" "Exp, a graph output: stored"
expect_out "  18  Add                add_c1                       2x4x5x6  computing +Add" \
  "a chain that would read 17 values: split"
expect_out "  33  Add                add_c16                      2x4x5x6  computing +Add +Add +Add +Add +Add +Add +Add +Add +Add +Add +Add +Add +Add +Add" \
  "the chain's last 15 Adds, 16 values read"
args=()
for o in y z ex w long; do args+=(--expect "$F/chain_$o.pb"); done
run infer "$F/chain.onnx" --input "$F/chain_input.pb" "${args[@]}"
expect_rc 0 "infer chain.onnx"
[ "$(grep -c "PASS relative L2 error" "$T/out")" -eq 5 ] || bad "chain.onnx: not every output of 5 passed"
# chains that read a value twice, and Transposes inside them
run import "$F/chain_dag.onnx"
expect_rc 0 "import chain_dag.onnx"
expect_out "   0  Sigmoid            sig                          2x4x5x6" \
  "a value a Transpose outside the chain reads too: stored"
expect_out "   5  Mul                scale_t                      2x6x4x5  computing +Add +Transpose" \
  "a broadcast Add, a Transpose and a scale: one kernel reading x and p through the transpose"
expect_out "   6  Transpose          t1                           2x5x6x4" "a Transpose below another: stored"
expect_out "   9  Neg                neg_t                        2x4x5x6  computing +Relu +Transpose" \
  "the upper Transpose and the Relu in Neg's kernel"
expect_out "  10  Transpose          t3                           2x6x4x5" \
  "a Transpose whose output a broadcast makes longer: stored"
expect_out "  13  Add                dbl1                         2x4x5x6  computing +Relu" \
  "a doubling stopped where its expression would read 128 times"
expect_out "  19  Add                dbl7                         2x4x5x6  computing +Add +Add +Add +Add +Add" \
  "six doublings, 64 reads of dbl1: one kernel"
args=()
for o in sm st tm tt tb dbl; do args+=(--expect "$F/chain_dag_$o.pb"); done
run infer "$F/chain_dag.onnx" --input "$F/chain_dag_input.pb" "${args[@]}"
expect_rc 0 "infer chain_dag.onnx"
[ "$(grep -c "PASS relative L2 error" "$T/out")" -eq 6 ] || bad "chain_dag.onnx: not every output of 6 passed"
finish
