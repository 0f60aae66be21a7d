#!/usr/bin/env bash
# output.sh: compile's output: stdout or -o OUT, written whole or not at all;
# --dump-ir on stderr.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
write_vadd "$T/vadd.cg"

run compile "$T/vadd.cg" -p N=1024
expect_rc 0 "compile to stdout"
expect_out "__kernel void" "compile to stdout"
expect_out "vadd.cg: N=1024" "the source names the program and its sizes"
[ -s "$T/err" ] && bad "compile to stdout: wrote to stderr"
cp "$T/out" "$T/stdout.cl"

run compile "$T/vadd.cg" -p N=1024 -o "$T/vadd.cl"
expect_rc 0 "compile -o"
[ -s "$T/out" ] && bad "compile -o: wrote to stdout"
cmp -s "$T/vadd.cl" "$T/stdout.cl" || bad "compile -o: file differs from stdout"
run compile "$T/vadd.cg" -p N=1024 --output="$T/vadd2.cl"
cmp -s "$T/vadd2.cl" "$T/stdout.cl" || bad "compile --output=OUT: file differs from stdout"
run compile "$T/vadd.cg" -p N=1024 -o -
cmp -s "$T/out" "$T/stdout.cl" || bad "compile -o -: stdout differs"

# --target cuda: the same kernels in CUDA C; an unknown target and a vector
# type CUDA lacks are refused.
run compile "$T/vadd.cg" -p N=1024 --target cuda
expect_rc 0 "compile --target cuda"
expect_out 'extern "C" __global__ void k0(' "CUDA: an unmangled __global__ kernel"
expect_out "(int)(blockIdx.x * blockDim.x + threadIdx.x)" "CUDA: the global id"
run compile "$T/vadd.cg" -p N=1024 --target opencl
cmp -s "$T/out" "$T/stdout.cl" || bad "compile --target opencl: not the default's source"
# export under CUDA takes the records of a CUDA device: without the driver
# (here) it says so, exit 4, and writes nothing (tests/tune/test_export.c
# builds the files it would write)
: >"$T/some.db"
if [ -z "$(ldconfig -p 2>/dev/null | grep libcuda.so.1)" ]; then
  expect_refusal 4 "export under CUDA without the driver" "cannot load the CUDA driver" \
    export vgg16.conv5_1 --target cuda -o "$T/exp" --db "$T/some.db"
  [ -e "$T/exp" ] && bad "export under CUDA without the driver: wrote $T/exp"
fi
usage_error "a profile under CUDA" "--profile mali-g72 and --target cuda: a profile is an OpenCL device's limits" \
  compile vgg16.conv3_2 --strategy s2 --random 1 --profile mali-g72 --target cuda
usage_error "an unknown target" "--target metal: unknown target (targets: opencl, cuda)" \
  compile "$T/vadd.cg" -p N=1024 --target metal
printf 'size N\nuserfun add8(a: float8, b: float8): float8 { return a + b; }\ninput x: [float]N\ninput y: [float]N\nout = zip(x |> asVector[8], y |> asVector[8]) |> mapGlb[0, add8] |> asScalar\n' >"$T/v8.cg"
usage_error "float8 in CUDA" "the program uses vectors of 8 floats, a type CUDA C (NVRTC) does not have" \
  compile "$T/v8.cg" -p N=64 --target cuda

# A failing compile leaves OUT as it was, and creates nothing when it did not exist.
printf 'size N\ninput a: [float]N\nout = a |> mapGlb[0, fun(x) -> \n' >"$T/broken.cg"
echo "previous contents" >"$T/keep.cl"
run compile "$T/broken.cg" -p N=4 -o "$T/keep.cl"
expect_rc 2 "parse error with -o"
expect_err "convgen: $T/broken.cg:" "parse error with -o"
[ "$(cat "$T/keep.cl")" = "previous contents" ] || bad "parse error with -o: OUT was changed"
run compile "$T/broken.cg" -p N=4 -o "$T/new.cl"
[ -e "$T/new.cl" ] && bad "parse error with -o: OUT was created"
run compile "$T/vadd.cg" -o "$T/new.cl"
expect_rc 2 "unbound size with -o"
[ -e "$T/new.cl" ] && bad "unbound size with -o: OUT was created"
[ -n "$(find "$T" -name '*.tmp.*')" ] && bad "a temporary file was left behind"

run compile "$T/vadd.cg" -p N=4 -o "$T/no/such/dir/out.cl"
expect_rc 2 "-o into a missing directory"
expect_err "convgen: $T/no/such/dir/out.cl: cannot write" "-o into a missing directory"
expect_clean "-o into a missing directory"

