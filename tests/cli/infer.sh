#!/usr/bin/env bash
# infer.sh: `convgen infer MODEL.onnx` (src/net) runs a model on the default
# device: a small block of every kind (tests/onnx/block.onnx: convolution,
# batch norm and ReLU; depthwise with Clip(0, 6); pointwise with the residual
# Add and the ReLU after it fused in (residual=1); GlobalAveragePool, Flatten) against the output onnx's reference
# evaluator gave (tests/onnx/make_models.py), with the default points of
# untuned layers and with tuned ones; tiny.onnx (MaxPool, Gemm, Softmax) and an opset 11 Softmax;
# a ResNet-18, a MobileNet V2 and a MobileNet V3 of reduced width; every ONNX node test of
# the operators infer runs against its expected output; bad models and
# inputs refused with the node and the reason.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
M=tests/onnx

skip_without_onnx

run infer "$M/block.onnx" --input "$M/block_input.pb" --expect "$M/block_output.pb" -o "$T/y.pb" -v
expect_rc 0 "infer block.onnx"
expect_out "output fl: 1x8 -> $T/y.pb  PASS relative L2 error" "the block against onnx's reference"
expect_out "device memory: activations " "infer reports the planned device memory"
# without a database, each convolution its default point (src/tune/default_point.c): s2,
# dw for the depthwise one, split-K for the one the residual add is fused into
expect_err "node conv1 (Conv): not tuned: s2 LK=2 LH=2 LW=2 LS=3 " "-v says the kernel of each convolution"
expect_err "the default point (no tuning database)" "-v: an untuned layer runs its default point"
expect_err "node dw (Conv): not tuned: dw LV=1 " "-v: the depthwise layer's default point is dw's"
expect_err "node pw (Conv): not tuned: s2 LK=2 LH=2 LW=2 LS=2 LC=1 LP=2 LN=2 LX=2 " \
  "-v: the residual add fused into the pointwise convolution (split-K)"
grep -qF "direct (not tuned)" "$T/err" && bad "an untuned layer ran the direct kernel"
grep -qF "node residual (Add)" "$T/err" && bad "the fused residual add ran as a program of its own"
expect_err "programs built by the device on " "-v says how the builds went (on the build threads)"
# A point chosen before it was built (a default point, a record of another
# device or layer) whose kernels turn out not to launch here
# (CONVGEN_FAULT=nolaunch:NODE fails its first): the layer chooses again,
# its steps run the next choice, and an export writes no source of the first.
CONVGEN_FAULT=nolaunch:conv1 run infer "$M/block.onnx" --input "$M/block_input.pb" --expect "$M/block_output.pb" -v
expect_rc 0 "infer, a first choice that does not launch"
expect_out "PASS relative L2 error" "the second choice is correct"
expect_err "infer: node conv1 (Conv): its kernels do not launch on this device; direct (not tuned)" \
  "-v says that conv1 chose again (no default point left: direct)"
expect_err "(1 layer chose again: its first choice did not launch here)" "the summary counts it"
expect_err "its 3 convolutions ran untuned: 2 its default point, 1 the direct kernel" "the note counts the second choice"
CONVGEN_FAULT=nolaunch:conv1 run export "$M/block.onnx" -o "$T/relaunch"
expect_rc 0 "export, a first choice that does not launch"
expect_out "4 nodes run 5 kernels (4 sources, " "the export writes the sources that ran, not the one rejected"
grep -q "^// conv1: " "$T"/relaunch/conv1_*.cl && bad "the export's conv1 is its rejected default point"
# the whole network timed, after the checked run
run infer "$M/block.onnx" --input "$M/block_input.pb" --expect "$M/block_output.pb" --runs 10 -v
expect_rc 0 "infer --runs"
expect_out "time: " "--runs times the whole network"
expect_out "median of 10 batches" "--runs 10: ten batches"
expect_out "where the time goes, node by node (in order):" "-v with --runs: the table of nodes"
grep -qE '^  conv1 +Conv +1 +[0-9.]+ +[0-9.]+%  (tuned|not tuned): s2 ' "$T/out" ||
  bad "-v with --runs: conv1's row, its kernels, time, share and kernel"
