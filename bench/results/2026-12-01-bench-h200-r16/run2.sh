set -u
export GIT_COMMIT=a681d14
. bench/h200-env.sh .debs || exit 1
R=$OUT/final; mkdir -p $R
cp bench/results/2026-12-01-bench-h200-r16/tune.db $R/tune.db
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
build/convgen bench vgg16 alexnet --device nvidia --db $R/tune.db --csv $R/bench.csv --plot $R/bench.svg > $R/bench.txt 2> $R/bench.log
python3 bench/pytorch.py $R/bench.csv --csv $R/pytorch.csv > $R/pytorch.log 2>&1
python3 bench/table.py $R/bench.csv $R/pytorch.csv > $R/table.md 2>&1
rm -f $R/tune.db; echo "all done $(date -u)" >> $R/info.txt
cd $OUT && tar czf final.tgz final && rm -rf final
