#!/usr/bin/env bash
# devices.sh: `convgen devices` lists at least one device and names the default.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"

run devices
expect_rc 0 "devices"
expect_out "device 0: " "devices lists a device"
expect_out "max work-item sizes" "devices prints the limits"
grep -qE '^default: device [0-9]+ \(' "$T/out" || bad "devices names the default device"
# the CUDA target's devices, or why there are none (no driver in CI)
grep -qE '^(CUDA devices \(--target cuda\):|CUDA \(--target cuda\): none: )' "$T/out" || bad "devices says what CUDA has"
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  expect_out "CUDA (--target cuda): none: the CUDA target: cannot load the CUDA driver (libcuda.so.1)" "devices without CUDA"
fi

# $CONVGEN_DEVICE picks the default; a bad one says so.
CONVGEN_DEVICE=0 run devices
grep -qE '^default: device 0 \(' "$T/out" || bad "CONVGEN_DEVICE=0 is the default"
CONVGEN_DEVICE=no-such-device-xyz run devices
expect_rc 0 "devices with a bad CONVGEN_DEVICE"
expect_out "default: none: no OpenCL device matches 'no-such-device-xyz'" "devices with a bad CONVGEN_DEVICE"

finish
