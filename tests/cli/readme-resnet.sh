#!/usr/bin/env bash
# readme-resnet.sh: README.md's walkthrough "A model (ONNX)" (the ResNet-18
# at 1/16 width in tests/onnx), run as the README writes it, so that it
# stays true. The commands are the lines of the section's sh block (a line
# of only a comment continues the one before it), run in order in one
# shell, with build/convgen standing for $CONVGEN and /tmp/ for this test's
# own folder (readme.bash), as readme-mobile.sh runs the MobileNet walkthrough. Each must
# exit 0. Import must list the model's convolutions and fusions; tune must
# leave every distinct layer with a correct kernel; infer must pass its
# --expect check against onnx's output and time the network; bench must
# time every layer and the network whole; export must write the network,
# and the exported program must build and pass its own check.
# shellcheck source=tests/cli/common.bash disable=SC2034,SC2016 # rc is read by the helpers; $M and $T are the walkthrough's, expanded where it runs
. "$(dirname "$0")/common.bash"
# shellcheck source=tests/cli/readme.bash
. "$(dirname "$0")/readme.bash"

skip_without_onnx
: >"$T/out"
: >"$T/err"   # (bad prints them: the checks below read the walkthrough's own files)

SECTION='### A model (ONNX)'
grep -qxF "$SECTION" README.md || { bad "README.md has no section '$SECTION'"; finish; }

# The section's sh block: command K in $T/cmd.K.
awk -v sec="$SECTION" -v dir="$T" '
  $0 == sec { on = 1; next }
  on && /^### / { exit }
  on && /^```sh$/ { block = 1; next }
  block && /^```$/ { block = 0; next }
  block && /^[ \t]*(#|$)/ { next }
  block { k++; print > (dir "/cmd." k) }
  END { print k + 0 > (dir "/count") }' README.md
n=$(cat "$T/count")

c_import=$(cmd_of '^build/convgen import \$M\.onnx( |$)')
c_tune=$(cmd_of '^build/convgen tune \$M\.onnx ')
c_infer=$(cmd_of '^build/convgen infer \$M\.onnx .*--input .*--expect .*--runs ')
c_bench=$(cmd_of '^build/convgen bench \$M\.onnx ')
c_export=$(cmd_of '^build/convgen export \$M\.onnx .*-o /tmp/')
c_network=$(cmd_of '^make -C /tmp/[^ ]+ && /tmp/[^ ]+/network( |$)')
for step in import tune infer bench export network; do
  v=c_$step
  [ "${!v}" -gt 0 ] || bad "README's walkthrough has no $step command"
done
[ "$(cmd_of '^M=tests/onnx/resnet18$')" = 1 ] || bad "README's walkthrough does not start with M=tests/onnx/resnet18"

# Run them in one shell (M set by the first): readme.bash's walk.
walk

if [ "$c_import" -gt 0 ]; then
  out "$c_import" "convolutions: 21 (19 distinct layers); nodes: 70" "20 convolutions and the Gemm, 70 nodes"
  count "$c_import" 20 '^ +[0-9]+ +BatchNormalization +[^ ]+ +fused into node [0-9]+$' "every batch norm folded into its convolution"
  count "$c_import" 17 '^ +[0-9]+ +Relu +[^ ]+ +fused into node [0-9]+$' "every Relu fused into its convolution"
  count "$c_import" 8 '^ +[0-9]+ +Add +[^ ]+ +fused into node [0-9]+$' "every residual Add fused"
fi
if [ "$c_tune" -gt 0 ]; then
  out "$c_tune" "best kernels on " "tune prints its table"
  count "$c_tune" 19 '^tests/onnx/resnet18\.onnx:[^ ]+ +(direct|s1|s2|s3|dw) ' "a kernel for each of the 19 distinct layers"
fi
if [ "$c_infer" -gt 0 ]; then
  out "$c_infer" "output softmax1: 1x10  PASS relative L2 error " "infer matches onnx's output"
  out "$c_infer" "time: " "infer --runs times the network"
fi
if [ "$c_bench" -gt 0 ]; then
  count "$c_bench" 19 '^  convgen +[0-9.]+ +[0-9.]+% ' "bench times the tuned kernel of each of the 19 layers"
  out "$c_bench" "network tests/onnx/resnet18.onnx on " "bench runs the network whole"
fi
if [ "$c_export" -gt 0 ]; then
  out "$c_export" "wrote network tests/onnx/resnet18.onnx into $T/" "export writes the network"
  out "$c_export" ": 24 nodes run " "24 nodes run"
fi
if [ "$c_network" -gt 0 ]; then
  out "$c_network" "output softmax1: 1x10  PASS relative L2 error " "the exported program passes its own check"
  echo "readme-resnet.sh: infer: $(grep -o 'PASS relative L2 error [^ ]*' "$T/out.$c_infer"); the exported program: $(grep -o 'PASS relative L2 error [^ ]*' "$T/out.$c_network")" >&2
fi
finish
