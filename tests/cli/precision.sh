#!/usr/bin/env bash
# precision.sh: a layer in fp16 (precision=fp16) from the command line: its
# program declares half tensors, each strategy's random point runs and
# passes within the half tolerance (dw's vector reads too), tune records it apart from the same
# layer in fp32 (the database's key is the canonical form, which names
# precision only when it is not fp32), best and bench find it, and bench
# says why CLBlast (fp32 only) does not run; --precision does what the key
# does, for specs, networks and models; a model runs in fp16 under infer and
# bench (its tensors half in memory, its convolutions' fp16 records, checked
# within the bound of its roundings) and is exported so (half on the device,
# float32 files); a tf32 layer runs tc's one-TF32-product tiles within
# tf32's bound and is a layer of its own; bf16 and unknown precisions are refused.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
L=n=1,c=8,h=10,w=10,k=8,pad=1,bias=1,relu=1

# The exported program in folder $1 built and run on the export's own input
# (its check): rc, out and err as run leaves them; false when it does not
# build here, and then its checks are skipped.
run_network() {
  make -C "$1" >/dev/null 2>&1 || return 1
  "$1/network" >"$T/out" 2>"$T/err"
  rc=$?
}

run compile "$L,precision=fp16" --strategy s2 --random 1 --dump-ir
expect_rc 0 "compile an fp16 layer"
expect_err "input x: [[[[half]10]10]8]1" "the program's input is half"
expect_err "out: [[[[half]10]10]8]1 =" "the program's output is declared half"
expect_out "vload_half(" "the kernel reads half"
expect_out "vstore_half(" "the kernel writes half"

for s in direct s1 s2 s3; do
  run run "$L,precision=fp16" --strategy "$s" --random 2 --seed 5
  expect_rc 0 "run $s on an fp16 layer"
  expect_out "(tolerance 0.000588, seed 5)" "run $s: the half tolerance, 1e-4 + 2^-11"
done
run run "$L" --strategy s2 --random 2 --seed 5
expect_out "(tolerance 0.0001, seed 5)" "run on an fp32 layer: 1e-4"
run run "n=1,c=8,h=10,w=10,k=8,pad=1,groups=8,precision=fp16" --strategy dw --random 1
expect_rc 0 "run dw on an fp16 depthwise layer"
for lv in 2 3; do   # the patch read as float2 and float4 vectors from half (vload_half2, vload_half4)
  run run "n=1,c=8,h=10,w=12,k=8,pad=1,groups=8,bias=1,precision=fp16" --strategy dw --param LV=$lv --random 1
  expect_rc 0 "run dw LV=$lv on an fp16 layer"
done
run compile "n=1,c=8,h=10,w=12,k=8,pad=1,groups=8,bias=1,precision=fp16" --strategy dw --param LV=3 --random 1
expect_out "vload_half4(" "dw LV=3 on an fp16 layer reads half vectors"

run tune "$L" "$L,precision=fp16" --db "$T/t.db" --budget 2
expect_rc 0 "tune the layer in fp32 and in fp16"
run best "$L,precision=fp16" --db "$T/t.db"
expect_rc 0 "best of the fp16 layer"
expect_out "$L,precision=fp16" "best names the fp16 layer"
n16=$(grep -c "precision=fp16" "$T/out")
[ "$n16" -eq 1 ] || bad "best of the fp16 layer lists it once ($n16)"
run best "$L" --db "$T/t.db"
expect_rc 0 "best of the fp32 layer"
grep -q "precision=fp16" "$T/out" && bad "the fp32 layer's best is not the fp16 layer's"
run bench "$L,precision=fp16" --db "$T/t.db" --runs 10
expect_rc 0 "bench an fp16 layer"
expect_err "called in fp32 only, and this layer is fp16" "bench says why CLBlast does not run"
# cuDNN runs fp16 layers in fp16 (here, with no NVIDIA device, it says that instead)
grep "cudnn" "$T/err" | grep -q "fp32 only" && bad "bench: cuDNN takes fp16 layers"

