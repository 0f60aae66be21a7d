set -u
export GIT_COMMIT=20c2a69
. bench/h200-env.sh .debs || exit 1
R=$OUT/r18; mkdir -p $R
cp bench/results/2026-12-02-bench-h200-r17/tune.db $R/tune.db
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
# A/B: round 16's best batch-8 kernel as recorded (the batch a loop) and with LN=2 (the batch over work-groups)
P="LK=2 LH=2 LW=2 LS=2 LC=2 LR=2 RW=1 RK=8 RH=2 TW=8 TH=4 TK=4 CC=8"
for ln in 1 2; do
  timeout 60 build/convgen run vgg16.conv3_2,n=8 --strategy s2 --device nvidia $(for p in $P; do printf -- '-p %s ' $p; done) -p LN=$ln > $R/ab8-LN$ln.txt 2>&1
done
echo "ab done $(date -u)" >> $R/info.txt
L8="vgg16.conv1_1,n=8 vgg16.conv1_2,n=8 vgg16.conv2_1,n=8 vgg16.conv2_2,n=8 vgg16.conv3_1,n=8 vgg16.conv4_1,n=8 vgg16.conv4_2,n=8 vgg16.conv5_1,n=8"
timeout 150 build/convgen tune vgg16.conv3_2,n=8 --strategy s2 --jobs 14 --time 120 --seed 43 --device nvidia --db $R/tune.db > $R/tune8a.txt 2> $R/tune8a.log
echo "tune8a done $(date -u)" >> $R/info.txt
timeout 230 build/convgen tune $L8 --strategy s2 --jobs 14 --time 200 --seed 47 --device nvidia --db $R/tune.db > $R/tune8b.txt 2> $R/tune8b.log
echo "tune8b done $(date -u)" >> $R/info.txt
timeout 150 build/convgen bench vgg16.conv3_2,n=8 $L8 --device nvidia --db $R/tune.db --csv $R/bench8.csv > $R/bench8.txt 2> $R/bench8.log
echo "bench8 done $(date -u)" >> $R/info.txt
timeout 60 python3 bench/pytorch.py $R/bench8.csv --csv $R/pytorch8.csv > $R/pytorch8.log 2>&1
python3 bench/table.py $R/bench8.csv $R/pytorch8.csv > $R/table8.md 2>&1
echo "all done $(date -u)" >> $R/info.txt
cd $OUT && tar czf r18.tgz r18 && rm -rf r18
