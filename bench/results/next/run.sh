# For the next lease (not run: round 28 ran out of device time; copy this
# folder to bench/results/DATE-bench-h200-rNN first): infer with the values on
# the device (051128a), --runs (8a1de82) under both targets on the suite's small
# whole networks (tests/onnx: ResNet-18 at 1/16 width, MobileNet V2 at 1/8,
# 1x3x64x64), against onnx's reference outputs; then ResNet-18 exported whole
# (export MODEL.onnx) under both targets, its program run on the GPU.
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=$OUT/r; mkdir -p $R
M=tests/onnx
for t in opencl cuda; do
  for net in resnet18 mobilenet_v2; do
    timeout 60 build/convgen infer $M/$net.onnx --input $M/${net}_input.pb --expect $M/${net}_output.pb --runs 10 \
      --target $t --device nvidia > $R/infer_${net}_$t.txt 2>&1; echo "$net $t rc=$?" >> $R/info.txt
  done
done
cat $R/info.txt; grep -h "time:\|PASS\|FAIL\|memory" $R/*.txt
# export MODEL.onnx (issue 16): ResNet-18 exported whole under both targets,
# its program built (CUDA: the image's toolkit) and run on the GPU, checking
# itself against infer's output on the same device (never run on a GPU yet:
# the suite builds the CUDA files only, tests/net/test_export_net.c)
for t in opencl cuda; do
  rm -rf /tmp/ex_$t
  { timeout 60 build/convgen export $M/resnet18.onnx --input $M/resnet18_input.pb --target $t --device nvidia \
      -o /tmp/ex_$t && make -C /tmp/ex_$t CUDA=${CUDA:-/usr/local/cuda} && timeout 60 /tmp/ex_$t/network; } \
    > $R/export_$t.txt 2>&1; echo "export resnet18 $t rc=$?" >> $R/info.txt
done
grep -h "PASS\|FAIL\|time:" $R/export_*.txt