# --precision: the same as precision= in each spec, network and model
run compile "$L" --strategy s2 --random 1 --precision fp16 --dump-ir
expect_rc 0 "compile --precision fp16"
expect_err "input x: [[[[half]10]10]8]1" "--precision fp16 makes the program's tensors half"
run compile "$L" --strategy s2 --random 1 --precision fp16
cp "$T/out" "$T/opt.cl"
run compile "$L,precision=fp16" --strategy s2 --random 1
cmp -s "$T/out" "$T/opt.cl" || bad "--precision fp16 and precision=fp16 give the same kernel"
run space vgg16.conv3_2 --strategy all --precision fp16
expect_out "layer     vgg16.conv3_2,precision=fp16" "space names the layer with its precision"
run best "$L" --precision fp16 --db "$T/t.db"
expect_rc 0 "best --precision fp16"
expect_out "$L,precision=fp16" "best --precision fp16 finds the fp16 layer's record"
run best vgg16 --precision fp16 --db "$T/t.db"
expect_rc 1 "best of a network in fp16, untuned"
expect_out "vgg16.conv1_1,precision=fp16" "a network's layers take --precision, named so"
usage_error "a spec's own precision against --precision" "gives precision=fp32, and --precision fp16 another" \
  compile "$L,precision=fp32" --strategy s2 --random 1 --precision fp16
run compile "$L,precision=fp16" --strategy s2 --random 1 --precision fp16
expect_rc 0 "a spec's own precision that --precision repeats"
usage_error "--precision bf16" "--precision bf16: precision bf16 is not built yet" compile "$L" --strategy s2 --random 1 \
  --precision bf16
usage_error "--precision half" "unknown precision 'half'" tune "$L" --precision half --db "$T/t.db"
usage_error "--precision with a program FILE" "--precision is a layer's (with --strategy S)" \
  compile examples/ir/vector_add.cg -p N=16 --precision fp16
usage_error "export of an fp16 layer" "a layer in fp16 is not exported yet (the exported host code is fp32" \
  export "$L" --precision fp16 --db "$T/t.db" -o "$T/exp"
[ -e "$T/exp" ] && bad "a refused export leaves no folder"
skip_without_onnx   # (the rest needs the ONNX reader)
run bench tests/onnx/block.onnx --precision fp16 --db "$T/t.db" --budget 1 --runs 10
expect_rc 0 "bench a model's convolutions in fp16"
expect_out ",precision=fp16" "bench of a model in fp16: its convolutions in fp16"
expect_out "network tests/onnx/block.onnx on " "bench of a model in fp16 runs the network whole"
expect_out ", its tensors in fp16, random inputs" "bench's network in fp16 says so"
# a model exported in fp16: every tensor half on the device (the weights' bytes halve), float32 files and API, the
# program's run the same as infer's (weights and inputs rounded to half alike) and checked within fp16's bound
run export tests/onnx/block.onnx --input tests/onnx/block_input.pb --db "$T/t.db" -o "$T/ex32f"
expect_rc 0 "export of a model in fp32"
w32=$(sed -n 's/^device memory: .*weights \([0-9]*\) bytes.*/\1/p' "$T/out")
run export tests/onnx/block.onnx --input tests/onnx/block_input.pb --precision fp16 --db "$T/t.db" -o "$T/ex16"
expect_rc 0 "export of a model in fp16"
w16=$(sed -n 's/^device memory: .*weights \([0-9]*\) bytes.*/\1/p' "$T/out")
[ -n "$w16" ] && [ $((w16 * 2)) = "$w32" ] || bad "export in fp16 halves the weights' device memory (fp32 $w32, fp16 $w16)"
grep -q '^#define CGN_ELEM_BYTES 2 ' "$T/ex16/convgen_net.c" || bad "the exported fp16 network's elements are 2 bytes"
cmp -s "$T/ex16/weights.bin" "$T/ex32f/weights.bin" || bad "weights.bin stays float32 in fp16 (the same file as fp32's)"
if run_network "$T/ex16"; then
  expect_rc 0 "the exported fp16 network"
  expect_out "PASS relative L2 error 0 against output_0.bin" "the exported fp16 network computes what infer did"
  expect_out "weights $w16 bytes" "the exported fp16 network's weights are half on the device"
  "$T/ex16/network" -i "$T/ex16/input_0.bin" -o "$T/y16.bin" >"$T/out" 2>"$T/err"
  rc=$?
  expect_rc 0 "the exported fp16 network on an input file"
  [ "$(stat -c %s "$T/y16.bin")" = 32 ] || bad "the exported fp16 network writes its output as float32"
