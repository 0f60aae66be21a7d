#!/usr/bin/env bash
# export-model.sh: `convgen export MODEL.onnx -o DIR` (src/net/export_net.c)
# writes the whole network as infer ran it on the default device: every
# node's kernels, weights.bin, the input and the output of that run, and a
# host program. Each export here is built with its Makefile (warnings as
# errors) and run: it checks itself against the exported output (PASS).
# block.onnx, resnet18.onnx and mobilenet_v2.onnx with their --input,
# tiny.onnx (MaxPool, Gemm, Softmax) on a random one; ONNX's node tests of
# the other operators; tuned kernels with a temporary buffer (s3); the program on other inputs (-i, -o) and on weights
# of another export; --layers keeps the per-layer export; bad input refused
# with nothing written.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
M=tests/onnx

skip_without_onnx
CFLAGS='-O2 -std=c99 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L'

# builds DIR's program and runs it; its output in $T/net.out, its status in $rc
build_and_run() {
  if ! make -s -C "$1" CFLAGS="$CFLAGS" >"$T/make.log" 2>&1; then
    bad "$2: the exported program does not build: $(head -c 600 "$T/make.log")"
    rc=99
    return
  fi
  "$1/network" "${@:3}" >"$T/net.out" 2>&1
  rc=$?
}

for net in block resnet18 mobilenet_v2; do
  run export "$M/$net.onnx" --input "$M/${net}_input.pb" -o "$T/$net"
  expect_rc 0 "export $net.onnx"
  expect_out "wrote network $M/$net.onnx into $T/$net: " "export says what it wrote"
  expect_out "device memory: activations " "export reports the planned device memory"
  for f in convgen_net.c convgen_net.h main.c Makefile weights.bin input_0.bin output_0.bin conv1_0.cl; do
    [ -s "$T/$net/$f" ] || bad "export $net.onnx: no $f"
  done
  # (the .pb's raw float32 data is its last field)
  cmp -s "$T/$net/input_0.bin" <(tail -c "$(stat -c %s "$T/$net/input_0.bin")" "$M/${net}_input.pb") ||
    bad "export $net.onnx: input_0.bin is not the --input's values"
  build_and_run "$T/$net" "$net.onnx"
  [ "$rc" = 0 ] || bad "export $net.onnx: the program exits $rc: $(head -c 600 "$T/net.out")"
  grep -q "  PASS relative L2 error" "$T/net.out" || bad "export $net.onnx: no PASS: $(head -c 600 "$T/net.out")"
  echo "export-model.sh: $net.onnx: $(head -n 1 "$T/out" | grep -o '[0-9]* nodes run [0-9]* kernels'); $(grep -o 'PASS relative L2 error [^ ]*' "$T/net.out")" >&2
