# For the next lease (not run yet; copy this folder to
# bench/results/DATE-bench-h200-rNN first). About 9 minutes.
# Before the call: nothing to fetch (the image has onnx and onnxruntime).
#   mkdir -p .wheels && pip download onnx==1.16.1 protobuf --python-version 3.12 \
#     --only-binary=:all: --platform manylinux2014_x86_64 --no-deps -d .wheels
#   echo /.wheels/ >> .git/info/exclude     # and carry [".debs", ".wheels"]
# (onnx's wheel is 16 MB: with the tree and .debs under the 64 MiB a call takes.)
#  1. infer with the values on the device (051128a) and --runs (8a1de82) under
#     both targets on the suite's small networks (tests/onnx), against onnx's
#     reference outputs: round 28 ran out of device time before it
#  2. bench/models.py: ResNet-50 and MobileNet V2 (torchvision's, random
#     weights) exported to ONNX with their float64 outputs, and PyTorch's eager,
#     graph and torch.compile times and peak memory
#  3. ResNet-18 (1/16 width) exported whole (export MODEL.onnx) under both
#     targets, its program built and run on the GPU, checking itself
#  4. MobileNet V2's layers tuned under CUDA (ResNet-50's were in round 28),
#     then both networks run whole by convgen infer --expect --runs 20
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=$OUT/r; mkdir -p $R
M=tests/onnx
for t in opencl cuda; do
  for net in resnet18 mobilenet_v2; do
    timeout 60 build/convgen infer $M/$net.onnx --input $M/${net}_input.pb --expect $M/${net}_output.pb --runs 10 \
      --target $t --device nvidia > $R/small_${net}_$t.txt 2>&1; echo "small $net $t rc=$?" >> $R/info.txt
  done
done
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
pip install --no-deps --target /tmp/py .wheels/*.whl > $R/pip.log 2>&1; export PYTHONPATH=/tmp/py
timeout 240 python3 bench/models.py $R --models resnet50,mobilenet_v2 --csv $R/pytorch_models.csv > $R/models.txt 2> $R/models.log
echo "models rc=$? $(date -u)" >> $R/info.txt
gunzip -c bench/results/2026-12-02-bench-h200-r28/call4/tune.db.gz > $R/tune.db
build/convgen tune $R/mobilenet_v2.onnx --target cuda --time 120 --device nvidia --db $R/tune.db > $R/tune.txt 2> $R/tune.log
for net in resnet50 mobilenet_v2; do
  timeout 120 build/convgen infer $R/$net.onnx --input $R/${net}_input.pb --expect $R/${net}_output.pb --runs 20 \
    --target cuda --device nvidia --db $R/tune.db -v > $R/infer_$net.txt 2> $R/infer_$net.log
  echo "infer $net rc=$? $(date -u)" >> $R/info.txt
done
rm -f $R/*.onnx $R/*.db-*; gzip $R/tune.db
cat $R/info.txt; grep -h "time:\|PASS\|FAIL\|memory" $R/*.txt; cat $R/models.txt