grep -qE '^  gap +GlobalAveragePool +1 +[0-9.]+ +[0-9.]+%  a program of the IR' "$T/out" || bad "-v with --runs: the pooling's row"
expect_out "where the time goes, by operator (the nodes' own times):" "--runs: the time by operator"
grep -qE '^  Conv +3 +[0-9.]+ +[0-9.]+%$' "$T/out" || bad "--runs: the breakdown's row of the 3 convolutions"
grep -qE '^  GlobalAveragePool +1 +[0-9.]+ +[0-9.]+%$' "$T/out" || bad "--runs: the breakdown's row of the pooling"
expect_out "PASS relative L2 error" "timed, and still correct"
[ "$(grep -n -m1 '^output ' "$T/out" | cut -d: -f1)" -lt "$(grep -n '^time: ' "$T/out" | cut -d: -f1)" ] ||
  bad "--runs: the outputs' checks come before the time"
usage_error "too few batches" "the protocol times 10 to 1000000 runs" \
  infer "$M/block.onnx" --input "$M/block_input.pb" --runs 5
run infer "$M/block.onnx" --input "$M/block_input.pb" --expect "$T/y.pb"
expect_rc 0 "the written output reads back"
expect_out "PASS relative L2 error 0 against" "the written output is the output"
run infer "$M/tiny.onnx" --input "$M/block_input.pb" --expect "$M/tiny_output.pb" -v
expect_rc 0 "infer tiny.onnx"
expect_out "output y: 1x10  PASS relative L2 error" "tiny (MaxPool, Gemm, Softmax) against onnx's reference"
expect_err "node softmax (Softmax): a program of the IR, 1 kernel" "-v: the softmax, a program of the IR"
# Gemms with an initializer B as 1x1 convolutions (B [K, N] transposed for
# its kernels), with the activation after them; Constant nodes as initializers
run import "$M/classifier.onnx"
expect_rc 0 "import classifier.onnx"
expect_out "fc1                          2x7  layer n=2,c=12,h=1,w=1,k=7,kh=1,kw=1,stride=1,pad=0,bias=1,relu=1 +Relu" \
  "a Gemm of B [K, N] as a 1x1 convolution of 2 images, the Relu fused"
expect_out "act=clip(-0.5,0.75) +Clip" "a Clip whose bounds Constant nodes give, fused"
run infer "$M/classifier.onnx" --input "$M/classifier_input.pb" --expect "$M/classifier_output.pb" -v
expect_rc 0 "infer classifier.onnx"
expect_out "output y: 10  PASS relative L2 error" "the Gemms as convolutions against onnx's reference"
expect_err "node fc1 (Gemm): not tuned: s1 " "-v: a Gemm runs a convolution's kernel (s1's, one pixel)"
run infer "$M/softmax11.onnx" --input "$M/softmax11_input.pb" --expect "$M/softmax11_output.pb"
expect_rc 0 "infer softmax11.onnx"
expect_out "PASS" "an opset 11 Softmax: the input seen as 2-D"
# whole networks of reduced width (make_models.py, make_mobilenet_v3.py): every kind of node, the outputs
# against onnx's reference evaluator run in float64; with no database (a fresh
# user's), every convolution runs its default point, none the direct kernel
for net in resnet18 mobilenet_v2 mobilenet_v3; do
  run infer "$M/$net.onnx" --input "$M/${net}_input.pb" --expect "$M/${net}_output.pb" --db "$T/fresh.db" -v
  expect_rc 0 "infer $net.onnx"
  expect_out "PASS relative L2 error" "$net.onnx against onnx's reference"
  convs=$(grep -cE 'node .* \((Conv|Gemm)\): ' "$T/err")
  defaults=$(grep -c ', the default point (no tuning database)$' "$T/err")
  [ "$convs" -gt 20 ] && [ "$defaults" = "$convs" ] ||
    bad "$net.onnx: $defaults of $convs convolutions ran their default point"
  expect_err "its $convs convolutions ran untuned: $convs its default point, 0 the direct kernel" \
    "$net.onnx: the note counts the default points"
  echo "infer.sh: $net.onnx: $(grep -o 'relative L2 error [^ ]*' "$T/out"), $defaults default points" >&2
done
# bench MODEL.onnx: the layers, then the network whole
run bench "$M/block.onnx" --budget 2 --runs 10 --db "$T/b.db"
expect_rc 0 "bench block.onnx"
expect_out "network $M/block.onnx on " "bench runs the model whole after its layers"
expect_out "the 1 operator's program checked against the float64 interpreter" \
  "each operator's program checked (GlobalAveragePool; the Add and ReLU are fused)"
