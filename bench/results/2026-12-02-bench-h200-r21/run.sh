set -u
export GIT_COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo 00f945f)
. bench/h200-env.sh .debs || exit 1
R=$OUT/r21; mkdir -p $R
cp bench/results/2026-12-02-bench-h200-r20/tune.db $R/tune.db
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
( while sleep 5; do free -m | awk -v d="$(date -u +%T)" '/Mem:/ {print d, $3}'; done ) > $R/mem.log 2>&1 &
build/convgen tune vgg16 alexnet --strategy s2 --jobs 14 --time 400 --seed 41 --device nvidia --db $R/tune.db > $R/tune.txt 2> $R/tune.log
echo "tune done rc=$? $(date -u)" >> $R/info.txt
build/convgen bench vgg16 alexnet --device nvidia --db $R/tune.db --csv $R/bench.csv --plot $R/bench.svg > $R/bench.txt 2> $R/bench.log
python3 bench/pytorch.py $R/bench.csv --csv $R/pytorch.csv > $R/pytorch.log 2>&1
python3 bench/table.py $R/bench.csv $R/pytorch.csv > $R/table.md 2>&1
echo "all done $(date -u)" >> $R/info.txt
kill %1 2>/dev/null
cat $R/table.md | tail -8
cd $OUT && tar czf r21.tgz r21 && rm -rf r21
