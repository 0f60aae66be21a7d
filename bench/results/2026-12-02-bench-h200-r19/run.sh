set -u
export GIT_COMMIT=20c2a69
. bench/h200-env.sh .debs || exit 1
R=$OUT/r19; mkdir -p $R
cp bench/results/2026-12-02-bench-h200-r18/tune.db $R/tune.db
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
L8="vgg16.conv1_2,n=8 vgg16.conv2_2,n=8 vgg16.conv4_2,n=8 vgg16.conv5_1,n=8"
timeout 300 build/convgen tune $L8 --strategy s2 --jobs 14 --time 270 --seed 53 --device nvidia --db $R/tune.db > $R/tune8.txt 2> $R/tune8.log
echo "tune8 done $(date -u)" >> $R/info.txt
timeout 190 build/convgen bench vgg16.conv3_2,n=8 $L8 --device nvidia --db $R/tune.db --csv $R/bench8.csv > $R/bench8.txt 2> $R/bench8.log
echo "bench8 done $(date -u)" >> $R/info.txt
timeout 60 python3 bench/pytorch.py $R/bench8.csv --csv $R/pytorch8.csv > $R/pytorch8.log 2>&1
python3 bench/table.py $R/bench8.csv $R/pytorch8.csv > $R/table8.md 2>&1
echo "all done $(date -u)" >> $R/info.txt
cd $OUT && tar czf r19.tgz r19 && rm -rf r19