expect_out "  time    " "the whole network timed"
expect_out "  memory  activations " "and its device memory"
expect_out "  where the time goes, by operator (the nodes' own times):" "and where its time goes"
# the layers tuned: infer takes their best records
run tune "$M/block.onnx" --budget 3 --db "$T/t.db"
expect_rc 0 "tune block.onnx"
run infer "$M/block.onnx" --input "$M/block_input.pb" --expect "$M/block_output.pb" --db "$T/t.db" -v
expect_rc 0 "infer with tuned kernels"
expect_err "node conv1 (Conv): tuned " "-v says the tuned record taken"
expect_out "PASS" "tuned kernels against onnx's reference"
# s3's partial sums: a temporary for each s3 layer, one buffer for all (the
# nodes run one after another), grown to the largest; as the exported
# program shares them
run tune "$M/block.onnx" --strategy s3 --budget 2 --db "$T/s3.db"   # (dw, depthwise, has none: exit 1)
run infer "$M/block.onnx" --input "$M/block_input.pb" --expect "$M/block_output.pb" --db "$T/s3.db" -v
expect_rc 0 "infer with s3's kernels"
expect_err "node conv1 (Conv): tuned s3 " "-v: conv1's s3 record"
expect_err "node pw (Conv): tuned s3 " "-v: pw's s3 record"
expect_out "PASS" "s3's kernels in a shared temporary against onnx's reference"
shared=$(sed -n "s/.*the nodes' temporaries \([0-9.]*\) MB.*/\1/p" "$T/out")
run export "$M/block.onnx" --input "$M/block_input.pb" -o "$T/s3x" --db "$T/s3.db"
largest=$(sed -n 's/.*temporaries \([0-9]*\) bytes.*/\1/p' "$T/out")
[ -n "$shared" ] && [ "${largest:-0}" -gt 0 ] && [ "$shared" = "$(awk -v b="$largest" 'BEGIN { printf "%.3f", b / 1e6 }')" ] ||
  bad "infer's temporaries ($shared MB) are not the exported program's ($largest bytes)"

# --memory: of a tuned layer's 8 fastest records the fastest whose temporaries find activation buffers free
# while it runs (lean, the default) unless it takes more than twice the fastest's time, or its fastest
# (fast). Every s3 record of ResNet-18 is made the fastest (its time set to 0.9 us in the database, every
# other record's to 1.0 us: a test of the choice, not a measurement); where its partial sums find no free
# buffer, lean runs the layer's s2 record, and its run needs fewer temporaries than fast's
run tune "$M/resnet18.onnx" --strategy s3 --budget 1 --db "$T/mem.db"
run tune "$M/resnet18.onnx" --strategy s2 --budget 1 --db "$T/mem.db"
sqlite3 "$T/mem.db" "update measurements set median_us = case when candidate_id in
  (select id from candidates where strategy = 's3') then 0.9 else 1.0 end where status = 'ok'" ||
  bad "sqlite3 on the tuned database"
run infer "$M/resnet18.onnx" --input "$M/resnet18_input.pb" --expect "$M/resnet18_output.pb" --db "$T/mem.db" -v
expect_out "PASS" "--memory lean (the default)"
expect_err "needs temporaries beyond the free activation buffers: --memory fast takes it" "-v: lean passes over s3"
lean=$(sed -n "s/.*the nodes' temporaries \([0-9.]*\) MB.*/\1/p" "$T/out")
run infer "$M/resnet18.onnx" --input "$M/resnet18_input.pb" --expect "$M/resnet18_output.pb" --db "$T/mem.db" -v \
  --memory fast
expect_out "PASS" "--memory fast"
[ "$(grep -c '): tuned s3 CG=[0-9]* (0.9 us)$' "$T/err")" = "$(grep -c '): tuned ' "$T/err")" ] ||
  bad "--memory fast: every tuned layer runs its fastest record, s3's"
fast=$(sed -n "s/.*the nodes' temporaries \([0-9.]*\) MB.*/\1/p" "$T/out")
awk -v l="${lean:-x}" -v f="${fast:-x}" 'BEGIN { exit !(l + 0 < f + 0) }' ||
  bad "--memory lean's temporaries ($lean MB) are not fewer than fast's ($fast MB)"