done
# Concats joined (net/plan.h): the kernels that write their slices of the
# Concat's output, moved there (`out += N`), built and run by the export
run export "$M/blocks/fire.onnx" --input "$M/blocks/fire_input.pb" -o "$T/fire"
expect_rc 0 "export blocks/fire.onnx"
grep -q "+= 1296;   // its slice of a larger buffer" "$T"/fire/*.cl || bad "export fire.onnx: no kernel writes its slice"
build_and_run "$T/fire" "fire.onnx"
[ "$rc" = 0 ] && grep -q "  PASS relative L2 error" "$T/net.out" || bad "export fire.onnx: $(head -c 600 "$T/net.out")"
run export "$M/block.onnx" --input "$M/block_input.pb" -o "$T/block2"
expect_out "device memory: activations 9216 bytes in 4 buffers (each its own: 9248 bytes), weights 1504 bytes" \
  "block.onnx: the plan's bytes (tests/net/test_plan.c; the residual Add and its ReLU fused into pw), the weights'"
grep -q "planned by liveness (9216 bytes" "$T/block2/convgen_net.c" || bad "convgen_net.c names the plan's bytes"

# the program on other inputs: -i and -o, no check; the same values here
build_and_run "$T/resnet18" "resnet18 -i" -i "$T/resnet18/input_0.bin" -o "$T/y.bin"
[ "$rc" = 0 ] || bad "network -i -o: exit $rc: $(head -c 600 "$T/net.out")"
grep -q "PASS" "$T/net.out" && bad "network -i: no check against the export's output"
cmp -s "$T/y.bin" "$T/resnet18/output_0.bin" || bad "network -i input_0.bin -o: not the exported output"
"$T/resnet18/network" -i "$T/y.bin" >"$T/net.out" 2>&1
[ $? = 2 ] && grep -q "40 bytes, not the 49152 of 12288 floats (a .npy file of float32, or the raw float32 values, little-endian; ./network --help)" "$T/net.out" || bad "network -i of the wrong size: $(cat "$T/net.out")"
# .npy both ways (numpy's format 1.0 as npy.c writes it, float32, the
# input's shape): the same values as the raw files; -o y.npy the output's shape
npy_of() {   # npy_of RAW DIMS... OUT: the raw floats as a .npy file, a 1.0 header written here
  local raw=$1 out=${*: -1} shape dims=("${@:2:$#-2}")
  shape=$(printf '%s, ' "${dims[@]}")
  local h="{'descr': '<f4', 'fortran_order': False, 'shape': (${shape}), }"
  while [ $(( (10 + ${#h} + 1) % 64 )) != 0 ]; do h+=" "; done
  { printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $(( (${#h} + 1) % 256 )))\\x$(printf %02x $(( (${#h} + 1) / 256 )))"
    printf '%s\n' "$h"; cat "$raw"; } >"$out"
}
npy_of "$T/resnet18/input_0.bin" 1 3 64 64 "$T/x.npy"
build_and_run "$T/resnet18" "resnet18 -i x.npy" -i "$T/x.npy" -o "$T/y.npy"
[ "$rc" = 0 ] || bad "network -i x.npy -o y.npy: exit $rc: $(head -c 600 "$T/net.out")"
npy_of "$T/resnet18/output_0.bin" 1 10 "$T/want.npy"
cmp -s "$T/y.npy" "$T/want.npy" || bad "network -o y.npy: not the exported output as a .npy of 1x10"
npy_of "$T/resnet18/input_0.bin" 12288 "$T/flat.npy"
build_and_run "$T/resnet18" "resnet18 -i flat.npy" -i "$T/flat.npy" -o "$T/y2.bin"
[ "$rc" = 0 ] && cmp -s "$T/y2.bin" "$T/resnet18/output_0.bin" || bad "network -i of a .npy of 12288 values: $rc"
"$T/resnet18/network" -i "$T/want.npy" >"$T/net.out" 2>&1
[ $? = 2 ] && grep -q "want.npy: 10 values, not the 12288 of the tensor" "$T/net.out" ||
  bad "network -i of a .npy of another size: $(cat "$T/net.out")"
sed 's/<f4/<f8/' "$T/x.npy" >"$T/x8.npy"
"$T/resnet18/network" -i "$T/x8.npy" >"$T/net.out" 2>&1
[ $? = 2 ] && grep -q "not float32 ('<f4') in C order" "$T/net.out" || bad "network -i of a .npy of float64: $(cat "$T/net.out")"
head -c 5 "$T/x.npy" >"$T/cut.npy"
"$T/resnet18/network" -i "$T/cut.npy" >"$T/net.out" 2>&1
[ $? = 2 ] && grep -q "not a .npy file" "$T/net.out" || bad "network -i of a cut .npy: $(cat "$T/net.out")"
"$T/resnet18/network" -x >"$T/net.out" 2>&1
[ $? = 2 ] && grep -q "usage: network" "$T/net.out" || bad "network -x: a usage error"
# --help: exit 0, the options, and each tensor's file: its shape and format
"$T/resnet18/network" --help >"$T/net.out" 2>&1
[ $? = 0 ] || bad "network --help: exit $?"
grep -q "a .npy file of" "$T/net.out" && grep -q "raw float32" "$T/net.out" ||
  bad "network --help: no word on the files' formats"
grep -q "^    x: 1x3x64x64 (12288 float32 values, 49152 bytes; the export.s: input_0.bin)" "$T/net.out" ||
  bad "network --help: the input's shape and file: $(cat "$T/net.out")"
cp "$T/block/weights.bin" "$T/resnet18/weights.bin"
"$T/resnet18/network" >"$T/net.out" 2>&1
[ $? = 2 ] && grep -q "not the weights of this export" "$T/net.out" || bad "another export's weights: $(cat "$T/net.out")"

# a random input (--seed), the graph's input shape from the model
run export "$M/tiny.onnx" -o "$T/tiny" --seed 3
expect_rc 0 "export tiny.onnx on a random input"
[ "$(stat -c %s "$T/tiny/input_0.bin")" = 3072 ] || bad "export tiny.onnx: input_0.bin is not 1x3x16x16 floats"
build_and_run "$T/tiny" "tiny.onnx"
[ "$rc" = 0 ] && grep -q "output y: 1x10  PASS" "$T/net.out" || bad "export tiny.onnx: $(head -c 600 "$T/net.out")"

# -d takes a device index: a word or a negative number is a usage error (it
# was read with atoi, so -d abc ran on device 0). Built with AddressSanitizer
# where the compiler has it, its error paths free what they allocated (a
# device that is not there leaked the inputs read before).
for dev in abc -1 1x ''; do
  "$T/tiny/network" -d "$dev" >"$T/net.out" 2>&1
  [ $? = 2 ] && grep -q "^network: $dev: -d takes a device index, a whole number 0 or more" "$T/net.out" &&
    grep -q "usage: network" "$T/net.out" || bad "network -d '$dev': a usage error: $(cat "$T/net.out")"
  grep -q "^device:" "$T/net.out" && bad "network -d '$dev' ran on a device"
done
if echo 'int main(void) { return 0; }' | cc -fsanitize=address -x c -o "$T/asan" - 2>/dev/null; then
  cp -r "$T/tiny" "$T/tiny-asan"
  if make -s -C "$T/tiny-asan" -B CFLAGS="$CFLAGS -g -fsanitize=address" >"$T/make.log" 2>&1; then
    asan_run() {
      ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp "$T/tiny-asan/network" "$@" \
        >"$T/net.out" 2>&1
      rc=$?
      grep -q "Sanitizer" "$T/net.out" && bad "network $*: its error path leaks: $(grep SUMMARY "$T/net.out")"
    }
    asan_run -d 99
    [ "$rc" = 2 ] && grep -q "no OpenCL device with that index" "$T/net.out" || bad "network -d 99: $(cat "$T/net.out")"
    asan_run -i "$T/tiny/output_0.bin"
    [ "$rc" = 2 ] || bad "network -i of the wrong size: exit $rc"
    cp "$T/block/weights.bin" "$T/tiny-asan/weights.bin"
    asan_run
    [ "$rc" = 2 ] && grep -q "not the weights of this export" "$T/net.out" || bad "another export's weights: $(cat "$T/net.out")"
  else
    bad "the export does not build with -fsanitize=address: $(head -c 600 "$T/make.log")"
  fi
fi

# tuned kernels: the records of --db, a temporary buffer between s3's two kernels
run tune "$M/block.onnx" --strategy s3 --budget 2 --db "$T/s3.db"   # (dw, depthwise, has none: exit 1)
expect_out "tests/onnx/block.onnx:conv1  s3 " "tune block.onnx with s3"
run export "$M/block.onnx" --input "$M/block_input.pb" -o "$T/s3" --db "$T/s3.db" -v
expect_rc 0 "export with tuned kernels"
expect_err "node conv1 (Conv): tuned s3 " "-v: the tuned record taken"
grep -q "temporaries [1-9][0-9]* bytes" "$T/out" || bad "s3's partial sums: no temporaries"
grep -q "CGN_T(0)" "$T/s3/convgen_net.c" || bad "s3's kernels read a temporary"
build_and_run "$T/s3" "export with s3"
[ "$rc" = 0 ] && grep -q "PASS" "$T/net.out" || bad "export with s3: $(head -c 600 "$T/net.out")"
grep -q "6 kernels" "$T/net.out" || bad "export with s3: two kernels for each s3 layer (pw's with its residual)"
# a temporary placed in an activation buffer free while its step runs (NetStep.in_buffer): ResNet-18's s3
# partial sums of its later layers in its first layers' buffers; infer and the export place them alike
run tune "$M/resnet18.onnx" --strategy s3 --budget 1 --db "$T/r18.db"
run infer "$M/resnet18.onnx" --input "$M/resnet18_input.pb" --expect "$M/resnet18_output.pb" --db "$T/r18.db"
expect_out "PASS" "ResNet-18's s3 kernels, some temporaries in activation buffers"
shared=$(sed -n "s/.*the nodes' temporaries \([0-9.]*\) MB.*/\1/p" "$T/out")
run export "$M/resnet18.onnx" --input "$M/resnet18_input.pb" -o "$T/r18s3" --db "$T/r18.db"
largest=$(sed -n 's/.*temporaries \([0-9]*\) bytes.*/\1/p' "$T/out")
[ -n "$shared" ] && [ "$shared" = "$(awk -v b="${largest:-x}" 'BEGIN { printf "%.3f", b / 1e6 }')" ] ||
  bad "infer's temporaries ($shared MB) are not the exported program's ($largest bytes)"
