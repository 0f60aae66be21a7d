#!/usr/bin/env bash
# ops-elementwise.sh: the elementwise family (src/onnx/elementwise.c;
# tests/onnx/make_elementwise.py writes the models): every unary operator
# (its attributes' defaults and given values) and every binary one (each
# broadcast: [C,1,1], [W], a scalar, both inputs; Max and Min of 1 to 4
# inputs) run by `convgen infer` against float64 numpy; the attributes shown
# by import; bad attributes and shapes refused at import, a Max of more
# inputs than a program takes refused by infer, each naming the node; and
# every ONNX node test of the family: the float32 ones pass, the others are
# refused for their element type.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
M=tests/onnx/elementwise

skip_without_onnx

# each model's outputs, one a node, against numpy
for net in unary:19 binary:18; do
  name=${net%:*} n=${net#*:}
  args=()
  for ((k = 0; k < n; k++)); do args+=(--expect "$M/${name}_output_$k.pb"); done
  run infer "$M/$name.onnx" --input "$M/${name}_input_x.pb" --input "$M/${name}_input_p.pb" "${args[@]}"
  expect_rc 0 "infer $name.onnx"
  [ "$(grep -c 'PASS relative L2 error' "$T/out")" = "$n" ] || bad "$name.onnx: not every one of its $n outputs passed"
done

run import "$M/unary.onnx"
expect_rc 0 "import unary.onnx"
expect_out "HardSigmoid        hardsigmoid_0                1x3x4x5  alpha 0.2, beta 0.5" "HardSigmoid's defaults"
expect_out "HardSigmoid        hardsigmoid_1                1x3x4x5  alpha 0.3, beta 0.4" "HardSigmoid's attributes"
expect_out "Elu                elu_11                       1x3x4x5  alpha 0.7" "Elu's alpha"
expect_out "Selu               selu_13                      1x3x4x5  alpha 1.5, gamma 2" "Selu's alpha and gamma"
expect_out "Gelu               gelu_16                      1x3x4x5  approximate tanh" "Gelu's tanh approximation"

# refusals: at import the node and what is wrong with it, at infer what a program cannot take
usage_error "Gelu's approximate" "node gelu (Gelu): approximate 'fast' is not none or tanh" import "$M/bad_gelu.onnx"
usage_error "an infinite alpha" "node hardsigmoid (HardSigmoid): alpha must be finite (got inf)" \
  import "$M/bad_hardsigmoid.onnx"
usage_error "a NaN alpha" "node elu (Elu): alpha must be finite (got nan)" import "$M/bad_elu.onnx"
usage_error "a slope of the wrong shape" \
  "node prelu (PRelu): slope 3 does not broadcast to X 1x3x4x5 (numpy's rule, one way)" import "$M/bad_prelu.onnx"
usage_error "shapes that do not broadcast" "node sub (Sub): shapes do not broadcast: dimension 3 is 5 and 4" \
  import "$M/bad_sub.onnx"
run import "$M/bad_max17.onnx"
expect_rc 0 "a Max of 17 inputs imports"
usage_error "a Max of 17 inputs" "node max17 (Max): 17 inputs, more than 16" \
  infer "$M/bad_max17.onnx" --input "$M/binary_input_x.pb"

# ONNX's node tests of the family: float32 passes, another element type is refused by name
# (an int64 input is bound as a constant, then refused as one: Pow's int64 exponent)
D=/usr/share/libonnx-testdata/data/node
if [ -d "$D" ]; then
  pass=0 refused=0
  for op in sub mul div pow max min prelu hardsigmoid tanh exp log sqrt reciprocal neg abs erf elu selu softplus \
    gelu floor ceil; do
    for dir in "$D"/test_"$op" "$D"/test_"$op"_*; do
      [ -e "$dir/model.onnx" ] || continue
      node_test_args "$dir"
      "$CONVGEN" infer "$dir/model.onnx" "${node_args[@]}" >"$T/out" 2>"$T/err"
      rc=$?
      if [ "$rc" = 0 ]; then
        pass=$((pass + 1))
      elif [ "$rc" = 2 ] && grep -qE "has element type|is a constant that is not float32" "$T/err"; then
        refused=$((refused + 1))
      else
        bad "node test $(basename "$dir"): exit $rc"
      fi
    done
  done
  [ "$pass" -ge 52 ] || bad "node tests of the elementwise family: $pass passed, want 52 at least"
fi
finish