# -o onto something that is not a regular file is written in place: a
# temporary renamed over /dev/null, as root, replaced the device. A FIFO (a
# reader drains it), a copy of /dev/null's device where mknod is allowed
# (root), and a symbolic link, which stays a link to the new contents.
mkfifo "$T/fifo"
cat "$T/fifo" >"$T/fifo.read" &
reader=$!
run compile "$T/vadd.cg" -p N=1024 -o "$T/fifo"
expect_rc 0 "-o onto a FIFO"
if [ -p "$T/fifo" ]; then
  wait "$reader"
else   # (the reader still waits for a writer: it is ours to stop)
  bad "-o onto a FIFO: it is no longer a FIFO"
  kill "$reader" 2>/dev/null
  wait "$reader" 2>/dev/null
fi
cmp -s "$T/fifo.read" "$T/stdout.cl" || bad "-o onto a FIFO: the reader did not get the kernel"
if mknod "$T/null" c 1 3 2>/dev/null; then
  run compile "$T/vadd.cg" -p N=1024 -o "$T/null"
  expect_rc 0 "-o onto a character device"
  [ -c "$T/null" ] || bad "-o onto a character device: it was replaced"
  run compile n=1,c=3,h=9,w=11,k=4,kh=3,kw=3,stride=1,pad=1 --strategy direct --derivation -o "$T/null"
  expect_rc 0 "--derivation -o onto a character device"
  [ -c "$T/null" ] || bad "--derivation -o onto a character device: it was replaced"
fi
echo old >"$T/target.cl"
ln -s target.cl "$T/link.cl"
run compile "$T/vadd.cg" -p N=1024 -o "$T/link.cl"
expect_rc 0 "-o onto a symbolic link"
[ -L "$T/link.cl" ] || bad "-o onto a symbolic link: the link was replaced by a file"
cmp -s "$T/target.cl" "$T/stdout.cl" || bad "-o onto a symbolic link: its target does not hold the kernel"
[ -n "$(find "$T" -name '*.tmp.*')" ] && bad "a temporary file was left behind"

# gen makes DIR with the folders above it (README's `gen ... -o out/conv3_2`
# failed in a fresh checkout), and a new DIR appears whole or not at all:
# with files limited to 1 KiB (a full disk, in effect: the kernels are 1.1 KiB)
# nothing is left.
run gen "$T/vadd.cg" -p N=8 -o "$T/new/a/b"
expect_rc 0 "gen into a folder whose parents are missing"
[ -s "$T/new/a/b/kernels.cl" ] && [ -s "$T/new/a/b/manifest.json" ] || bad "gen -o new/a/b: the files are not there"
run gen "$T/vadd.cg" -p N=8 -o "$T/new/a/b/"
expect_rc 0 "gen into an existing folder"
# gen --target cuda: the CUDA C as kernels.cu (compile's text under that
# target), with the same manifest; no CUDA device is needed to write it
run gen alexnet.conv5 --strategy s2 --random 1 --target cuda -o "$T/cu"
expect_rc 0 "gen --target cuda"
expect_out "wrote $T/cu/kernels.cu and $T/cu/manifest.json" "gen --target cuda: says what it wrote"
[ -e "$T/cu/kernels.cl" ] && bad "gen --target cuda: an OpenCL file was written too"
grep -q "^// CUDA C (NVRTC), generated by convgen" "$T/cu/kernels.cu" || bad "gen --target cuda: kernels.cu is not CUDA C"
"$CONVGEN" compile alexnet.conv5 --strategy s2 --random 1 --target cuda >"$T/cu.txt" 2>/dev/null
cmp -s "$T/cu.txt" "$T/cu/kernels.cu" || bad "gen --target cuda: kernels.cu differs from compile --target cuda's text"
grep -q '"kernels"' "$T/cu/manifest.json" || bad "gen --target cuda: no manifest"
(trap '' XFSZ && ulimit -f 1 && "$CONVGEN" gen vgg16.conv3_2 --strategy direct -o "$T/full/g" \
  >"$T/out" 2>"$T/err")
rc=$?
expect_rc 2 "gen on a full disk"
expect_err "$T/full/g/kernels.cl: cannot write: File too large" "gen on a full disk: the message names the file"
[ -e "$T/full/g" ] && bad "gen on a full disk: a half-made folder was left: $(ls -A "$T/full/g")"
[ -n "$(ls -A "$T/full")" ] && bad "gen on a full disk: left in the folder above: $(ls -A "$T/full")"

# --dump-ir: the program in the text form on stderr, the source still on stdout.
run compile "$T/vadd.cg" -p N=8 --dump-ir
expect_rc 0 "--dump-ir"
expect_err "out = " "--dump-ir"
expect_err "userfun add" "--dump-ir"
expect_out "__kernel void" "--dump-ir"
# ... and it is printed even when a later stage fails.
run compile "$T/vadd.cg" --dump-ir
expect_rc 2 "--dump-ir with an unbound size"
expect_err "out = " "--dump-ir with an unbound size"

# The program from standard input.
"$CONVGEN" compile - -p N=1024 <"$T/vadd.cg" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "compile -"
expect_out "<stdin>: N=1024" "compile -"

finish
