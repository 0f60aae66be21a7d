# Round 26: the final tune and bench of this session's code, from round
# 25's database: alexnet.conv1 (the one layer below cuDNN) warm-started for
# 120 s, the three large VGG-16 layers under 30 TFLOP/s for 150 s; then
# bench and PyTorch in the same lease.
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=$OUT/r26; mkdir -p $R
cp bench/results/2026-12-02-bench-h200-r25/tune.db $R/tune.db
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
build/convgen tune alexnet.conv1 --strategy s2 --warm-start 16 --jobs 14 --time 120 --seed 61 --device nvidia --db $R/tune.db > $R/tune_conv1.txt 2> $R/tune_conv1.log
echo "tune (alexnet.conv1) done rc=$? $(date -u)" >> $R/info.txt
build/convgen tune vgg16.conv1_2 vgg16.conv3_2 vgg16.conv4_2 --strategy s2 --warm-start 12 --jobs 14 --time 150 --seed 67 --device nvidia --db $R/tune.db > $R/tune.txt 2> $R/tune.log
echo "tune (large layers) done rc=$? $(date -u)" >> $R/info.txt
build/convgen bench vgg16 alexnet --device nvidia --db $R/tune.db --csv $R/bench.csv --plot $R/bench.svg > $R/bench.txt 2> $R/bench.log
echo "bench done rc=$? $(date -u)" >> $R/info.txt
python3 bench/pytorch.py $R/bench.csv --csv $R/pytorch.csv > $R/pytorch.log 2>&1
python3 bench/table.py $R/bench.csv $R/pytorch.csv > $R/table.md 2>&1
echo "all done $(date -u)" >> $R/info.txt
tail -8 $R/table.md
cd $OUT && tar czf r26.tgz r26 && rm -rf r26
