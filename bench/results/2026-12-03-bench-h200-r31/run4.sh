# Round 31, call 4: more tuning where the targets trail, then bench again.
#  1. batch 8: conv1_2, conv2_2 and conv5_1 at n=8 (below cuDNN's best direct
#     algorithm in call 3), 50 s each under OpenCL from round 28's batch-8
#     database, warm-started from their 8 best records; the five batch-8
#     layers benched again with PyTorch in the lease
#  2. ResNet-50: the 10 layers below cuDNN in call 2 (all 1x1), 80 s in all
#     under CUDA from call 2's database, warm-started; resnet50 benched again
# Carry [".debs"]. The archive is rewritten after each step.
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
D=bench/results/2026-12-03-bench-h200-r31
R=/tmp/r31/call4; mkdir -p $R
save() { tar czf $OUT/call4.tgz --exclude='*.db-*' --exclude='*.db' -C /tmp/r31 call4; }
trap 'rm -f $R/*.db-*; for f in $R/*.db; do [ -f "$f" ] && gzip -f "$f"; done; save' EXIT
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
gunzip -c bench/results/2026-12-02-bench-h200-r28/call2/b8.db.gz > $R/b8.db
timeout 165 build/convgen tune vgg16.conv1_2,n=8 vgg16.conv2_2,n=8 vgg16.conv5_1,n=8 --time 150 --warm-start 8 \
  --device nvidia --db $R/b8.db > $R/b8_tune.txt 2> $R/b8_tune.log
echo "b8 tune rc=$? $(date -u)" >> $R/info.txt; save
b8="vgg16.conv1_2,n=8 vgg16.conv2_2,n=8 vgg16.conv3_2,n=8 vgg16.conv4_2,n=8 vgg16.conv5_1,n=8"
timeout 90 build/convgen bench $b8 --device nvidia --db $R/b8.db --csv $R/b8_bench.csv > $R/b8_bench.txt 2> $R/b8_bench.log
echo "b8 bench rc=$? $(date -u)" >> $R/info.txt; save
timeout 40 python3 bench/pytorch.py $R/b8_bench.csv --csv $R/b8_pytorch.csv > $R/b8_pytorch.log 2>&1
echo "b8 pytorch rc=$? $(date -u)" >> $R/info.txt
python3 bench/table.py $R/b8_bench.csv $R/b8_pytorch.csv > $R/b8_table.md 2>&1; save
gunzip -c $D/call2/tune.db.gz > $R/tune.db
rn="layer1.0.downsample layer2.0.conv3 layer2.0.downsample layer2.1.conv3 layer3.0.conv1 layer3.0.conv3 layer3.0.downsample layer3.1.conv3 layer4.0.conv3 layer4.1.conv3"
timeout 95 build/convgen tune $(for l in $rn; do printf 'resnet50.%s ' $l; done) --target cuda --time 80 --warm-start 8 \
  --device nvidia --db $R/tune.db > $R/tune_resnet50.txt 2> $R/tune_resnet50.log
echo "tune resnet50 rc=$? $(date -u)" >> $R/info.txt; save
timeout 100 build/convgen bench resnet50 --target cuda --device nvidia --db $R/tune.db --budget 4 --runs 10 \
  --csv $R/bench_resnet50.csv > $R/bench_resnet50.txt 2> $R/bench_resnet50.log
echo "bench resnet50 rc=$? $(date -u)" >> $R/info.txt; save
timeout 40 python3 bench/pytorch.py $R/bench_resnet50.csv --csv $R/pytorch_resnet50.csv > $R/pytorch_resnet50.log 2>&1
echo "pytorch resnet50 rc=$? $(date -u)" >> $R/info.txt
python3 bench/table.py $R/bench_resnet50.csv $R/pytorch_resnet50.csv > $R/table_resnet50.md 2>&1
cat $R/info.txt; tail -n 8 $R/b8_table.md; tail -n 5 $R/table_resnet50.md
