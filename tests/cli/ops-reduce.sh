#!/usr/bin/env bash
# ops-reduce.sh: the reductions (src/onnx/reduce.c) through `convgen infer`:
# tests/onnx/make_reduce.py's models (tests/onnx/reduce/), every operator in its variants (axes
# as an attribute and as an initializer, keepdims 0 and 1, negative and
# non-contiguous axes, every axis, noop_with_empty_axes; GlobalMaxPool;
# LayerNormalization with and without B) against numpy's float64 outputs;
# import's listing of the axes; the refusals of bad axes, naming the node
# and the reason; and ONNX's node tests of these operators, each correct
# or refused with a reason.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
M=tests/onnx/reduce

skip_without_onnx

# infer NAME: the model with its inputs, every output against its expected one
infer_model() {
  local args=() f
  for f in $(ls "$M/$1"_input_*.pb | sort -V); do args+=(--input "$f"); done
  for f in $(ls "$M/$1"_output_*.pb | sort -V); do args+=(--expect "$f"); done
  run infer "$M/$1.onnx" "${args[@]}" -v
  expect_rc 0 "infer $1.onnx"
  grep -q FAIL "$T/out" && bad "$1.onnx: an output is wrong"
}

infer_model reduce13
for y in mean_hw max_c min_w_n prod_n_h l2_all l1_w sumsq_c_w logsum_h lse_c_h sum_c_w gmax; do
  expect_out "output $y: " "reduce13.onnx: output $y"
done
expect_out "output sum_all:  PASS" "ReduceSum of every axis, dropped: a scalar"
expect_out "output mean_hw: 2x3x1x1  PASS" "ReduceMean over [2, 3] kept (squeeze-excite)"
expect_out "output min_w_n: 1x3x4x1  PASS" "ReduceMin over [-1, 0]: negative, not contiguous"
expect_out "output prod_n_h: 3x5  PASS" "ReduceProd over [0, 2] dropped"
expect_out "output lse_c_h: 2x5  PASS" "ReduceLogSumExp over [1, 2]"
expect_out "output gmax: 2x3x1x1  PASS" "GlobalMaxPool"
expect_err "node mean_hw (ReduceMean): a program of the IR, 1 kernel" "-v: a reduction is one kernel"

infer_model reduce18
expect_out "output mean_hw: 2x3  PASS" "opset 18: ReduceMean over [2, 3] from an initializer, dropped (MNASNet)"
expect_out "output max_c: 2x1x4x5  PASS" "opset 18: a negative axis as an input"
expect_out "output l2_all:  PASS" "opset 18: no axes input, every axis"
expect_out "output copy_min: 2x3x4x5  PASS" "noop_with_empty_axes, no axes input: a copy"
expect_out "output copy_sum: 2x3x4x5  PASS" "noop_with_empty_axes, an empty axes initializer: a copy"

infer_model reduce11
expect_out "output sum_0: 4  PASS" "opset 11: ReduceSum's axes an attribute"
expect_out "output mean_all: 1x1  PASS" "opset 11: ReduceMean of every axis, kept"
expect_out "output gmax: 2x3x1  PASS" "GlobalMaxPool of a 3-D input"

infer_model layernorm
expect_out "output ln_last: 2x3x8  PASS" "LayerNormalization over the last axis, Scale and B"
expect_out "output ln_rows: 2x3x8  PASS" "LayerNormalization over axes 1 and 2, Scale broadcast, no B"

# import's listing says which axes
run import "$M/reduce13.onnx"
expect_rc 0 "import reduce13.onnx"
expect_out "axes 2,3, kept" "the listing names the reduced axes"
expect_out "axes 0,3, kept" "negative axes listed counted from 0"
expect_out "every axis, dropped" "an empty axes input: every axis"
run import "$M/reduce18.onnx"
expect_out "no axes: the input copied" "noop_with_empty_axes in the listing"
run import "$M/layernorm.onnx"
expect_out "axes 1 to 2, epsilon 0.001" "LayerNormalization's axes and epsilon"

# bad axes: refused at import, naming the node and the reason
usage_error "an axis past the rank" "node bad_reduce_axis (ReduceMean): axis 4 is outside X's rank 4" \
  import "$M/bad_reduce_axis.onnx"
usage_error "an axis twice" "node bad_reduce_twice (ReduceMax): axes names axis 1 twice (as -3)" \
  import "$M/bad_reduce_twice.onnx"
usage_error "axes as an attribute in opset 18" \
  "node bad_reduce_attr18 (ReduceMean): axes is an input from opset 18 on, not an attribute" \
  import "$M/bad_reduce_attr18.onnx"
usage_error "axes from a graph input" \
  "node bad_reduce_axes_input (ReduceSum): axes ('axes') must be an initializer of the model" \
  import "$M/bad_reduce_axes_input.onnx"
usage_error "float axes" "node bad_reduce_axes_float (ReduceSum): axes ('axes') is not an int64 tensor" \
  import "$M/bad_reduce_axes_float.onnx"
usage_error "LayerNormalization's axis past the rank" \
  "node bad_layernorm_axis (LayerNormalization): axis 3 is outside X's rank 3" import "$M/bad_layernorm_axis.onnx"
usage_error "a Scale that does not broadcast" \
  "node bad_layernorm_scale (LayerNormalization): Scale ('scale', rank 1) does not broadcast to the normalized axes' 8" \
  import "$M/bad_layernorm_scale.onnx"

# ONNX's node tests of these operators: each correct, or refused with a
# reason (ReduceSum's of opset 13 take their axes as an int64 graph input,
# ReduceLogSumExp's are float64, LayerNormalization's ask for the training
# outputs Mean and InvStdDev)
D=/usr/share/libonnx-testdata/data/node
if [ -d "$D" ]; then
  summary=""
  for t in reduce_sum reduce_mean reduce_max reduce_min reduce_prod reduce_l1 reduce_l2 reduce_sum_square \
           reduce_log_sum reduce_log_sum_exp globalmaxpool layer_normalization; do
    pass=0 refused=0
    for dir in "$D/test_$t"*; do
      [ -e "$dir/model.onnx" ] || continue
      case $dir in *_expanded) continue ;; esac
      case $t:$dir in reduce_sum:*square* | reduce_log_sum:*_exp*) continue ;; esac
      node_test_args "$dir"
      "$CONVGEN" infer "$dir/model.onnx" "${node_args[@]}" >"$T/out" 2>"$T/err"
      rc=$?
      if [ "$rc" = 0 ]; then
        pass=$((pass + 1))
      elif [ "$rc" = 2 ]; then
        refused=$((refused + 1))
        grep -qE "element type|node .* \(" "$T/err" || bad "node test $dir: refused without a reason"
      else
        bad "node test $(basename "$dir"): exit $rc: $(head -c 300 "$T/out") $(head -c 300 "$T/err")"
      fi
    done
    summary="$summary $t:$pass/$((pass + refused))"
  done
  echo "ops-reduce.sh: ONNX node tests run and correct (of those there):$summary" >&2
fi
finish
