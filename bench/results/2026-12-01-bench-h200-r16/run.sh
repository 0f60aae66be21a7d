set -u
export GIT_COMMIT=d946e75
. bench/h200-env.sh .debs || exit 1
R=$OUT/r16; mkdir -p $R
cp bench/results/2026-12-01-bench-h200-r15/tune.db $R/tune.db
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
build/convgen tune vgg16.conv1_1 vgg16.conv1_2 alexnet.conv1 vgg16.conv2_1 vgg16.conv3_2 vgg16.conv2_2 --strategy s2 --jobs 14 --time 180 --seed 31 --device nvidia --db $R/tune.db > $R/tune.txt 2> $R/tune.log
echo "tune done $(date -u)" >> $R/info.txt
build/convgen tune vgg16.conv3_2,n=8 --strategy s2 --jobs 14 --time 100 --seed 37 --device nvidia --db $R/tune.db > $R/tune8.txt 2> $R/tune8.log
echo "tune8 done $(date -u)" >> $R/info.txt
build/convgen bench vgg16 alexnet --device nvidia --db $R/tune.db --csv $R/bench.csv --plot $R/bench.svg > $R/bench.txt 2> $R/bench.log
python3 bench/pytorch.py $R/bench.csv --csv $R/pytorch.csv > $R/pytorch.log 2>&1
python3 bench/table.py $R/bench.csv $R/pytorch.csv > $R/table.md 2>&1
build/convgen bench vgg16.conv3_2,n=8 --device nvidia --db $R/tune.db --csv $R/bench8.csv > $R/bench8.txt 2> $R/bench8.log
python3 bench/pytorch.py $R/bench8.csv --csv $R/pytorch8.csv > $R/pytorch8.log 2>&1
python3 bench/table.py $R/bench8.csv $R/pytorch8.csv > $R/table8.md 2>&1
echo "all done $(date -u)" >> $R/info.txt
cd $OUT && tar czf r16.tgz r16 && rm -rf r16
