#!/usr/bin/env bash
# layer.sh: convolution layers on the command line: --strategy derives the
# program from the layer's high-level convolution; run checks it against the
# plain float64 convolution; gen writes the kernels and the manifest; bad
# layers and strategies are usage errors that say what is wrong.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"

small='n=2,c=5,h=13,w=17,k=7,kh=3,kw=5,stride=2,pad=1,bias=1,relu=1'
run run "$small" --strategy direct --runs 10
expect_rc 0 "run a layer"
expect_out "check     PASS" "run a layer"
expect_out "(strategy direct)" "run names the strategy"
expect_clean "run a layer"

run compile vgg16.conv5_1 --strategy direct
expect_rc 0 "compile a named layer"
expect_out "// vgg16.conv5_1 (strategy direct)" "the source names the layer and strategy"
expect_out "__kernel void k0(" "compile a named layer"

run gen "alexnet.conv2,c=8,k=8" --strategy direct -o "$T/gen"
expect_rc 0 "gen"
[ -s "$T/gen/kernels.cl" ] || bad "gen: no kernels.cl"
grep -q '"global": \[27, 27, 8\]' "$T/gen/manifest.json" || bad "gen: manifest lacks the ND-range"
grep -q '"name": "weights", "role": "input", "elements": 1600, "bytes": 6400' "$T/gen/manifest.json" ||
  bad "gen: manifest lacks the weights buffer"

# s2's batch over work-groups (LN=2): the batch map folded with the channel
# tiles into one range of dimension 2 (the group id split), staged and not,
# each checked; at n=1 it is no variant.
batch='n=3,c=8,h=12,w=12,k=16,pad=1,bias=1,relu=1'
staged="-p LK=2 -p LH=2 -p LW=2 -p LS=3 -p LC=3 -p LP=2 -p RW=4 -p RK=4 -p TW=3 -p TH=4 -p TK=2 -p CC=4"
# shellcheck disable=SC2086 # $staged is a list of options
run run "$batch" --strategy s2 $staged -p LN=2 --runs 10
expect_rc 0 "LN=2, staged"
expect_out "check     PASS" "LN=2, staged"
expect_out "global 3x12x12, local 3x4x2" "LN=2: n times the groups of dimension 2"
# shellcheck disable=SC2086
run compile "$batch" --strategy s2 $staged -p LN=2
expect_out "get_group_id(2) / 2;" "LN=2: the batch's index, the group id over the channel tiles' count"
expect_out "get_group_id(2) % 2;" "LN=2: the channel tile's index"
run run "$batch" --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p RW=2 -p RK=2 -p TW=2 -p TH=3 -p TK=2 -p LN=2 --runs 10
expect_rc 0 "LN=2, not staged"
expect_out "check     PASS" "LN=2, not staged"
run run "vgg16.conv3_2,c=8,k=16" --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p RW=2 -p RK=2 -p TW=2 -p TH=2 -p TK=2 -p LN=2
expect_rc 2 "LN=2 at n=1"
expect_err "a batch of one image (n=1) over work-groups (LN=2) is the loop of one step (LN=1)" "LN=2 at n=1"
run run "$batch" --strategy s2 -p LK=1 -p LH=1 -p LW=1 -p RW=2 -p RK=2 -p LN=2
expect_rc 2 "LN=2 without LK=2"
expect_err "it needs LK=2" "LN=2 without LK=2"

