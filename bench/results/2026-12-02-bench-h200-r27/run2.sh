# Round 27, second call: bench under both targets from the first call's
# database (tune.db here, unpacked from r27a.tgz), PyTorch in the same lease,
# the two targets side by side; then the tuning defaults' test (issue 12):
# vgg16.conv3_2 tuned from nothing with the defaults for 120 s.
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=$OUT/r27b; mkdir -p $R
D=bench/results/2026-12-02-bench-h200-r27
cp $D/tune.db $R/tune.db
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
build/convgen bench vgg16 alexnet --target cuda --device nvidia --db $R/tune.db --csv $R/bench_cuda.csv > $R/bench_cuda.txt 2> $R/bench_cuda.log
echo "bench cuda rc=$? $(date -u)" >> $R/info.txt
build/convgen bench vgg16 alexnet --device nvidia --db $R/tune.db --csv $R/bench.csv --plot $R/bench.svg > $R/bench.txt 2> $R/bench.log
echo "bench opencl rc=$? $(date -u)" >> $R/info.txt
python3 bench/pytorch.py $R/bench.csv --csv $R/pytorch.csv > $R/pytorch.log 2>&1
python3 bench/table.py $R/bench.csv $R/pytorch.csv > $R/table.md 2>&1
python3 bench/table.py $R/bench_cuda.csv $R/pytorch.csv > $R/table_cuda.md 2>&1
python3 bench/targets.py $R/bench.csv $R/bench_cuda.csv > $R/targets.md 2>&1
echo "tables rc=$? $(date -u)" >> $R/info.txt
rm -f $R/tune.db $R/tune.db-*
build/convgen tune vgg16.conv3_2 --time 120 --seed 5 --device nvidia --db $R/fresh.db > $R/fresh.txt 2> $R/fresh.log
echo "fresh tune rc=$? $(date -u)" >> $R/info.txt
build/convgen best vgg16.conv3_2 --device nvidia --db $R/fresh.db > $R/fresh_best.txt 2>&1
rm -f $R/fresh.db-*; gzip $R/fresh.db
cat $R/info.txt; tail -6 $R/table.md $R/targets.md
cd $OUT && tar czf r27b.tgz r27b && rm -rf r27b
