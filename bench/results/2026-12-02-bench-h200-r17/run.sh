set -u
export GIT_COMMIT=7805dda
. bench/h200-env.sh .debs || exit 1
make -j16 build/bench/ptxrun >/tmp/ptx.log 2>&1 || tail -5 /tmp/ptx.log
R=$OUT/r17; mkdir -p $R
cp bench/results/2026-12-01-bench-h200-r16/tune.db $R/tune.db
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
timeout 150 python3 bench/choice_ab.py $R/tune.db nvidia LP=3 --top 1 --csv $R/ab.csv > $R/ab.md 2>&1
echo "ab done $(date -u)" >> $R/info.txt
timeout 130 bash bench/profile.sh $R/prof $R/tune.db nvidia vgg16.conv4_2 vgg16.conv3_2 alexnet.conv1 > $R/prof.log 2>&1
echo "profile done $(date -u)" >> $R/info.txt
build/convgen tune vgg16 alexnet --strategy s2 --jobs 14 --time 190 --seed 41 --device nvidia --db $R/tune.db > $R/tune.txt 2> $R/tune.log
echo "tune done $(date -u)" >> $R/info.txt
cd $OUT && tar czf r17.tgz r17 && rm -rf r17