# s2's split-K (LX=2): the input channels in parts of CK, each part's tile
# of partial sums a work-group of its own (parts, batch and channel tiles
# folded into dimension 2), then a second kernel adding the partial sums
# from the bias; checked at n=1 and n=3, its conflicts and its split refused.
split="$staged -p LN=2 -p LX=2 -p CK=4"
# shellcheck disable=SC2086
run run "n=1,c=8,h=12,w=12,k=16,pad=1,bias=1,relu=1" --strategy s2 $split --runs 10
expect_rc 0 "LX=2 at n=1"
expect_out "check     PASS" "LX=2 at n=1"
expect_out "global 3x12x8, local 3x4x2" "LX=2: c/CK times the groups of dimension 2"
expect_out "  k1 " "LX=2: a second kernel"
# shellcheck disable=SC2086
run run "n=3,c=8,h=12,w=12,k=16,pad=1,bias=1,act=relu6" --strategy s2 $split --runs 10
expect_rc 0 "LX=2 at n=3"
expect_out "check     PASS" "LX=2 at n=3"
# shellcheck disable=SC2086
run run "n=1,c=8,h=12,w=12,k=16,pad=1" --strategy s2 $staged -p LN=1 -p LX=2 -p CK=4
expect_rc 2 "LX=2 with LN=1"
expect_err "split-K (LX=2) folds the parts, the batch and the channel tiles into dimension 2's groups: it needs LN=2" "LX=2 with LN=1"
run run "$batch" --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p RW=2 -p RK=2 -p TW=2 -p TH=3 -p TK=2 -p LN=2 -p LX=2 -p CK=4
expect_rc 2 "LX=2 unstaged"
expect_err "it needs LS=2 or LS=3" "LX=2 unstaged"
# shellcheck disable=SC2086
rejected "a part that does not divide c" "it breaks 8 % CK == 0 (split[CK] at " \
  run "n=1,c=8,h=12,w=12,k=16,pad=1" --strategy s2 $staged -p LN=2 -p LX=2 -p CK=3
# at most 32 parts (S2_MAX_PARTS): the partial sums at most 32 times the output
# shellcheck disable=SC2086
rejected "more than 32 parts" "CK=1 is outside its domain 2..64" \
  run "n=1,c=64,h=12,w=12,k=16,pad=1" --strategy s2 $staged -p LN=2 -p LX=2 -p CK=1

# A strategy with tuning parameters: a random point, a point given with -p,
# and points outside the space refused with the constraint they break.
run run "$small" --strategy s2 --random 5 --runs 10
expect_rc 0 "run a random point"
expect_out "check     PASS" "run a random point"
run gen "$small" --strategy s2 --random 5 -o "$T/gen2"
expect_rc 0 "gen a random point"
grep -q '"RK": ' "$T/gen2/manifest.json" || bad "gen: manifest lacks the parameter values"
run gen "$small" --strategy s2 --random 5 -o "$T/gen3"
cmp -s "$T/gen2/manifest.json" "$T/gen3/manifest.json" || bad "the same seed gives the same point"
glb='-p LK=1 -p LH=1 -p LW=1'
# shellcheck disable=SC2086 # $glb is three options
run run "$small" --strategy s2 $glb -p RK=7 -p RW=4 --runs 10
expect_rc 0 "run a point given with -p"
expect_out "RW=4, RK=7" "run names the point"
rejected "a point outside the space" "the point is outside the space: it breaks 7 % RK == 0 (split[RK] at " \
  run "$small" --strategy s2 -p LK=1 -p LH=1 -p LW=1 -p RK=2 -p RW=4
rejected "a point outside a domain" "RK=99 is outside its domain 1..7" \
  compile "$small" --strategy s2 -p LK=1 -p LH=1 -p LW=1 -p RK=99 -p RW=4
usage_error "a parameter without a value" "tuning parameter 'RW' has no value; give it with -p RW=... or draw a point with --random SEED" \
  compile "$small" --strategy s2 -p LK=1 -p LH=1 -p LW=1 -p RK=7
usage_error "a choice without a value" "choice 'LK' (the parallel level of the map over channel groups (dimension 2)) has no value; give it with -p LK=1..2" \
  compile "$small" --strategy s2 -p RK=7 -p RW=4
usage_error "a choice out of range" "choice LK takes 1..2 (the parallel level of the map over channel groups (dimension 2)), not 3" \
  compile "$small" --strategy s2 -p LK=3 -p LH=1 -p LW=1 -p RK=7 -p RW=4
