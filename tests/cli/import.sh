#!/usr/bin/env bash
# import.sh: `convgen import MODEL.onnx` (src/onnx): a small model of every
# kind of block (tests/onnx/make_models.py) listed with its layers and what
# was fused into them; ONNX's own node tests of the operators convgen claims
# (Debian's libonnx-testdata) read with the shapes they declare; bad files,
# unsupported operators and unbound shapes refused with exit 2 and the reason.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
M=tests/onnx

run import --help
expect_rc 0 "import --help"
expect_out "convgen import MODEL.onnx" "import --help: the synopsis"

if ! "$CONVGEN" import "$M/tiny.onnx" >/dev/null 2>"$T/err" && grep -q "built without an ONNX reader" "$T/err"; then
  echo "import.sh: this convgen has no ONNX reader (protobuf-c missing when it was built): only that is checked" >&2
  usage_error "import without a reader" "install protobuf-c-compiler, libprotobuf-c-dev and libonnx-dev" \
    import "$M/tiny.onnx"
  run import --operators
  expect_rc 0 "import --operators without a reader"
  expect_out "Conv                convolution" "import --operators without a reader: the table"
  expect_out "this convgen has no ONNX reader" "import --operators without a reader: says so"
  finish
fi

run import "$M/tiny.onnx"
expect_rc 0 "import tiny.onnx"
expect_out "input   x: 1x3x16x16" "the graph input"
expect_out "output  y: 1x10" "the graph output"
expect_out "layer n=1,c=3,h=16,w=16,k=8,kh=3,kw=3,stride=2,pad=1,bias=1,relu=1 +BatchNormalization +Relu" \
  "conv1: batch norm folded into the bias, ReLU fused"
expect_out "layer n=1,c=8,h=8,w=8,k=8,kh=3,kw=3,stride=1,pad=1,groups=8,bias=1,act=relu6 +BatchNormalization +Clip" \
  "the depthwise layer: groups, Clip(0, 6) as relu6"
expect_out "layer n=1,c=8,h=8,w=8,k=8,kh=1,kw=1,stride=1,pad=0,bias=1,relu=1,residual=1 +Add (residual 'r1') +Relu" \
  "the pointwise layer: its bias, the residual Add of a value made before it, then the ReLU"
expect_out "fused into node 0" "the fused nodes say where they went"
expect_out "Add                residual                     fused into node 6" "the residual add, fused"
expect_out "MaxPool            pool                         1x8x4x4  window 2x2, stride 2x2" "MaxPool's shape"
expect_out "Gemm               fc                           1x10  layer n=1,c=8,h=1,w=1,k=10,kh=1,kw=1,stride=1,pad=0,bias=1,relu=0" \
  "Gemm's shape, and the 1x1 convolution it runs as"
expect_out "convolutions: 4 (4 distinct layers); nodes: 14" "the count"

# A model as the layers of tune and best: its distinct convolutions, named MODEL:NODE
run tune "$M/tiny.onnx" --budget 2 --db "$T/o.db"
expect_rc 0 "tune MODEL.onnx"
run best "$M/tiny.onnx" --db "$T/o.db"
expect_rc 0 "best MODEL.onnx"
for l in conv1 dw pw fc; do expect_out "$M/tiny.onnx:$l " "best MODEL.onnx: layer $l"; done
usage_error "tune a model with a symbolic batch" "give its shape with --shape x=" tune "$M/tiny_batch.onnx" --budget 1 --db "$T/o.db"

usage_error "a symbolic batch" "input 'x' has a dimension without a value (N): give its shape with --shape x=" \
  import "$M/tiny_batch.onnx"
run import "$M/tiny_batch.onnx" --shape x=2x3x16x16
expect_rc 0 "import --shape"
expect_out "layer n=2,c=3,h=16,w=16,k=8" "--shape binds the batch"
usage_error "--shape of no input" "--shape q=1: the graph has no input of that name" import "$M/tiny_batch.onnx" --shape q=1
usage_error "--shape malformed" "expected NAME=D1xD2x... with positive dimensions" import "$M/tiny_batch.onnx" --shape x=2x0
usage_error "--shape without =" "expected NAME=D1xD2x..." import "$M/tiny_batch.onnx" --shape x
usage_error "no model" "missing MODEL.onnx" import
usage_error "a missing file" "cannot open" import "$T/none.onnx"
usage_error "a folder" "$T: read error: Is a directory" import "$T"
printf 'not a model\n' >"$T/text.onnx"
usage_error "not ONNX" "not an ONNX model: protobuf cannot read it" import "$T/text.onnx"
usage_error "a needed input absent" "node conv (Conv): input 1, which it needs, is absent" import "$M/bad_absent.onnx"
head -c 1500 "$M/tiny.onnx" >"$T/cut.onnx"
usage_error "a truncated model" "not an ONNX model" import "$T/cut.onnx"