# s3's second kernel (k1) reads its partial sums from a buffer of the plan: CGN_B, not CGN_T, before its weights
grep -q '"k1", .*{CGN_B([0-9]*), CGN_C(' "$T/r18s3/convgen_net.c" || bad "no temporary of ResNet-18's s3 steps in an activation buffer"
build_and_run "$T/r18s3" "export with s3's temporaries in activation buffers"
[ "$rc" = 0 ] && grep -q "PASS" "$T/net.out" || bad "export with s3's temporaries in activation buffers: $(head -c 600 "$T/net.out")"

# ONNX's node tests of the operators the models above lack (AveragePool's
# counts: an array a node makes; a batch norm of a graph input, a Mul and an
# Add of its scale and shift made at import; Concat,
# MatMul, Gemm with three graph inputs, LeakyRelu; no weights at all), each
# exported, built and run; a batch norm whose parameters are graph inputs is
# refused
D=/usr/share/libonnx-testdata/data
for t in node/test_averagepool_2d_pads node/test_averagepool_2d_ceil node/test_concat_2d_axis_1 node/test_matmul_3d \
         node/test_gemm_default_matrix_bias node/test_leakyrelu node/test_softmax_axis_1 node/test_maxpool_2d_dilations \
         pytorch-converted/test_BatchNorm2d_momentum_eval pytorch-operator/test_operator_concat2; do
  [ -e "$D/$t/model.onnx" ] || continue
  args=()
  for f in $(ls "$D/$t"/test_data_set_0/input_*.pb | sort -V); do args+=(--input "$f"); done
  run export "$D/$t/model.onnx" "${args[@]}" -o "$T/${t#*/}"
  expect_rc 0 "export $t"
  build_and_run "$T/${t#*/}" "$t"
  [ "$rc" = 0 ] && grep -q "  PASS" "$T/net.out" || bad "export $t: $(head -c 600 "$T/net.out")"