rejected "an illegal mapping" "is not usable: $small (strategy s2):" compile "$small" --strategy s2 -p LK=1 -p LH=1 -p LW=2 -p RK=7 -p RW=4
expect_err "illegal mapping: mapGlb(2) is mixed with mapWrg/mapLcl; use one scheme per kernel" "an illegal mapping names the rule"
# The same refusal in a program the user wrote is an error in the input (2),
# not a rejected point (3); run and gen say so as compile does.
mixed=tests/errors/lower_mixed_schemes.cg why="lower_mixed_schemes.cg:6:12: illegal mapping: mapLcl(0) is mixed with mapGlb"
usage_error "compile: an illegal mapping in a FILE" "$why" compile "$mixed" -o "$T/mixed.cl"
usage_error "run: an illegal mapping in a FILE" "$why" run "$mixed"
usage_error "gen: an illegal mapping in a FILE" "$why" gen "$mixed" -o "$T/mixed"
rejected "gen: an illegal mapping of a point" "is not usable: $small (strategy s2):" \
  gen "$small" --strategy s2 -p LK=1 -p LH=1 -p LW=2 -p RK=7 -p RW=4 -o "$T/mixed"
[ -e "$T/mixed" ] && bad "a refused program left a folder behind"
usage_error "a bad seed" "--random 0: a seed is a positive integer" compile "$small" --strategy s2 --random 0

# --derivation: the rules a strategy applied, on standard error, the kernel unchanged on stdout.
run compile "$small" --strategy s2 --random 5 --derivation -o "$T/deriv.cl"
expect_rc 0 "compile --derivation"
grep -q '^// convgen: derivation of ' "$T/err" || bad "--derivation prints its banner"
grep -qE '^split-join RK at /[0-9/]+$' "$T/err" || bad "--derivation lists the rules with their positions"
run compile "$small" --strategy s2 --random 5 -o "$T/plain.cl"
cmp -s "$T/deriv.cl" "$T/plain.cl" || bad "--derivation leaves the kernel as it is"
usage_error "--derivation of a FILE" "--derivation needs a LAYER and --strategy S" compile examples/ir/vector_add.cg -p N=4 --derivation
usage_error "staging without work-groups" "the choices given make no variant of s2: local staging (LS=2) needs every map at work-group level (LK=LH=LW=2)" \
  compile "$small" --strategy s2 -p LK=1 -p LH=1 -p LW=1 -p LS=2 -p RK=7 -p RW=4
usage_error "space: choices that make no variant" "the choices given make no variant of s2: local staging (LS=2) needs every map" \
  space "$small" --strategy s2 --param LS=2 --param LK=1
# a staged point runs and matches the reference; without LS a point is unstaged (LS=1)
run run "$small" --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=2 -p LC=2 -p RK=7 -p RW=1 -p TK=1 -p TH=1 -p TW=1 -p CC=1 --runs 10
expect_rc 0 "run a staged point"
expect_out "LS=2 (local staging), LC=2 (channels)" "run names the staged variant"
run run "$small" --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=2 -p LC=3 -p RK=7 -p RW=2 -p TK=1 -p TH=7 -p TW=2 -p CC=1 --runs 10
expect_rc 0 "run a staged point with flat copies"
expect_out "LC=3 (flat)" "run names the flat copies"
run compile "$small" --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=2 -p LC=3 -p RK=7 -p RW=2 -p TK=1 -p TH=7 -p TW=2 -p CC=1
grep -qE 'for \(int lid[0-9]+ = get_local_id\(0\) \+ 2\*get_local_id\(1\);' "$T/out" || bad "flat copies: a loop over the linearised local id"
usage_error "flat copies without staging" "LC=2 and LC=3 need LS=2" \
  compile "$small" --strategy s2 $glb -p LC=3 -p RK=7 -p RW=4
run compile "$small" --strategy s2 $glb -p RK=7 -p RW=4
expect_out "LS=1 (global)" "a point without LS is unstaged"

run space vgg16.conv3_2 --strategy all
expect_rc 0 "space --strategy all"
for st in direct s1 s2 s3; do grep -qE "^$st +[0-9]+ of [0-9]+ +[0-9]+ " "$T/out" || bad "space --strategy all: no line for $st"; done