# --operators: the operator table, a row a line after a header
run import --operators
expect_rc 0 "import --operators"
head -n 1 "$T/out" | grep -qE '^operator +role +at run time$' || bad "import --operators: the header line"
expect_out "Conv                convolution  a convolution" "import --operators: Conv's row"
grep -qE '^Relu +elementwise +a program of the IR.*fused into a convolution.s store' "$T/out" ||
  bad "import --operators: Relu runs as a program, fused into a convolution"
grep -qE '^Reshape +view +a view' "$T/out" || bad "import --operators: Reshape is a view"
grep -qE '^Constant +constant +folded into an initializer at import' "$T/out" || bad "import --operators: Constant"
awk 'NR > 1 { print $1 }' "$T/out" >"$T/claimed"
usage_error "--operators with a model" "unexpected argument '$M/tiny.onnx' (--operators lists the table" \
  import --operators "$M/tiny.onnx"
usage_error "--operators with --shape" "--shape: --operators reads no model" import --operators --shape x=1

# ONNX's node tests whose operators are all claimed (import --operators; a
# model's operators read by scripts/onnx-ops.sh): the 2-D ones read, with the
# output shapes they declare (the reader checks them); the others refused
# with the node or input and the reason.
D=/usr/share/libonnx-testdata/data
if [ -d "$D/node" ] && { printf '%s\n' "$D"/node/*/model.onnx | bash scripts/onnx-ops.sh >"$T/ops"; }; then
  read=0 refused=0
  awk -F '\t' 'NR == FNR { claimed[$1] = 1; next }
               { n = split($2, op, " "); ok = n > 0
                 for (i = 1; i <= n; i++) if (!claimed[op[i]]) ok = 0
                 if (ok) print $1 }' "$T/claimed" "$T/ops" >"$T/models"
  printf '%s\n' "$D"/pytorch-converted/test_Conv2d*/model.onnx >>"$T/models"
  while IFS= read -r f; do
    [ -e "$f" ] || continue
    if "$CONVGEN" import "$f" >"$T/out" 2>"$T/err"; then
      read=$((read + 1))
    else
      rc=$?
      refused=$((refused + 1))
      [ "$rc" = 2 ] || bad "node test $f: exit $rc"
      grep -qE "node .* \(|input '" "$T/err" || bad "node test $f: the refusal names no node or input"
      grep -q "declared with another shape" "$T/err" && bad "node test $f: an output shape differs from the model's"
    fi
  done <"$T/models"
  echo "import.sh: $read of $((read + refused)) ONNX node tests of the claimed operators read" >&2
  [ "$read" -ge 100 ] || bad "only $read node tests read"
  usage_error "an unsupported operator" "node #0 (LRN): operator not supported (convgen takes Conv, Relu" \
    import "$D/node/test_lrn/model.onnx"
  [ "$(sed -n 's/.*operator not supported (convgen takes \(.*\))$/\1/p' "$T/err")" = "$(paste -sd '|' "$T/claimed" | sed 's/|/, /g')" ] ||
    bad "the operators an unsupported one's message names are not those import --operators lists"
  usage_error "a 3-D pool" "node #0 (MaxPool): X (NCHW) must have rank 4 (got 5: x)" \
    import "$D/node/test_maxpool_3d_default/model.onnx"
else
  echo "import.sh: no $D (libonnx-testdata), or no python3 or protoc-c to read its operators: the node tests are not read" >&2
fi
# A Constant node first: the nodes after it had their attributes read from the
# node before them (LeakyRelu's alpha 0.3 became the Conv's default, 0.01).
run import "$M/constant_first.onnx"
expect_rc 0 "import constant_first.onnx"
expect_out "act=leaky(0.3) +LeakyRelu" "a node after a Constant: its own attributes"
# Initializers in an external file (torch.onnx's dynamo exporter writes them
# so): read from the model's folder, the same network as tiny.onnx.
run import "$M/external/tiny_external.onnx"
expect_rc 0 "import a model whose initializers are external data"
expect_out "layer n=1,c=3,h=16,w=16,k=8,kh=3,kw=3,stride=2,pad=1,bias=1,relu=1 +BatchNormalization +Relu" \
  "external data: the same layers as tiny.onnx"
run infer "$M/external/tiny_external.onnx" --input "$M/block_input.pb" --expect "$M/tiny_output.pb"
expect_rc 0 "infer a model whose initializers are external data"
expect_out "PASS relative L2 error" "external data: tiny's output"
finish
