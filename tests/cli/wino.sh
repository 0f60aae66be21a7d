#!/usr/bin/env bash
# wino.sh: strategy wino (Winograd's F(m, r), issue 32) from the command
# line: its staged variant (LS=2: M's chunks shared in local memory, LP=2 and
# 3 pipelining them) and the batch folded into M's tiles (WB=2) run and pass; a layer's filter transform, a kernel
# of the weights alone, runs once (measure.h, MeasOptions.fixed_inputs) and
# run says so; and in a network tuned with wino the transformed filters are
# kept in a buffer of each step's own, computed in the first run only, and
# every later run's output is the first's (infer checks it after timing, and
# the exported program, whose launches of the filter transforms run once,
# after its timed runs).
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
L=n=2,c=16,h=12,w=12,k=8,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1

for lp in 1 2 3; do
  run run "$L" --strategy wino -p WM=1 -p RK=4 -p RT=2 -p LS=2 -p TK=2 -p TT=6 -p CS=2 -p LP=$lp --seed 3
  expect_rc 0 "run wino LS=2 LP=$lp"
  expect_out "check     PASS" "wino LS=2 LP=$lp passes"
  expect_out "k0      " "wino has a filter transform kernel"
  expect_out "once (the weights' alone, not in each run)" "wino LP=$lp: the filter transform runs once"
done
# the batch folded into M's tiles (rule winograd-batch), from global memory and staged
for staged in "" "-p LS=2 -p TK=2 -p TT=9 -p CS=4"; do
  # shellcheck disable=SC2086
  run run "$L" --strategy wino -p WM=1 -p WB=2 -p RK=4 -p RT=4 $staged --seed 4
  expect_rc 0 "run wino WB=2 $staged"
  expect_out "check     PASS" "wino WB=2 $staged passes"
done
expect_refusal 2 "WB=2 at batch 1" "a layer of batch 1 has none to fold" run "n=1,c=16,h=12,w=12,k=8,kh=3,kw=3,stride=1,pad=1,bias=1" --strategy wino -p WM=1 -p WB=2 -p RK=4 -p RT=4
run compile "$L" --strategy wino -p WM=2 -p RK=2 -p RT=1 -p LS=2 -p TK=4 -p TT=3 -p CS=8 -p LP=2
expect_rc 0 "compile wino LS=2 F(4, 3)"
expect_out "__local float" "wino LS=2 stages in local memory"
run space "$L" --strategy wino
expect_rc 0 "space wino"
expect_out "LS=2 (chunks staged in local memory)" "space lists the staged variants"
run run "$L" --strategy s2 --random 1
expect_rc 0 "run s2"
if grep -qF "once (" "$T/out"; then bad "s2's kernels all run every run"; fi

# A network: its 3x3 stride-1 layers tuned with wino, then run many times
skip_without_onnx
M=tests/onnx/resnet18.onnx
run tune "$M" --strategy wino --budget 2 --db "$T/w.db"
expect_rc 1 "tune a network with wino (its strided, 1x1 and residual layers get none)"
expect_err "strategy wino does not take it" "tune says which layers wino does not take"
run infer "$M" --db "$T/w.db" --input tests/onnx/resnet18_input.pb --expect tests/onnx/resnet18_output.pb --runs 10 -v
expect_rc 0 "infer with wino records, timed"
expect_err "tuned wino" "infer runs wino's records"
expect_out "PASS relative L2" "the first run's output is right"
if grep -qF "differs from the first run's" "$T/err"; then bad "a timed run's output changed"; fi
# exported: the filter transforms' launches run once, into temporaries of their own
run export "$M" --db "$T/w.db" --input tests/onnx/resnet18_input.pb -o "$T/net"
expect_rc 0 "export the network with wino records"
grep -qF "kept: computed once from the weights" "$T/net/convgen_net.c" || bad "the export keeps the transformed filters"
if make -s -C "$T/net" CFLAGS='-O2 -std=c99 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L' >"$T/make.log" 2>&1; then
  "$T/net/network" >"$T/net.out" 2>&1
  rc=$?
  if [ "$rc" != 0 ] || ! grep -qF "PASS relative L2 error 0" "$T/net.out"; then
    bad "the exported network with wino: exit $rc: $(head -c 600 "$T/net.out")"
  fi
else
  bad "the exported network does not build: $(head -c 600 "$T/make.log")"
fi

[ "$nfail" -eq 0 ] || exit 1
echo "wino: ok"