usage_error "unknown strategy" "unknown strategy 'foo' (strategies: direct, " run vgg16.conv5_1 --strategy foo
# Each side padded its own (ONNX's pads), with a stride: random points of
# every strategy correct against the float64 convolution.
# random_points LAYER WHAT "STRATEGIES" SEED...: each strategy's point of
# each seed runs and passes its check against the float64 convolution.
random_points() {
  local l=$1 what=$2 strategies=$3 s r
  shift 3
  for s in $strategies; do
    for r in "$@"; do
      run run "$l" --strategy "$s" --random "$r" --runs 10
      expect_rc 0 "$s --random $r on $what"
      expect_out "check     PASS" "$s --random $r on $what"
    done
  done
}
asym="n=2,c=5,h=11,w=13,k=6,stride=2,pad_top=0,pad_left=1,pad_bottom=2,pad_right=0,bias=1,act=relu6"
random_points "$asym" "pads that differ by side" "direct s1 s2 s3" 3 4
# Dilated windows (a view: slide[1, d] over each window of the dilated
# extent): random points of every strategy correct; s2's patch variants,
# whose rules match only undilated windows, are refused with the reason.
dil="n=1,c=3,h=12,w=13,k=4,stride_w=2,pad=2,dilation_h=2,dilation_w=3,bias=1,relu=1"
random_points "$dil" "a dilated layer" "direct s1 s2 s3" 5 6
# DeepLab's atrous 3x3 (rate 12, pad 12 on a 14x14 plane: the window larger than the plane)
random_points "n=1,c=4,h=14,w=14,k=6,pad=12,dilation=12,bias=1" "an atrous layer of rate 12" "direct s2 s3" 2 8
usage_error "the patch on a dilated layer" "the patch rules (LS=3) describe windows of neighbouring taps, not a dilated" \
  run "$dil" --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=3 -p RW=1 -p RK=2 -p TW=1 -p TH=1 -p TK=2 -p CC=1
# Grouped and depthwise layers (the map over the groups of one group's
# dense expression): random points of direct, s1 and s2 correct, s2's patch
# (LS=3) among them; s3 and split-K are refused with the reason; groups that divide neither
# channel count are bad input.
for g in "n=2,c=6,h=9,w=10,k=9,pad=1,groups=3,bias=1,act=leaky(0.1)" "n=1,c=8,h=12,w=11,k=16,stride=2,pad=1,groups=8,bias=1,act=relu6"; do
  random_points "$g" "$g" "direct s1 s2" 2 7
  # s2's patch staged in local memory (LS=3): each group's windows made from its planes
  run run "$g" --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=3 --random 3 --runs 10
  expect_rc 0 "s2 LS=3 on $g"
  expect_out "check     PASS" "s2 LS=3 on $g"
done
rejected "s3 on a grouped layer" "the space has no points" run "n=1,c=4,h=8,w=8,k=8,pad=1,groups=4" --strategy s3 --random 1
run space "n=1,c=4,h=8,w=8,k=8,pad=1,groups=4" --strategy s3
expect_out "s3: a grouped layer (groups=G) is not built" "space says why s3 has no grouped points"
usage_error "split-K on a grouped layer" "split-K (LX=2) starts from the dense layer's split form" \
  run "n=2,c=4,h=8,w=8,k=8,pad=1,groups=2" --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=2 -p LN=2 -p LX=2 --random 1
# dw, the depthwise strategy: random points of each of its variants (scalar,
# float2 and float4 reads of the patch) correct on depthwise layers, one with
# two kernels per channel and stride 2; a layer it does not take (more than
# one input channel per group) is refused with the reason, and `space
# --strategy all` says so in dw's row.
dw="n=1,c=3,h=8,w=10,k=6,pad=1,groups=3,bias=1,act=relu6"
for v in 1 2 3; do
  run run "$dw" --strategy dw -p LV=$v --random 3 --runs 10
  expect_rc 0 "dw LV=$v on $dw"
  expect_out "check     PASS" "dw LV=$v on $dw"