fi
# bench tuned the model's convolutions as fp16 layers: infer in fp16 runs those records, infer in fp32 does not
run infer tests/onnx/block.onnx --input tests/onnx/block_input.pb --expect tests/onnx/block_output.pb --db "$T/t.db" --precision fp16 -v
expect_rc 0 "infer of a model in fp16"
grep -q "(Conv): tuned " "$T/err" || bad "infer in fp16 runs its convolutions' fp16 records"
grep -q "(Conv): not tuned" "$T/err" && bad "infer in fp16: every convolution has its fp16 record"
run infer tests/onnx/block.onnx --input tests/onnx/block_input.pb --db "$T/t.db" -v
grep -q "(Conv): tuned " "$T/err" && bad "infer in fp32 takes no fp16 record"

# A network in fp16: every tensor half in memory (the activations' and the
# weights' bytes halve), every sum in fp32, the output within the bound of
# its roundings (net_tolerance: 1e-4 + 2^-11 a rounding on the longest path)
M=tests/onnx/mobilenet_v3
run infer $M.onnx --input ${M}_input.pb --expect ${M}_output.pb --db "$T/none.db"
expect_rc 0 "infer in fp32"
mem32=$(sed -n 's/^device memory: activations \([0-9.]*\) MB.*weights \([0-9.]*\) MB.*/\1 \2/p' "$T/out")
run infer $M.onnx --input ${M}_input.pb --expect ${M}_output.pb --db "$T/none.db" --precision fp16 -v
expect_rc 0 "infer --precision fp16"
expect_out "PASS relative L2 error" "infer in fp16 passes its check"
expect_out ", fp16)" "infer in fp16 names its precision beside the tolerance"
mem16=$(sed -n 's/^device memory: activations \([0-9.]*\) MB.*weights \([0-9.]*\) MB.*/\1 \2/p' "$T/out")
echo "$mem32 $mem16" | awk '{ if ($3 * 2 > $1 * 1.01 || $3 * 2 < $1 * 0.99 || $4 * 2 > $2 * 1.01 || $4 * 2 < $2 * 0.99) exit 1 }' ||
  bad "infer in fp16 halves the activations and the weights (fp32: $mem32 MB, fp16: $mem16 MB)"
expect_err "--precision fp16\` tunes them" "the note on untuned layers names the precision to tune"
err=$(sed -n 's/.*PASS relative L2 error \([0-9.e+-]*\) .*/\1/p' "$T/out")
awk -v e="$err" 'BEGIN { exit !(e > 1e-5) }' || bad "infer in fp16 rounds (error $err, as small as fp32's)"
# a model exported in tf32: its convolutions' tf32 records, float32 buffers, the program's check within infer's bound
run export tests/onnx/block.onnx --input tests/onnx/block_input.pb --precision tf32 --db "$T/t.db" -o "$T/ex32"
expect_rc 0 "export of a model in tf32"
grep -q '"output_0.bin", 0.00302969}' "$T/ex32/convgen_net.c" || bad "the exported output's tolerance is tf32's (1e-4 + 6 * 2^-11)"
if run_network "$T/ex32"; then
  expect_rc 0 "the exported tf32 network"
  expect_out "PASS relative L2 error" "the exported tf32 network passes its check"
  expect_out "(tolerance 0.00303)" "the exported tf32 network's check says its bound"