done
if [ -d "$D/node/test_batchnorm_epsilon" ]; then
  usage_error "a batch norm's parameters as graph inputs" "node #0 (BatchNormalization): its program is compiled with" \
    export "$D/node/test_batchnorm_epsilon/model.onnx" -o "$T/bad"
fi

# --layers: the model's convolutions, as before
run tune "$M/block.onnx" --budget 2 --db "$T/t.db"
run export --layers "$M/block.onnx" -o "$T/layers" --db "$T/t.db"
expect_rc 0 "export --layers MODEL.onnx"
expect_out "wrote 3 layers into $T/layers" "--layers: the per-layer export"
[ -s "$T/layers/example.c" ] && [ ! -e "$T/layers/main.c" ] || bad "--layers: not the per-layer files"
# pw with its residual (residual=1): cgk_run_residual, the example's check adding it
if make -s -C "$T/layers" CFLAGS="$CFLAGS" >"$T/make.log" 2>&1; then
  "$T/layers/example" >"$T/ex.out" 2>&1 || bad "--layers: the example fails: $(head -c 600 "$T/ex.out")"
  grep -q "block.onnx:pw PASS" "$T/ex.out" || bad "--layers: the residual layer not checked: $(head -c 600 "$T/ex.out")"
  grep -q "relu=1,residual=1" "$T/layers/convgen_kernels.c" || bad "--layers: pw exported without its residual"
