#!/usr/bin/env bash
# run-command.sh: `convgen run` checks a program against the interpreter and times it.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
write_vadd "$T/vadd.cg"

run run "$T/vadd.cg" -p N=1000 --seed 7
expect_rc 0 "run"
expect_clean "run"
grep -qE '^check +PASS +relative L2 error [0-9.e+-]+ over 1000 of 1000 outputs \(tolerance 0.0001, seed 7\)$' "$T/out" ||
  bad "run prints the check line"
grep -qE '^time +[0-9.]+ us median, min [0-9.]+, max [0-9.]+, spread [0-9.]+% \(10 batches of [0-9]+ runs back to back, after 3 warm-up\)$' "$T/out" ||
  bad "run prints the time line"
grep -qE '^  k0 +[0-9.]+ us median, spread [0-9.]+%, global 1000, local ' "$T/out" || bad "run prints per-kernel times"
expect_out "program   $T/vadd.cg: N=1000" "run names the program"
grep -qE '^device +[0-9]+: ' "$T/out" || bad "run names the device"

# --target cuda where there is no CUDA driver (CI): a device failure (exit
# 4) that names the library, from run, tune, space and bench alike.
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  for cmd in "run $T/vadd.cg -p N=64" "tune n=1,c=4,h=8,w=8,k=4 --budget 1 --db $T/cuda.db" \
    "space vgg16.conv3_2 --strategy s2" "bench alexnet.conv5 --db $T/cuda.db"; do
    # shellcheck disable=SC2086
    run $cmd --target cuda
    expect_rc 4 "$cmd --target cuda without CUDA"
    expect_err "the CUDA target: cannot load the CUDA driver (libcuda.so.1)" "$cmd --target cuda without CUDA"
  done
  [ -e "$T/cuda.db" ] && [ "$(sqlite3 "$T/cuda.db" 'select count(*) from measurements' 2>/dev/null || echo 0)" != 0 ] &&
    bad "--target cuda without CUDA recorded something"
fi

run run "$T/vadd.cg" -p N=100000 --sample 100 --runs 12 --warmup 0 --tol 1e-5
expect_rc 0 "run --sample"
grep -qE 'over 10[0-2] of 100000 outputs' "$T/out" || bad "run --sample checks about 100 outputs"
expect_out "(12 batches of" "run --runs --warmup"

run run "$T/vadd.cg" -p N=1000 --reps 7
expect_rc 0 "run --reps"
expect_out "(10 batches of 7 runs back to back, after 3 warm-up)" "run --reps: batches of that many runs"
usage_error "--reps 0" "--reps 0: a batch is 1 to 100000 runs" run "$T/vadd.cg" -p N=16 --reps 0

run run "$T/vadd.cg" -p N=16 --device no-such-device-xyz
expect_rc 2 "run on a missing device"
expect_err "convgen: no OpenCL device matches 'no-such-device-xyz'" "run on a missing device"
CONVGEN_DEVICE=no-such-device-xyz run run "$T/vadd.cg" -p N=16
expect_rc 2 "run with a bad CONVGEN_DEVICE"
expect_err "(from \$CONVGEN_DEVICE)" "run with a bad CONVGEN_DEVICE"
CONVGEN_DEVICE=no-such-device-xyz run run "$T/vadd.cg" -p N=16 --device 0
expect_rc 0 "--device wins over CONVGEN_DEVICE"
# No OpenCL platform at all (an ICD folder without drivers): a device
# failure, 4, where a --device that matches none is bad input, 2.
mkdir -p "$T/noicd"
OCL_ICD_VENDORS=$T/noicd run run "$T/vadd.cg" -p N=16
expect_rc 4 "run without an OpenCL platform"
expect_err "convgen: no OpenCL platform found" "run without an OpenCL platform"
OCL_ICD_VENDORS=$T/noicd run tune "n=1,c=2,h=6,w=6,k=2" --budget 1 --db "$T/noicd.db"
expect_rc 4 "tune without an OpenCL platform"
OCL_ICD_VENDORS=$T/noicd run compile "$T/vadd.cg" -p N=16
expect_rc 0 "compile of a FILE needs no device"

# Sizes past the kernels' int indices, or past what the host can hold: a usage
# error that names the size and the limit (99999999999 ended in an internal
# out-of-memory abort; under a 2 GB address-space limit, 2^28 elements did).
usage_error "run with a size over int" "size 'N' is 99999999999, more than 2147483647" \
  run "$T/vadd.cg" -p N=99999999999
case $CONVGEN in
  *build-san/*) ;;   # the sanitizers reserve far more address space than any limit would leave
  *)
    (ulimit -v 2000000 && "$CONVGEN" run "$T/vadd.cg" -p N=268435456 >"$T/out" 2>"$T/err")
    rc=$?
    expect_rc 2 "run over the host's memory"
    expect_err "N=268435456: the run needs at least 5120 MiB of host memory" "run over the host's memory"
    expect_err "more than the 1953 MiB this process may use (ulimit -v)" "run over the host's memory"
    ;;
esac

# The program is checked before the device is opened.
run run "$T/vadd.cg" --device no-such-device-xyz
expect_rc 2 "run with an unbound size"
expect_err "size 'N' has no value" "run with an unbound size"

finish