fi
# a network in tf32: float tensors, its convolutions tf32 layers, checked within 1e-4 + 2^-11 for each of the
# two roundings of a convolution on the longest path
run infer $M.onnx --input ${M}_input.pb --expect ${M}_output.pb --db "$T/none.db" --precision tf32
expect_rc 0 "infer --precision tf32"
expect_out ", tf32)" "infer in tf32 names its precision beside the tolerance"
mem=$(sed -n 's/^device memory: activations \([0-9.]*\) MB.*weights \([0-9.]*\) MB.*/\1 \2/p' "$T/out")
[ "$mem" = "$mem32" ] || bad "infer in tf32 keeps fp32's memory ($mem MB against $mem32)"
# expected values below half's range (a model of random weights whose
# logits are 1e-10): the fp16 check fails and says why
python3 - "$T/tiny.npy" <<'PY'
import struct, sys
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 10), }"
header += " " * (63 - (10 + len(header)) % 64) + "\n"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<10f", *[1e-10 * (k - 4.5) for k in range(10)]))
PY
run infer $M.onnx --input ${M}_input.pb --expect "$T/tiny.npy" --db "$T/none.db" --precision fp16
expect_rc 1 "infer in fp16 against values below half's range"
expect_err "below half's smallest normal value (6.1e-05)" "infer in fp16 says the expected values are past half"
# a wrong expected output (another model's, of the same shape) fails the fp16 check
run infer $M.onnx --input ${M}_input.pb --expect tests/onnx/mobilenet_v2_output.pb --db "$T/none.db" --precision fp16
expect_rc 1 "infer in fp16 against a wrong output"
expect_out "FAIL relative L2 error" "infer in fp16 against a wrong output says FAIL"
grep -q "half's" "$T/err" && bad "a wrong output within half's range gets no note on half's range"

usage_error "precision=bf16" "precision=bf16 is not built yet" run "$L,precision=bf16" --strategy s2 --random 1

# tf32: float tensors, tc's tile products one TF32 product a step (mmaTF32,
# cuDNN's TF32 math) where fp32 takes three; checked within 1e-4 + 4 * 2^-11
run compile "$L,precision=tf32" --strategy tc --random 1 --target cuda
expect_rc 0 "compile a tf32 layer with tc for CUDA"
expect_out "= cg_mma_tf32(" "a tf32 layer's tc kernel takes one TF32 product a step"
grep -q "= cg_mma_3xtf32(" "$T/out" && bad "a tf32 layer's tc kernel takes no three-product step"
run compile "$L" --strategy tc --random 1 --target cuda
expect_out "= cg_mma_3xtf32(" "an fp32 layer's tc kernel keeps fp32's accuracy"
run compile "$L" --strategy tc --random 1 --precision tf32 --dump-ir
expect_err "input x: [[[[float]10]10]8]1" "a tf32 layer's tensors are float"
expect_err "mmaTF32(" "the derived program of a tf32 layer calls mmaTF32"
run run "$L,precision=tf32" --strategy tc --random 1 --seed 5
expect_rc 0 "run tc on a tf32 layer"
expect_out "(tolerance 0.00205, seed 5)" "run: the tf32 tolerance, 1e-4 + 4 * 2^-11"
err=$(sed -n 's/.*PASS  relative L2 error \([0-9.e+-]*\) .*/\1/p' "$T/out")
awk -v e="$err" 'BEGIN { exit !(e > 1e-5) }' || bad "tc on a tf32 layer rounds to TF32 (error $err, as small as fp32's)"
run run "$L,precision=tf32" --strategy s2 --random 1 --seed 5
expect_rc 0 "run s2 on a tf32 layer (exact fp32 is within tf32's bound)"
run tune "$L,precision=tf32" --db "$T/t.db" --budget 2
expect_rc 0 "tune the tf32 layer"
run best "$L,precision=tf32" --db "$T/t.db"
expect_out "$L,precision=tf32" "best names the tf32 layer, a layer of its own"
run bench "$L,precision=tf32" --db "$T/t.db" --runs 10
expect_rc 0 "bench a tf32 layer"
grep "clblast" "$T/err" | grep -q "fp32 only" && bad "bench: CLBlast runs a tf32 layer (float tensors, exact)"
usage_error "export of a tf32 layer" "a layer in tf32 is not exported yet" \
  export "$L" --precision tf32 --db "$T/t.db" -o "$T/exp"
usage_error "precision=fp8" "unknown precision 'fp8'" compile "$L,precision=fp8" --strategy s2 --random 1
finish