else
  bad "--layers: the example does not build: $(head -c 600 "$T/make.log")"
fi

# bad input: a message, a non-zero status, nothing written
usage_error "export a model without -o" "missing -o DIR" export "$M/block.onnx"
usage_error "a model and a layer" "a MODEL.onnx is exported whole, alone" \
  export "$M/block.onnx" vgg16.conv1_1 -o "$T/bad"
usage_error "a model for a profile" "--profile: a model is exported for the device it runs on" \
  export "$M/block.onnx" --profile mali-g72 -o "$T/bad"
expect_err "run convgen-server there and export with --device HOST:PORT" "the refusal says how a model is exported for another device"
usage_error "two --input for one graph input" "has 1 input; 2 --input given" \
  export "$M/block.onnx" --input "$M/block_input.pb" --input "$M/block_input.pb" -o "$T/bad"
usage_error "--input with layers" "--input is for a MODEL.onnx exported whole" \
  export vgg16.conv1_1 --input "$M/block_input.pb" -o "$T/bad"
usage_error "a model infer refuses" "node pool (MaxPool): its second output, Indices" \
  export "$M/bad_pool_indices.onnx" -o "$T/bad"
[ -e "$T/bad" ] && bad "a refused export wrote $T/bad"
: >"$T/file"
usage_error "DIR an existing file" "$T/file: exists and is not a folder" export "$M/block.onnx" -o "$T/file"
usage_error "DIR under a file" "cannot create" export "$M/block.onnx" -o "$T/file/sub/dir"
[ -s "$T/file" ] && bad "DIR an existing file: it was written"
mkdir -p "$T/ro" && chmod 555 "$T/ro"
if ! touch "$T/ro/probe" 2>/dev/null; then   # (root writes anyway)
  usage_error "DIR in a read-only folder" "cannot create the folder" export "$M/block.onnx" -o "$T/ro/ex"
fi
[ -z "$(ls -A "$T/ro")" ] || rm -f "$T/ro/probe"
[ -z "$(ls -A "$T/ro")" ] || bad "a read-only folder: left in it: $(ls -A "$T/ro")"
ls -l --time-style=full-iso "$T/block" >"$T/before"
usage_error "a refused model into an existing export" "node pool (MaxPool)" \
  export "$M/bad_pool_indices.onnx" -o "$T/block"
ls -l --time-style=full-iso "$T/block" | cmp -s - "$T/before" || bad "a refused export touched the existing folder"
ls -A "$T" | grep -q '\.tmp\.' && bad "a half-made folder was left: $(ls -A "$T")"
if [ -d "$D/node/test_clip" ]; then   # Clip's bounds as graph inputs: the program would fix them
  usage_error "bounds from the graph's inputs" "node #0 (Clip): its program is compiled with the values of 'max'" \
    export "$D/node/test_clip/model.onnx" -o "$T/bad"
fi
if [ -z "$(ldconfig -p 2>/dev/null | grep libcuda.so.1)" ]; then
  expect_refusal 4 "export a model under CUDA without the driver" "cannot load the CUDA driver" \
    export "$M/block.onnx" --target cuda -o "$T/bad"
fi
[ -e "$T/bad" ] && bad "a refused export wrote $T/bad"
finish
