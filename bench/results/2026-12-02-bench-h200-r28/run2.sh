# Round 28, call 2 (about 8 minutes):
#  1. the launch floor: a layer of 64 outputs under each target, the time per
#     run against the kernel's own (what a tiny layer cannot go under)
#  2. MobileNet V2's 10 distinct depthwise layers tuned under --target cuda
#     (9 s each) and benched against cuDNN, and PyTorch's cuDNN on them:
#     issue 15's 2x target
#  3. batch 8 on five VGG-16 layers, round 27's database warm-started (60 s on
#     the two weakest, conv1_2 and conv2_2), benched with cuDNN and PyTorch
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=$OUT/r; mkdir -p $R
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
tiny='n=1,c=1,h=8,w=8,k=1,kh=1,kw=1,pad=0'
for t in opencl cuda; do
  build/convgen run "$tiny" --strategy direct --device nvidia --target $t --runs 20 > $R/floor_$t.txt 2>&1
done
dw=$(for i in 1 2 3 4 5 7 8 11 14 15; do printf 'mobilenet_v2.features.%s.dw ' $i; done)   # the 10 distinct
build/convgen tune $dw --time 90 --target cuda --device nvidia --db $R/dw.db > $R/dw_tune.txt 2> $R/dw_tune.log
build/convgen bench $dw --target cuda --device nvidia --db $R/dw.db --csv $R/dw_bench.csv > $R/dw_bench.txt 2> $R/dw_bench.log
echo "dw rc=$? $(date -u)" >> $R/info.txt
timeout 90 python3 bench/pytorch.py $R/dw_bench.csv --csv $R/dw_pytorch.csv > $R/dw_pytorch.log 2>&1
cp bench/results/2026-12-02-bench-h200-r27/call3/tune.db $R/b8.db
b8="vgg16.conv1_2,n=8 vgg16.conv2_2,n=8 vgg16.conv3_2,n=8 vgg16.conv4_2,n=8 vgg16.conv5_1,n=8"
build/convgen tune vgg16.conv1_2,n=8 vgg16.conv2_2,n=8 --time 120 --warm-start 8 --device nvidia --db $R/b8.db > $R/b8_tune.txt 2> $R/b8_tune.log
build/convgen bench $b8 --device nvidia --db $R/b8.db --csv $R/b8_bench.csv > $R/b8_bench.txt 2> $R/b8_bench.log
echo "b8 rc=$? $(date -u)" >> $R/info.txt
timeout 90 python3 bench/pytorch.py $R/b8_bench.csv --csv $R/b8_pytorch.csv > $R/b8_pytorch.log 2>&1
rm -f $R/*.db-*; gzip $R/*.db
cat $R/info.txt; grep -h "^time\|k0" $R/floor_*.txt; tail -n 8 $R/dw_bench.txt $R/b8_bench.txt
cd $OUT && tar czf r.tgz r && rm -rf r
