set -u
export GIT_COMMIT=f2beabc
. bench/h200-env.sh .debs || exit 1
R=$OUT/r14; mkdir -p $R
cp bench/results/2026-12-01-bench-h200-r13/tune.db $R/tune.db
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
timeout 200 python3 bench/choice_ab.py $R/tune.db nvidia LP=2 --top 1 --csv $R/ab.csv > $R/ab.md 2>&1
echo "ab done $(date -u)" >> $R/info.txt
build/convgen tune vgg16 alexnet --strategy s2 --jobs 14 --time 190 --seed 23 --device nvidia --db $R/tune.db > $R/tune.txt 2> $R/tune.log
echo "tune done $(date -u)" >> $R/info.txt
build/convgen bench vgg16 alexnet --device nvidia --db $R/tune.db --csv $R/bench.csv --plot $R/bench.svg > $R/bench.txt 2> $R/bench.log
python3 bench/pytorch.py $R/bench.csv --csv $R/pytorch.csv > $R/pytorch.log 2>&1
python3 bench/table.py $R/bench.csv $R/pytorch.csv > $R/table.md 2>&1
echo "all done $(date -u)" >> $R/info.txt
cd $OUT && tar czf r14.tgz r14 && rm -rf r14
