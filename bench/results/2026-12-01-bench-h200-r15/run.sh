set -u
export GIT_COMMIT=f2beabc
. bench/h200-env.sh .debs || exit 1
R=$OUT/r15; mkdir -p $R
cp bench/results/2026-12-01-bench-h200-r14/tune.db $R/tune.db
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
build/convgen tune vgg16 alexnet --strategy s2 --jobs 14 --time 400 --seed 29 --device nvidia --db $R/tune.db > $R/tune.txt 2> $R/tune.log
echo "tune done $(date -u)" >> $R/info.txt
build/convgen bench vgg16 alexnet --device nvidia --db $R/tune.db --csv $R/bench.csv --plot $R/bench.svg > $R/bench.txt 2> $R/bench.log
python3 bench/pytorch.py $R/bench.csv --csv $R/pytorch.csv > $R/pytorch.log 2>&1
python3 bench/table.py $R/bench.csv $R/pytorch.csv > $R/table.md 2>&1
echo "all done $(date -u)" >> $R/info.txt
cd $OUT && tar czf r15.tgz r15 && rm -rf r15