done
random_points "n=2,c=4,h=9,w=11,k=8,stride=2,pad=1,groups=4,act=hardswish" "a depthwise layer of stride 2" "dw" 1 2
usage_error "dw on a dense layer" "dw derives a depthwise layer's kernels: one input channel per group" \
  compile "n=1,c=4,h=8,w=8,k=8,pad=1,groups=2" --strategy dw --random 1
usage_error "dw's space on a dense layer" "dw derives a depthwise layer's kernels" space "n=1,c=4,h=8,w=8,k=8,pad=1" --strategy dw
run space "n=1,c=4,h=8,w=8,k=8,pad=1" --strategy all
expect_rc 0 "space --strategy all on a dense layer"
expect_out "dw derives a depthwise layer's kernels" "space --strategy all: dw's row says why it has no points"
rejected "dw's float4 on a patch row of 3" "asVector" run "$dw" --strategy dw -p LV=3 -p RH=1 -p RW=1
usage_error "groups that do not divide c" "groups=4 does not divide the input channels c=6" run "c=6,h=8,w=8,k=8,groups=4" --strategy direct
usage_error "groups that do not divide k" "groups=2 does not divide the output channels k=5" run "c=6,h=8,w=8,k=5,groups=2" --strategy direct
# A residual input (residual=1, added before the activation): random points
# of every strategy correct (s2's among the variants that take it), s2's
# staged one-kernel form refused with the reason, a bad value bad input.
res="n=2,c=5,h=9,w=10,k=6,stride=2,pad=1,bias=1,relu=1,residual=1"
random_points "$res" "a layer with a residual" "direct s1 s2 s3" 2 5
rejected "staged s2 in one kernel with a residual" "the space has no points" \
  run "$res" --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=2 -p LX=1 --random 1
run space "$res" --strategy s2 --param LS=2 --param LX=1
expect_out "residual=1 with local staging (LS=2 or 3) is built with split-K (LX=2) alone" "space says why"
run run "$res" --strategy s2 -p LK=2 -p LH=2 -p LW=2 -p LS=2 -p LN=2 -p LX=2 --random 1 --runs 10
expect_out "check     PASS" "split-K with a residual"
usage_error "residual out of range" "residual must be 0 or 1 (got 2)" run "c=4,h=8,w=8,k=4,residual=2" --strategy direct
run compile "n=1,c=3,h=6,w=6,k=2,pad=1,bias=1,residual=1" --strategy direct --dump-ir
expect_err "input residual: [[[[float]6]6]2]1" "the residual an input of the output's shape"
expect_err "(add(get[1](kb), get[1](wr))" "the window's reduction from bias + residual"
run compile "n=1,c=4,h=6,w=6,k=6,pad=1,groups=2,bias=1" --strategy direct --dump-ir
expect_err "|> map[map[split[2]]]" "the groups in the expression: each window's channels split by groups"
expect_err "split[3](weights), split[3](bias)) |> mapGlb[2, fun(group" \
  "the groups in the expression: the kernels and biases split (map-over-groups), the groups mapGlb 2"
expect_err "-> mapGlb[2, fun(kb" "the groups in the expression: around the channels' mapGlb 2"
run compile "$asym" --strategy direct --dump-ir
expect_err "map[pad[1, 0, 0.0f]]" "pads that differ by side in the expression (columns)"
expect_err "|> pad[0, 2, 0.0f]" "pads that differ by side in the expression (rows)"
usage_error "unknown layer" "unknown layer 'conv9' of vgg16" compile vgg16.conv9 --strategy direct
usage_error "bad key" "unknown key 'q'" compile n=1,q=3 --strategy direct
usage_error "gen without -o" "missing -o DIR" gen vgg16.conv5_1 --strategy direct
usage_error "a parameter the program lacks" "'TS' is not a tuning parameter (the strategy has none)" compile vgg16.conv5_1 --strategy direct -p TS=4
finish
