# Round 29, call 2: call 1 again with the ONNX reader built on the GPU
# machine (call 1's convgen had none: the packages protoc-c needs travel in
# .debs now, bench/h200-env.sh), and the weighted random draws of evolve
# (src/tune/search.c) on the first layer tuned from nothing.
#  1. infer on the suite's small networks (tests/onnx), both targets,
#     against onnx's reference outputs
#  2. export MODEL.onnx: ResNet-18 (1/16 width) whole, both targets, built
#     and run on the GPU, checking itself
#  3. bench/models.py: ResNet-50, MobileNet V2, VGG-16 (torchvision's
#     architectures, random weights) to ONNX with float64 outputs, and
#     PyTorch's eager, graph and compile times (again: same lease)
#  4. the three whole by convgen infer --expect --runs 20, both targets,
#     round 28's database
#  5. convgen tune vgg16.conv3_1 --time 120 into an empty database (the
#     defaults; round 28: 89.8 us against 72.8 best known)
# Everything is left in one archive (the call brings back few files).
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=/tmp/r29/call2; mkdir -p $R; M=tests/onnx; W=/tmp/m; mkdir -p $W
trap 'tar czf $OUT/call2.tgz -C /tmp/r29 call2' EXIT
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
cp /tmp/h200-make.log $R/make.log
for t in opencl cuda; do
  for net in resnet18 mobilenet_v2; do
    timeout 60 build/convgen infer $M/$net.onnx --input $M/${net}_input.pb --expect $M/${net}_output.pb --runs 10 \
      --target $t --device nvidia > $R/small_${net}_$t.txt 2>&1; echo "small $net $t rc=$?" >> $R/info.txt
  done
done
for t in opencl cuda; do
  rm -rf /tmp/ex_$t
  { timeout 60 build/convgen export $M/resnet18.onnx --input $M/resnet18_input.pb --target $t --device nvidia \
      -o /tmp/ex_$t && timeout 120 make -C /tmp/ex_$t CUDA=${CUDA:-/usr/local/cuda} && timeout 60 /tmp/ex_$t/network; } \
    > $R/export_$t.txt 2>&1; echo "export resnet18 $t rc=$?" >> $R/info.txt
done
timeout 300 python3 bench/models.py $W --models resnet50,mobilenet_v2,vgg16 --csv $R/pytorch_models.csv > $R/models.txt 2> $R/models.log
echo "models rc=$? $(date -u)" >> $R/info.txt
gunzip -c bench/results/2026-12-02-bench-h200-r28/call4/tune.db.gz > $R/tune.db
for net in resnet50 mobilenet_v2 vgg16; do
  for t in cuda opencl; do
    [ -f $W/$net.onnx ] || continue
    timeout 90 build/convgen infer $W/$net.onnx --input $W/${net}_input.pb --expect $W/${net}_output.pb --runs 20 \
      --target $t --device nvidia --db $R/tune.db -v > $R/infer_${net}_$t.txt 2> $R/infer_${net}_$t.log
    echo "infer $net $t rc=$? $(date -u)" >> $R/info.txt
  done
done
rm -f $R/*.db-*; gzip $R/tune.db
timeout 150 build/convgen tune vgg16.conv3_1 --time 120 --device nvidia --db $R/fresh.db > $R/fresh1.txt 2> $R/fresh1.log
echo "fresh conv3_1 rc=$? $(date -u)" >> $R/info.txt
rm -f $R/*.db-*; gzip $R/fresh.db
cat $R/info.txt; grep -h "time\|PASS\|FAIL\|memory\|error" $R/small_*.txt $R/export_*.txt $R/infer_*.txt | head -60
cat $R/models.txt; tail -4 $R/fresh1.txt
