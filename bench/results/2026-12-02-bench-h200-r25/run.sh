# Round 25: tune from round 24's database with the new tuner options: split-K
# on alexnet.conv1 (--param LX=2), then the weakest layers warm-started from
# their 12 fastest records (evolve now also moves one choice of a parent:
# split-K and the pipelines tried at the best tiles; at most 32 parts); then
# bench and PyTorch in the same lease.
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=$OUT/r25; mkdir -p $R
cp bench/results/2026-12-02-bench-h200-r24/tune.db $R/tune.db
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
build/convgen tune alexnet.conv1 --strategy s2 --param LX=2 --jobs 14 --time 50 --seed 53 --device nvidia --db $R/tune.db > $R/tune_split.txt 2> $R/tune_split.log
echo "tune (alexnet.conv1, LX=2) done rc=$? $(date -u)" >> $R/info.txt
WEAK="alexnet.conv1 vgg16.conv1_2 vgg16.conv2_1 vgg16.conv2_2 vgg16.conv3_1 vgg16.conv3_2 vgg16.conv4_2 alexnet.conv5"
build/convgen tune $WEAK --strategy s2 --warm-start 12 --jobs 14 --time 240 --seed 59 --device nvidia --db $R/tune.db > $R/tune.txt 2> $R/tune.log
echo "tune (warm start) done rc=$? $(date -u)" >> $R/info.txt
build/convgen bench vgg16 alexnet --device nvidia --db $R/tune.db --csv $R/bench.csv --plot $R/bench.svg > $R/bench.txt 2> $R/bench.log
echo "bench done rc=$? $(date -u)" >> $R/info.txt
python3 bench/pytorch.py $R/bench.csv --csv $R/pytorch.csv > $R/pytorch.log 2>&1
python3 bench/table.py $R/bench.csv $R/pytorch.csv > $R/table.md 2>&1
echo "all done $(date -u)" >> $R/info.txt
tail -8 $R/table.md
cd $OUT && tar czf r25.tgz r25 && rm -rf r25
