# Round 29, call 1 (issue 16): bench/results/next/run.sh's first part, on the
# commit of the round; the image has onnx 1.23 and onnxruntime 1.30.
#  1. infer on the suite's small networks (tests/onnx) under both targets,
#     the values on the device, against onnx's reference outputs
#  2. export MODEL.onnx: ResNet-18 (1/16 width) exported whole under both
#     targets, built (CUDA: the image's toolkit) and run on the GPU
#  3. bench/models.py: ResNet-50, MobileNet V2, VGG-16 (torchvision's, random
#     weights) to ONNX with float64 outputs; PyTorch eager, graph, compile
#  4. the three run whole by convgen infer --expect --runs 20 under both
#     targets with round 28's database (MobileNet V2's pointwise layers
#     untuned there: the direct strategy, said on stderr)
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=$OUT/r; mkdir -p $R; M=tests/onnx; W=/tmp/m; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt 2>&1
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
ls -la $W > $R/models_ls.txt; rm -f $R/*.db-*; gzip $R/tune.db
cat $R/info.txt; grep -h "time:\|PASS\|FAIL\|memory" $R/*.txt; cat $R/models.txt
