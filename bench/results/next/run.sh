# For the next lease (not run: round 28 ran out of device time; copy this
# folder to bench/results/DATE-bench-h200-rNN first): infer with the values on
# the device (051128a), --runs (8a1de82) under both targets on the suite's small
# whole networks (tests/onnx: ResNet-18 at 1/16 width, MobileNet V2 at 1/8,
# 1x3x64x64), against onnx's reference outputs.
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