# at each node, not only at a layer's first (ResNet-18's blocks share layers): every node lean runs on s3 as
# the fastest record that fits has its partial sums in activation buffers in the export (CGN_B, no CGN_T)
run export "$M/resnet18.onnx" --input "$M/resnet18_input.pb" -o "$T/memx" --db "$T/mem.db" -v
expect_rc 0 "export with --memory lean"
fitted=$(sed -n 's/^infer: node \([^ ]*\) (Conv): tuned s3 CG=[0-9]* (0.9 us)$/\1/p' "$T/err")
[ -n "$fitted" ] || bad "--memory lean: no node runs s3 where its partial sums fit"
for node in $fitted; do
  ! grep "^    {\"$node (Conv)\"" "$T/memx/convgen_net.c" | grep -q "CGN_T(" ||
    bad "--memory lean: node $node runs s3 as fitting, but its partial sums take a shared slot"
done
# past twice the time: s3's records made 2.5 times as fast as the others, lean runs s3 on every tuned layer,
# and -v says why where its partial sums do not fit
sqlite3 "$T/mem.db" "update measurements set median_us = 0.4 where status = 'ok' and candidate_id in
  (select id from candidates where strategy = 's3')" || bad "sqlite3 on the tuned database"
run infer "$M/resnet18.onnx" --input "$M/resnet18_input.pb" --expect "$M/resnet18_output.pb" --db "$T/mem.db" -v
expect_out "PASS" "--memory lean, records that fit more than twice as slow"
[ "$(grep -c '): tuned s3 CG=[0-9]* (0.4 us' "$T/err")" = "$(grep -c '): tuned ' "$T/err")" ] ||
  bad "--memory lean: a record that fits taken though it takes more than twice the fastest's time"
expect_err "its records whose temporaries fit take more than 2 times as long)" "-v: why lean took the fastest"
usage_error "--memory of another value" "--memory small: must be 'lean' or 'fast'" \
  infer "$M/resnet18.onnx" --input "$M/resnet18_input.pb" --memory small

usage_error "an output infer does not make" "node pool (MaxPool): its second output, Indices" \
  infer "$M/bad_pool_indices.onnx" --input "$M/block_input.pb"
usage_error "a pooling window of size 0" "node pool (MaxPool): kernel_shape, strides and dilations must be 1 to" \
  infer "$M/bad_pool.onnx" --input "$M/block_input.pb"
usage_error "a pooling window of padding alone" "node pool (AveragePool): window 0 along the height holds only padding" \
  infer "$M/bad_pool_pads.onnx" --input "$M/block_input.pb"
usage_error "a Gemm's C of another shape" "node fc (Gemm): C (c, rank 2) does not broadcast to the output's 3x5" \
  infer "$M/bad_gemm.onnx" --input "$M/block_input.pb" --input "$M/block_input.pb" --input "$M/block_input.pb"
usage_error "a Gemm's alpha of inf" "node fc (Gemm): alpha and beta must be finite" \
  infer "$M/bad_gemm_alpha.onnx" --input "$M/block_input.pb" --input "$M/block_input.pb"
usage_error "a Softmax's axis past the rank" "node softmax (Softmax): axis 2 is outside rank 2" \
  infer "$M/bad_softmax.onnx" --input "$M/block_input.pb"
# (a Concat of 17 inputs runs: tests/cli/ops-layout.sh, concat17.onnx)
usage_error "too few inputs" "has 1 input; 0 --input given" infer "$M/block.onnx"
usage_error "an -o per output" "has 1 output; give -o once for each" \
  infer "$M/block.onnx" --input "$M/block_input.pb" -o "$T/a.pb" -o "$T/b.pb"
usage_error "an input of another shape" "the tensor's shape is not the input's: 1x8 given, 1x3x16x16 wanted" \
  infer "$M/block.onnx" --input "$M/block_output.pb"
usage_error "not a tensor" "not a tensor file" infer "$M/block.onnx" --input "$M/block.onnx"
run infer "$M/block.onnx" --input "$M/block_input.pb" --expect "$M/block_input.pb"
expect_rc 1 "an --expect of another size"
expect_out "FAIL: $M/block_input.pb holds 768 values, the output 8" "an --expect of another size: why"

# ONNX's node tests of the operators infer runs, against their outputs
OPS="Conv Relu Clip LeakyRelu Sigmoid HardSwish Add BatchNormalization MaxPool AveragePool GlobalAveragePool Gemm
     MatMul Concat Softmax Identity Dropout Flatten Reshape"
