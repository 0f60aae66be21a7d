# Round 27, fourth call (the lease's last minutes): the two split-K points
# that hung under CUDA in the first call's tune, each run alone under
# --target cuda with a limit, and a first look at a depthwise layer
# (MobileNet V2's features.4.dw: 144 channels, stride 2) tuned briefly and
# benched against cuDNN.
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=$OUT/r27d; mkdir -p $R
{ date -u; build/convgen --version; } > $R/info.txt
P1="-p LK=2 -p LH=2 -p LW=2 -p LS=2 -p LC=3 -p LR=2 -p LP=3 -p LN=2 -p LX=2 -p CK=32 -p RW=4 -p RK=4 -p RH=2 -p TW=7 -p TH=2 -p TK=2 -p CC=4"
P2="-p LK=2 -p LH=2 -p LW=2 -p LS=2 -p LC=3 -p LR=2 -p LP=2 -p LN=2 -p LX=2 -p CK=8 -p RW=2 -p RK=8 -p RH=4 -p TW=1 -p TH=14 -p TK=1 -p CC=2"
timeout 20 build/convgen run vgg16.conv2_1 --strategy s2 $P1 --target cuda --device nvidia --runs 10 > $R/hang1_cuda.txt 2>&1; echo "hang1 cuda rc=$? $(date -u)" >> $R/info.txt
timeout 20 build/convgen run vgg16.conv3_1 --strategy s2 $P2 --target cuda --device nvidia --runs 10 > $R/hang2_cuda.txt 2>&1; echo "hang2 cuda rc=$? $(date -u)" >> $R/info.txt
build/convgen tune mobilenet_v2.features.4.dw --time 25 --device nvidia --db $R/dw.db > $R/dw_tune.txt 2> $R/dw_tune.log; echo "dw tune rc=$? $(date -u)" >> $R/info.txt
build/convgen bench mobilenet_v2.features.4.dw --device nvidia --db $R/dw.db --runs 10 --csv $R/dw_bench.csv > $R/dw_bench.txt 2> $R/dw_bench.log; echo "dw bench rc=$? $(date -u)" >> $R/info.txt
rm -f $R/dw.db-*; gzip $R/dw.db
cat $R/info.txt; tail -n 4 $R/hang1_cuda.txt $R/hang2_cuda.txt; cat $R/dw_bench.txt | tail -n 8
cd $OUT && tar czf r27d.tgz r27d && rm -rf r27d
