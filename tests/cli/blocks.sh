#!/usr/bin/env bash
# blocks.sh: the building blocks of today's CNNs, each a small model written
# as torch.onnx exports it (tests/onnx/blocks, tests/onnx/make_blocks.py):
# EfficientNet's MBConv with squeeze-excite, MobileNet V3's with hard swishes,
# ShuffleNet V2's two units, ConvNeXt's block with LayerNormalization, with
# it decomposed and with the Gelu operator. Import must fuse what each block
# gives a convolution (batch norms, SiLU and hard swish gates, the SE's
# Sigmoid and HardSigmoid, Relu, the residual Add; docs/onnx.md, "Fusion at
# import") and fold torch's shape arithmetic; infer must match onnx's
# reference evaluator run in float64, with the direct kernels and with tuned
# ones (s2, s1), and in fp16.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
B=tests/onnx/blocks

skip_without_onnx

# expect_node N OP NAME WHAT DESCRIPTION: import's line of node N is OP NAME
# followed by WHAT (a shape, 'fused into node M'; an extended regular
# expression), whatever the spacing.
expect_node() {
  grep -qE "^ +$1 +$2 +$3 +$4( |\$)" "$T/out" || bad "$5: no line '$1 $2 $3 $4'"
}

# infer_ok MODEL INPUT EXPECT DESCRIPTION [ARGS...]: infer runs MODEL against the
# reference's output; the direct kernels unless ARGS name a database.
infer_ok() {
  local model=$1 input=$2 want=$3 what=$4
  shift 4
  [ $# -eq 0 ] && set -- --db "$T/none.db"
  run infer "$B/$model.onnx" --input "$B/$input" --expect "$B/$want" "$@"
  expect_rc 0 "infer $model.onnx ($what)"
  expect_out "PASS relative L2 error" "$model.onnx against onnx's reference in float64 ($what)"
}

# EfficientNet's MBConv: every convolution takes its batch norm and activation,
# the projection the squeeze-excite's Mul of a broadcast gate (scale=1).
run import "$B/mbconv.onnx"
expect_rc 0 "import mbconv.onnx"
expect_out "k=64,kh=1,kw=1,stride=1,pad=0,bias=1,act=silu +BatchNormalization +Sigmoid +Mul" \
  "the expansion's batch norm and x * Sigmoid(x): silu"
expect_out "k=64,kh=3,kw=3,stride=1,pad=1,groups=64,bias=1,act=silu +BatchNormalization +Sigmoid +Mul" \
  "the depthwise convolution's batch norm and SiLU"
expect_out "layer n=1,c=64,h=1,w=1,k=4,kh=1,kw=1,stride=1,pad=0,bias=1,act=silu +Sigmoid +Mul" \
  "the squeeze-excite's reduction and its SiLU"
expect_out "layer n=1,c=4,h=1,w=1,k=64,kh=1,kw=1,stride=1,pad=0,bias=1,act=sigmoid +Sigmoid" \
  "the squeeze-excite's expansion and its Sigmoid gate"
expect_out "k=16,kh=1,kw=1,stride=1,pad=0,bias=1,relu=0,residual=1,scale=1 +Mul (scale '/block/block.2/scale_activation/Sigmoid_output_0') +BatchNormalization +Add (residual 'x')" \
  "the projection: the excitation's Mul of its input, its batch norm and the residual Add of the block's input"
expect_node 8 GlobalAveragePool /block/block.2/avgpool/GlobalAveragePool 1x64x1x1 "the squeeze runs on its own"
expect_out "  14  Mul                /block/block.2/Mul           fused into node 15" "the excitation's Mul, fused"
expect_out "convolutions: 5 (5 distinct layers); nodes: 18" "mbconv.onnx: 5 convolutions"
infer_ok mbconv mbconv_input.pb mbconv_y.pb "direct kernels"

# MobileNet V3's: HardSwish the operator and x * HardSigmoid(x), the SE's
# ReduceMean, Relu and HardSigmoid gate; stride 2, no residual.
run import "$B/mbconv_v3.onnx"
expect_rc 0 "import mbconv_v3.onnx"
expect_out "k=48,kh=1,kw=1,stride=1,pad=0,bias=1,act=hardswish +BatchNormalization +HardSwish" \
  "HardSwish (opset 14): the layer's hardswish"
expect_out "k=48,kh=5,kw=5,stride=2,pad=2,groups=48,bias=1,act=hardswish +BatchNormalization +HardSigmoid +Mul" \
  "x * HardSigmoid(x) after a stride-2 5x5 depthwise convolution: hardswish"
expect_node 7 ReduceMean /block/block.2/ReduceMean "1x48x1x1  axes 2,3, kept" "the squeeze as a ReduceMean"
expect_out "k=16,kh=1,kw=1,stride=1,pad=0,bias=1,relu=1 +Relu" "the squeeze-excite's Relu"
expect_out "k=48,kh=1,kw=1,stride=1,pad=0,bias=1,act=hardsigmoid(0.16666667,0.5) +HardSigmoid" \
  "the squeeze-excite's HardSigmoid gate"
expect_out "  12  Mul                /block/block.2/Mul           fused into node 13" "the excitation's Mul, fused"
expect_out "k=24,kh=1,kw=1,stride=1,pad=0,bias=1,relu=0,scale=1 +Mul (scale '/block/block.2/scale_activation/HardSigmoid_output_0') +BatchNormalization" \
  "the projection, the excitation's Mul and its batch norm"
grep -q "residual" "$T/out" && bad "mbconv_v3.onnx has no residual Add, import shows one"
expect_out "convolutions: 5 (5 distinct layers); nodes: 15" "mbconv_v3.onnx: 5 convolutions"
infer_ok mbconv_v3 mbconv_v3_input.pb mbconv_v3_y.pb "direct kernels"

# ShuffleNet V2: both branches of the stride-2 unit, the Split of the
# stride-1 one (its sizes a Constant input), Concat, the channel shuffle;
# the second shuffle's shapes (Shape, Gather, Div, Unsqueeze, Concat of
# int64) folded at import with the Constants.
run import "$B/shuffle.onnx"
expect_rc 0 "import shuffle.onnx"
expect_out "k=24,kh=3,kw=3,stride=2,pad=1,groups=24,bias=1,relu=0 +BatchNormalization" \
  "the stride-2 depthwise convolutions and their batch norms"
expect_out "k=24,kh=3,kw=3,stride=1,pad=1,groups=24,bias=1,relu=0 +BatchNormalization" \
  "the stride-1 depthwise convolution and its batch norm"
expect_out "k=24,kh=1,kw=1,stride=1,pad=0,bias=1,relu=1 +BatchNormalization +Relu" "the 1x1 convolutions: BN and Relu"
expect_node 17 Split /unit2/Split:0 1x24x8x8 "the channel split's first half"
expect_node 18 Split /unit2/Split:1 1x24x8x8 "the channel split's second half"
expect_node 27 Concat /unit2/Concat 1x48x8x8 "the halves concatenated"
expect_node 28 Reshape /unit2/Reshape 1x2x24x8x8 "the shuffle's view, its shape folded from Shape and Gather"
expect_node 29 Transpose /unit2/Transpose 1x24x2x8x8 "the shuffle's transpose"
expect_node 30 Reshape /unit2/Reshape_1 1x48x8x8 "the shuffle's view back"
grep -qE '^ +[0-9]+ +(Constant|Shape|Gather|Div|Unsqueeze) ' "$T/out" && bad "shuffle.onnx: a shape node was not folded"
expect_out "convolutions: 8 (4 distinct layers); nodes: 31" "shuffle.onnx: 8 convolutions, the shape nodes folded"
infer_ok shuffle shuffle_input.pb shuffle_y.pb "direct kernels"

# ConvNeXt: one function in three forms, checked against one output.
run import "$B/layernorm_block.onnx"
expect_rc 0 "import layernorm_block.onnx"
expect_out "k=24,kh=7,kw=7,stride=1,pad=3,groups=24,bias=1,relu=0" "the 7x7 depthwise convolution"
expect_node 1 Transpose /Transpose "fused into node 2" "the transpose to channels-last, read through by the LayerNormalization"
expect_node 2 LayerNormalization /norm/LayerNormalization "1x12x12x24  axes 3 to 3, epsilon 1e-06  computing \+Transpose" \
  "LayerNormalization over the channels, channels-last, reading the NCHW value through the transpose"
expect_node 6 Erf /act/Erf "fused into node 9" "GELU as the Erf form opset 17 writes: one chain"
expect_node 9 Mul /act/Mul_1 '1x12x12x96  computing \+Add \+Div \+Erf \+Add \+Mul' \
  "the first MatMul's bias and the GELU chain computed by its last Mul (the biased value read twice)"
expect_node 13 Transpose /Transpose_1 "fused into node 14" "the transpose back to NCHW, in the residual's kernel"
expect_node 14 Add /Add '1x24x12x12  computing \+Add \+Mul \+Transpose' \
  "the second MatMul's bias, the layer scale, the transpose back and the residual: one kernel"
expect_node 3 MatMul /pwconv1/MatMul '1x12x12x96  layer n=1,c=24,h=1,w=96,k=144,kh=1,kw=1,stride=1,pad=0,bias=0,relu=0' \
  "the channel MLP's MatMul a 1x1 convolution: its 144 pixels' rows the kernels, B [24, 96] the input"
expect_node 10 MatMul /pwconv2/MatMul '1x12x12x24  layer n=1,c=96,h=1,w=24,k=144,kh=1,kw=1,stride=1,pad=0,bias=0,relu=0' \
  "the second MatMul too"
expect_out "convolutions: 3 (3 distinct layers); nodes: 15" "layernorm_block.onnx: 15 nodes"
infer_ok layernorm_block layernorm_block_input.pb layernorm_block_y.pb "LayerNormalization, Erf"

run import "$B/layernorm_decomposed.onnx"
expect_rc 0 "import layernorm_decomposed.onnx"
expect_node 2 ReduceMean /norm/ReduceMean "1x12x12x1  axes 3, kept" "the mean over the channels"
expect_node 4 Pow /norm/Pow 1x12x12x24 "the squared deviations"
expect_node 7 Sqrt /norm/Sqrt "fused into node 10" "the deviation, in the normalisation's chain"
expect_node 10 Add /norm/Add_1 '1x12x12x24  computing \+Add \+Sqrt \+Div \+Mul' \
  "(x - mean) / sqrt(var + eps) * scale + bias: one kernel"
expect_node 3 Sub /norm/Sub 1x12x12x24 "x - mean, read twice: stored"
expect_node 22 Add /Add '1x24x12x12  computing \+Add \+Transpose \+Mul' \
  "the second MatMul's bias, the transpose back and the layer scale [C,1,1] after it, in the residual's kernel"
expect_out "convolutions: 3 (3 distinct layers); nodes: 23" "layernorm_decomposed.onnx: 23 nodes"
infer_ok layernorm_decomposed layernorm_block_input.pb layernorm_block_y.pb "LayerNormalization decomposed"

run import "$B/layernorm_gelu.onnx"
expect_rc 0 "import layernorm_gelu.onnx"
expect_node 5 Gelu /act/Gelu 1x12x12x96 "the Gelu operator (opset 20)"
expect_out "convolutions: 3 (3 distinct layers); nodes: 11" "layernorm_gelu.onnx: 11 nodes"
infer_ok layernorm_gelu layernorm_block_input.pb layernorm_block_y.pb "Gelu"

# The fused SiLU, sigmoid and residual in s2's kernels, the hard swishes,
# the HardSigmoid and the Relu in s1's: each convolution tuned briefly.
run tune "$B/mbconv.onnx" --strategy s2 --budget 2 --db "$T/s2.db"
expect_rc 0 "tune mbconv.onnx with s2"
infer_ok mbconv mbconv_input.pb mbconv_y.pb "s2's kernels" --db "$T/s2.db" -v
expect_err "node /block/block.1/block.1.0/Conv (Conv): tuned s2 " "the depthwise SiLU layer ran s2's record"
expect_err "node /block/block.3/block.3.0/Conv (Conv): tuned s2 " "the residual layer ran s2's record"
[ "$(grep -c ' (Conv): tuned s2 ' "$T/err")" -eq 5 ] || bad "mbconv.onnx: not every convolution ran s2's record"
run tune "$B/mbconv_v3.onnx" --strategy s1 --budget 2 --db "$T/s1.db"
expect_rc 0 "tune mbconv_v3.onnx with s1"
infer_ok mbconv_v3 mbconv_v3_input.pb mbconv_v3_y.pb "s1's kernels" --db "$T/s1.db" -v
[ "$(grep -c ' (Conv): tuned s1 ' "$T/err")" -eq 5 ] || bad "mbconv_v3.onnx: not every convolution ran s1's record"
# Concats joined (net/plan.h): the nodes that make fire 1's and the mixed
# branches' inputs write them into the Concat's output, which then runs
# nothing; fire 2's second slice starts at 972 elements (not a multiple of
# 16) and y's input g is read twice, so those two copy. Untuned (default
# points), then tuned with s3 (multi-kernel programs, temporaries), each
# checked against onnx's float64 reference; and in fp16.
infer_ok fire fire_input.pb fire_y.pb "Concats joined" --db "$T/none.db" -v
for n in /features/features.3/Concat /mixed/Concat; do
  expect_err "node $n (Concat): joined: the nodes that make its 2 inputs wrote them into its output" "fire.onnx: $n joined"
done
[ "$(grep -c '(Concat): joined' "$T/err")" -eq 2 ] || bad "fire.onnx: a Concat joined that must copy (fire 2's, y's)"
expect_err "node /Concat (Concat): a program of the IR" "fire.onnx: y's Concat copies"
run tune "$B/fire.onnx" --strategy s3 --budget 2 --db "$T/fire.db"
expect_rc 0 "tune fire.onnx with s3"
infer_ok fire fire_input.pb fire_y.pb "s3's kernels into joined slices" --db "$T/fire.db" -v --memory fast
[ "$(grep -c ' (Conv): tuned s3 ' "$T/err")" -eq 9 ] || bad "fire.onnx: not every convolution ran s3's record"
infer_ok fire fire_input.pb fire_y.pb "fp16, joined" --db "$T/none.db" --precision fp16

# Inception's Mixed_7b: the 1x3 and 3x1 branches' Concat inside the block's,
# both joined; the head's w = Concat(u, v), y = Concat(u, v, w) copy (the
# family's root reads its other output); and in fp16
infer_ok mixed mixed_input.pb mixed_y.pb "a Concat inside a joined Concat" --db "$T/none.db" -v
for n in /Mixed_7b/Concat /Mixed_7b/Concat_1; do
  expect_err "node $n (Concat): joined:" "mixed.onnx: $n joined"
done
[ "$(grep -c '(Concat): joined' "$T/err")" -eq 2 ] || bad "mixed.onnx: a head Concat joined"
infer_ok mixed mixed_input.pb mixed_y.pb "fp16, joined" --db "$T/none.db" --precision fp16

# DenseNet's block: its four Concats one family (each layer's the first
# elements of the block's), every feature written once into the block's
# buffer; untuned, and in fp16
run import "$B/dense.onnx"
expect_rc 0 "import dense.onnx"
for k in 1 2 3; do   # a BatchNormalization after a Concat: a Mul and an Add, one kernel with its Relu
  expect_out "/features/denseblock1/denselayer$k/relu1/Relu 1x$((16 + 16 * k))x8x8  computing +Mul +Add" \
    "dense.onnx: layer $k's norm1 a scale and shift computed in its relu1's kernel"
done
expect_out "/features/transition1/relu/Relu 1x80x8x8  computing +Mul +Add" "dense.onnx: the transition's norm and relu"
grep -q "BatchNormalization /features/denseblock1/denselayer1/norm1" "$T/out" &&
  bad "dense.onnx: a batch norm after a Concat kept as itself"
expect_out "/features/denseblock1/denselayer1/norm2/BatchNormalization fused into node 7" \
  "dense.onnx: a batch norm after a convolution still folded into it"
expect_out "  31  AveragePool        /features/transition1/pool/AveragePool 1x80x4x4" \
  "dense.onnx: the transition's AveragePool runs before its 1x1 convolution"
expect_out "/features/transition1/conv/Conv 1x40x4x4  layer n=1,c=80,h=4,w=4,k=40,kh=1,kw=1," \
  "dense.onnx: the transition's 1x1 convolution on the pooled plane"
infer_ok dense dense_input.pb dense_y.pb "a family of Concats joined" --db "$T/none.db" -v
[ "$(grep -c '(Concat): joined' "$T/err")" -eq 4 ] || bad "dense.onnx: not every Concat of the block joined"
infer_ok dense dense_input.pb dense_y.pb "fp16, joined" --db "$T/none.db" --precision fp16

# Each block in fp16: its tensors half in memory, its sums in fp32, within
# the bound of its roundings (net_tolerance, docs/onnx.md "A network in fp16")
for m in mbconv mbconv_v3 shuffle layernorm_block; do
  infer_ok $m ${m}_input.pb ${m}_y.pb "fp16" --db "$T/none.db" --precision fp16
  expect_out ", fp16)" "$m.onnx in fp16 is checked as such"
done
infer_ok layernorm_decomposed layernorm_block_input.pb layernorm_block_y.pb "fp16" --db "$T/none.db" --precision fp16
finish