D=/usr/share/libonnx-testdata/data
if [ -d "$D/node" ]; then
  pass=0 refused=0 dirs=()
  for op in $OPS; do   # each operator's tests: test_maxpool_2d_pads, test_batchnorm_example, ...
    p=${op,,}
    dirs+=("$D/node/test_${p/batchnormalization/batchnorm}"*)
  done
  for dir in "${dirs[@]}" "$D"/pytorch-converted/test_{Conv2d,MaxPool2d,AvgPool2d,BatchNorm,Linear,Softmax,softmax}* \
             "$D"/pytorch-operator/test_operator_{mm,addmm,concat2}; do
    [ -e "$dir/model.onnx" ] || continue
    node_test_args "$dir"
    "$CONVGEN" infer "$dir/model.onnx" "${node_args[@]}" >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" = 0 ]; then
      pass=$((pass + 1))
    elif [ "$rc" = 2 ]; then
      refused=$((refused + 1))   # an operator, type or shape infer does not take: said by name
      grep -qE "node .* \(|input '|tensor|not supported" "$T/err" || bad "node test $dir: refused without a reason"
    else
      bad "node test $(basename "$dir"): exit $rc: $(head -c 300 "$T/out") $(head -c 300 "$T/err")"
    fi
  done
  echo "infer.sh: the operators infer runs:" $OPS >&2
  echo "infer.sh: $pass ONNX node tests run and correct, $refused refused" >&2
  [ "$pass" -ge 119 ] || bad "only $pass node tests run correct"
fi
# A convolution without a record runs the best point of the most alike tuned
# layer that is a point of its space (not the direct kernel): here conv1's
# shape without its bias and ReLU, tuned briefly (issue 30, item 4).
run tune n=1,c=3,h=16,w=16,k=8,kh=3,kw=3,stride=2,pad=1 --strategy s2 --budget 2 --db "$T/near.db"
expect_rc 0 "tune a layer like block's conv1"
run infer "$M/block.onnx" --input "$M/block_input.pb" --expect "$M/block_output.pb" --db "$T/near.db" -v \
  --untuned nearest
expect_rc 0 "infer with a similar layer tuned"
expect_out "PASS relative L2 error" "infer from a similar layer's point: correct"
expect_err "node conv1 (Conv): not tuned: s2 " "an untuned layer runs a similar tuned layer's point"
expect_err "the best point of the tuned layer n=1,c=3,h=16,w=16,k=8,kh=3,kw=3,stride=2,pad=1" \
  "-v names the tuned layer whose point it runs"
expect_err "convgen: note: $M/block.onnx: 3 of 3 convolutions have no record on" "infer says how many are untuned"
# the others ran the tuned layer's point where it is one of theirs (which of
# the two candidates was faster decides), else their default point
grep -qE "[123] ran a record of this device under the other target or the best point of a similar tuned \
layer, [012] its default point, 0 the direct kernel" "$T/err" ||
  bad "the note does not say what the untuned layers ran instead"
expect_err "\`convgen tune $M/block.onnx --db $T/near.db\` tunes them" "and the command that tunes them"
# without --untuned nearest (as --untuned default): the same database, each
# untuned layer its default point
run infer "$M/block.onnx" --input "$M/block_input.pb" --expect "$M/block_output.pb" --db "$T/near.db" -v
expect_rc 0 "infer, untuned layers on their default points"
expect_out "PASS relative L2 error" "infer, default points: correct"
expect_err "node conv1 (Conv): not tuned: s2 " "default points: conv1 untuned"
grep -q "the best point of the tuned layer" "$T/err" && bad "without --untuned nearest: a similar layer's point was run"
expect_err "0 ran a record of this device under the other target or the best point of a similar tuned layer, 3 its \
default point" "default points: the note counts 3"
usage_error "infer --untuned foo" "--untuned foo: must be 'default' or 'nearest'" infer "$M/block.onnx" --untuned foo
run infer "$M/block.onnx" --input "$M/block_input.pb" --db "$T/none.db"
expect_rc 0 "infer without a database"
expect_err "no tuning database at $T/none.db: its 3 convolutions ran untuned: 3 its default point, 0 the direct kernel" \
  "infer without a database says so"
# an output written nowhere: its first values, and a row of scores' top-5
# (block.onnx's fl, 1 x 8: on this input, 1.75 at index 1 the largest)
expect_out "  values: " "infer without -o prints the output's first values"
expect_out "  top-5 (index: value): 1: 1.75" "infer without -o prints a row's top-5, the largest first"
run infer "$M/block.onnx" --input "$M/block_input.pb" --db "$T/none.db" -o "$T/fl.npy"
grep -q "values:\|top-5" "$T/out" && bad "an output written to a file is not printed"
finish
