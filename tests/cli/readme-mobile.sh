#!/usr/bin/env bash
# readme-mobile.sh: README.md's walkthrough "A mobile network, from the ONNX
# file to exported C", run as the README writes it, so that it stays true.
# The commands are read from the section's console blocks (a line '$ CMD',
# then the output shown for it) and run in order in one shell, with
# build/convgen standing for $CONVGEN and /tmp/ for this test's own folder.
# Each must exit 0. Import's output is checked line for line against the
# lines the README shows (it depends on nothing but the model), and for the
# fusions of MobileNet V3 (tests/onnx/make_mobilenet_v3.py); tune must
# leave every layer with a correct kernel; infer must pass its --expect
# check against onnx's float64 output; export must write the network, and
# the exported program must build and pass its own check.
# shellcheck source=tests/cli/common.bash disable=SC2034,SC2016 # rc is read by the helpers; $M and $T are the walkthrough's, expanded where it runs
. "$(dirname "$0")/common.bash"
# shellcheck source=tests/cli/readme.bash
. "$(dirname "$0")/readme.bash"

skip_without_onnx
: >"$T/out"
: >"$T/err"   # (bad prints them: the checks below read the walkthrough's own files)

SECTION='### A mobile network, from the ONNX file to exported C'
grep -qxF "$SECTION" README.md || { bad "README.md has no section '$SECTION'"; finish; }

# The section's console blocks: command K in $T/cmd.K, the output the README
# shows for it in $T/shown.K.
awk -v sec="$SECTION" -v dir="$T" '
  $0 == sec { on = 1; next }
  on && /^### / { exit }
  on && /^```console$/ { block = 1; next }
  block && /^```$/ { block = 0; next }
  block && /^\$ / { k++; print substr($0, 3) > (dir "/cmd." k); printf "" > (dir "/shown." k); next }
  block && k { print >> (dir "/shown." k) }
  END { print k + 0 > (dir "/count") }' README.md
n=$(cat "$T/count")

c_import=$(cmd_of '^build/convgen import \$M\.onnx$')
c_tune=$(cmd_of '^build/convgen tune \$M\.onnx ')
c_infer=$(cmd_of '^build/convgen infer \$M\.onnx .*--input .*--expect ')
c_export=$(cmd_of '^build/convgen export \$M\.onnx .*-o /tmp/')
c_network=$(cmd_of '^make -C /tmp/[^ ]+ && /tmp/[^ ]+/network$')
for step in import tune infer export network; do
  v=c_$step
  [ "${!v}" -gt 0 ] || bad "README's walkthrough has no $step command"
done
[ "$(cmd_of '^M=tests/onnx/mobilenet_v3$')" = 1 ] || bad "README's walkthrough does not start with M=tests/onnx/mobilenet_v3"

# Run them in one shell (M set by the first): readme.bash's walk.
walk

if [ "$c_import" -gt 0 ]; then
  # every line the README shows is import's own, character for character
  shown=0
  while IFS= read -r line; do
    [ "$line" = "..." ] && continue
    shown=$((shown + 1))
    grep -qxF -- "$line" "$T/out.$c_import" || bad "README shows an import line that import does not print: '$line'"
  done <"$T/shown.$c_import"
  [ "$shown" -ge 10 ] || bad "README shows $shown lines of import's output, want the fusions among them"
  i=$c_import
  out "$i" "convolutions: 64 (43 distinct layers); nodes: 140" "62 convolutions and 2 Gemms, 140 nodes"
  out "$i" "k=4,kh=3,kw=3,stride=2,pad=1,bias=1,act=hardswish +HardSwish" "the stem's HardSwish"
  count "$i" 21 '^ +[0-9]+ +HardSwish +[^ ]+ +fused into node [0-9]+$' "every HardSwish fused into its convolution (or Gemm)"
  count "$i" 19 '^ +[0-9]+ +Relu +[^ ]+ +fused into node [0-9]+$' "every Relu fused"
  count "$i" 10 '^ +[0-9]+ +Add +[^ ]+ +fused into node [0-9]+$' "every residual Add fused into its projection"
  count "$i" 10 'relu=0,residual=1(,scale=1 \+Mul \(scale [^)]*\))? \+Add \(residual ' "the projections take the residual Adds"
  count "$i" 8 ',act=hardsigmoid\(0\.16666667,0\.5\) \+HardSigmoid$' "each squeeze-excite's gate in its fc2"
  count "$i" 8 '^ +[0-9]+ +HardSigmoid +[^ ]+ +fused into node [0-9]+$' "every HardSigmoid fused"
  count "$i" 6 'kh=5,kw=5,stride=[12],pad=2,groups=[0-9]+,bias=1,(relu=1 \+Relu|act=hardswish \+HardSwish)$' \
    "the 5x5 depthwise convolutions with their activations"
  count "$i" 8 '^ +[0-9]+ +Mul +/features/features\.[0-9]+/block/block\.2/Mul +fused into node [0-9]+$' \
    "the squeeze-excite's Muls (a broadcast gate) fused into the projections after them"
  count "$i" 8 'relu=0(,residual=1)?,scale=1 \+Mul \(scale .*HardSigmoid_output_0.\)' "the projections take the Muls"
  out "$i" "Gemm               /classifier/classifier.0/Gemm 1x160  layer n=1,c=120,h=1,w=1,k=160,kh=1,kw=1,stride=1,pad=0,bias=1,act=hardswish +HardSwish" \
    "the classifier's first Gemm as a 1x1 layer with its HardSwish"
fi
if [ "$c_tune" -gt 0 ]; then
  out "$c_tune" "best kernels on " "tune prints its table"
  count "$c_tune" 43 '^tests/onnx/mobilenet_v3\.onnx:[^ ]+ +(direct|s1|s2|s3|dw) ' "a kernel for each of the 43 distinct layers"
fi
if [ "$c_infer" -gt 0 ]; then
  out "$c_infer" "output y: 1x10  PASS relative L2 error " "infer matches onnx's float64 output"
  out "$c_infer" "time: " "infer --runs times the network"
fi
if [ "$c_export" -gt 0 ]; then
  out "$c_export" "wrote network tests/onnx/mobilenet_v3.onnx into $T/" "export writes the network"
  # (a split-K point runs two kernels: which points the 2-candidate tune kept decides the count)
  count "$c_export" 1 ': 73 nodes run (7[3-9]|8[0-9]|9[0-9]) kernels \(' "73 nodes run, 66 fused and Flatten a view"
fi
if [ "$c_network" -gt 0 ]; then
  out "$c_network" "output y: 1x10  PASS relative L2 error " "the exported program passes its own check"
  echo "readme-mobile.sh: infer: $(grep -o 'PASS relative L2 error [^ ]*' "$T/out.$c_infer"); the exported program: $(grep -o 'PASS relative L2 error [^ ]*' "$T/out.$c_network")" >&2
fi
finish
