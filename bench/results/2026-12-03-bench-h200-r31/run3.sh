# Round 31, call 3: batch 8 (round 28's kernels, benched on the final code:
# cuDNN's every algorithm, PyTorch in the lease), then the whole models
# (issue 16): torchvision's ResNet-50, MobileNet V2 and VGG-16 exported with
# random weights and timed in PyTorch (bench/models.py), then run whole by
# `convgen infer --target cuda` with call 2's database (every H200 record so
# far). Carry [".debs"]. The archive is rewritten after each step.
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
D=bench/results/2026-12-03-bench-h200-r31
R=/tmp/r31/call3; mkdir -p $R; W=/tmp/m; mkdir -p $W
save() { tar czf $OUT/call3.tgz --exclude='*.db' --exclude='*.db-*' -C /tmp/r31 call3; }
trap 'rm -f $R/*.db*; save' EXIT
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
gunzip -c bench/results/2026-12-02-bench-h200-r28/call2/b8.db.gz > $R/b8.db
b8="vgg16.conv1_2,n=8 vgg16.conv2_2,n=8 vgg16.conv3_2,n=8 vgg16.conv4_2,n=8 vgg16.conv5_1,n=8"
timeout 100 build/convgen bench $b8 --device nvidia --db $R/b8.db --csv $R/b8_bench.csv > $R/b8_bench.txt 2> $R/b8_bench.log
echo "b8 bench rc=$? $(date -u)" >> $R/info.txt; save
timeout 50 python3 bench/pytorch.py $R/b8_bench.csv --csv $R/b8_pytorch.csv > $R/b8_pytorch.log 2>&1
echo "b8 pytorch rc=$? $(date -u)" >> $R/info.txt
python3 bench/table.py $R/b8_bench.csv $R/b8_pytorch.csv > $R/b8_table.md 2>&1; save
timeout 240 python3 bench/models.py $W --models resnet50,mobilenet_v2,vgg16 --csv $R/pytorch_models.csv > $R/models.txt 2> $R/models.log
echo "models rc=$? $(date -u)" >> $R/info.txt; save
gunzip -c $D/call2/tune.db.gz > $R/tune.db
for net in resnet50 mobilenet_v2 vgg16; do
  timeout 50 build/convgen infer $W/$net.onnx --input $W/${net}_input.pb --expect $W/${net}_output.pb --runs 20 \
    --target cuda --device nvidia --db $R/tune.db -v > $R/infer_${net}_cuda.txt 2> $R/infer_${net}_cuda.log
  echo "infer $net rc=$? $(date -u)" >> $R/info.txt; save
done
cat $R/info.txt; tail -n 8 $R/b8_table.md; cat $R/models.txt; grep -h "time:\|memory\|PASS\|FAIL" $R/infer_*.txt
