# Round 30, call 2. About 9 minutes. Carry [".debs"].
#  1. batch 8 (issue 12's last target): the three layers where round 28's
#     kernels trailed cuDNN's direct algorithm (conv1_2, conv2_2, conv5_1
#     at n=8), round 28's batch-8 database warm-started, 45 s more each
#     under OpenCL; bench (cuDNN's every algorithm) and PyTorch on the five
#     batch-8 layers; then the profile of conv1_2,n=8's best kernel (ncu
#     through ptxrun) and of the kernels PyTorch's cuDNN runs for it (ncu on
#     cudnn_profile.py)
#  2. ResNet-50 tuned again under CUDA, 60 s (call 1 left its last layer with
#     no kernel: fixed in 20fa917), and both models run whole again
#     (temporaries shared by the nodes since then)
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
D=bench/results/2026-12-02-bench-h200-r30
R=/tmp/r30/call2; mkdir -p $R/prof; W=/tmp/m; mkdir -p $W
save() { tar czf $OUT/call2.tgz --exclude='*.db' --exclude='*.db-*' -C /tmp/r30 call2; }
trap 'rm -f $R/*.db-*; for f in $R/*.db; do [ -f "$f" ] && gzip -f "$f"; done; save' EXIT
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
gunzip -c bench/results/2026-12-02-bench-h200-r28/call2/b8.db.gz > $R/b8.db
b8="vgg16.conv1_2,n=8 vgg16.conv2_2,n=8 vgg16.conv3_2,n=8 vgg16.conv4_2,n=8 vgg16.conv5_1,n=8"
timeout 150 build/convgen tune vgg16.conv1_2,n=8 vgg16.conv2_2,n=8 vgg16.conv5_1,n=8 --time 135 --warm-start 8 \
  --device nvidia --db $R/b8.db > $R/b8_tune.txt 2> $R/b8_tune.log
echo "b8 tune rc=$? $(date -u)" >> $R/info.txt; save
timeout 100 build/convgen bench $b8 --device nvidia --db $R/b8.db --csv $R/b8_bench.csv > $R/b8_bench.txt 2> $R/b8_bench.log
echo "b8 bench rc=$? $(date -u)" >> $R/info.txt; save
timeout 50 python3 bench/pytorch.py $R/b8_bench.csv --csv $R/b8_pytorch.csv > $R/b8_pytorch.log 2>&1
echo "b8 pytorch rc=$? $(date -u)" >> $R/info.txt
python3 bench/table.py $R/b8_bench.csv $R/b8_pytorch.csv > $R/b8_table.md 2>&1; save
timeout 60 bash bench/profile.sh $R/prof $R/b8.db nvidia vgg16.conv1_2,n=8 > $R/prof.log 2>&1
echo "profile rc=$? $(date -u)" >> $R/info.txt; save
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -n 1)
timeout 60 $ncu --profile-from-start off --section SpeedOfLight --section LaunchStats --section Occupancy \
  --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis python3 $D/cudnn_profile.py 8 64 224 224 64 \
  > $R/prof/cudnn_conv1_2_n8.ncu.txt 2>&1
echo "cudnn profile rc=$? $(date -u)" >> $R/info.txt; save
timeout 60 python3 bench/models.py $W --models resnet50,mobilenet_v2 --export-only > $R/models.txt 2> $R/models.log
gunzip -c $D/call1/tune.db.gz > $R/tune.db
timeout 80 build/convgen tune $W/resnet50.onnx --target cuda --time 60 --device nvidia --db $R/tune.db > $R/tune_resnet50.txt 2> $R/tune_resnet50.log
echo "resnet50 tune rc=$? $(date -u)" >> $R/info.txt; save
for net in resnet50 mobilenet_v2; do
  timeout 60 build/convgen infer $W/$net.onnx --input $W/${net}_input.pb --expect $W/${net}_output.pb --runs 20 \
    --target cuda --device nvidia --db $R/tune.db -v > $R/infer_${net}_cuda.txt 2> $R/infer_${net}_cuda.log
  echo "infer $net rc=$? $(date -u)" >> $R/info.txt; save
done
cat $R/info.txt; tail -n 12 $R/b8_table.md; grep -h "time:\|memory\|PASS\|FAIL" $R/infer_*.txt; grep -c "no correct" $R/tune_resnet50.txt
