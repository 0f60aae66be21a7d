# Round 24: the held protocol (each batch queued whole before the device
# starts it) against the host-paced one, on round 23's database, in one lease;
# then PyTorch in the same lease.
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=$OUT/r24; mkdir -p $R
cp bench/results/2026-12-02-bench-h200-r23/tune.db $R/tune.db
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
build/convgen bench vgg16 alexnet --device nvidia --db $R/tune.db --csv $R/bench.csv --plot $R/bench.svg > $R/bench.txt 2> $R/bench.log
echo "bench (held) done rc=$? $(date -u)" >> $R/info.txt
SMALL="vgg16.conv1_1 vgg16.conv5_1 alexnet.conv1 alexnet.conv2 alexnet.conv3 alexnet.conv4 alexnet.conv5"
build/convgen bench $SMALL --host-paced --device nvidia --db $R/tune.db --csv $R/bench_paced.csv > $R/bench_paced.txt 2> $R/bench_paced.log
echo "bench (host-paced) done rc=$? $(date -u)" >> $R/info.txt
python3 bench/pytorch.py $R/bench.csv --csv $R/pytorch.csv > $R/pytorch.log 2>&1
python3 bench/table.py $R/bench.csv $R/pytorch.csv > $R/table.md 2>&1
echo "all done $(date -u)" >> $R/info.txt
tail -8 $R/table.md
cd $OUT && tar czf r24.tgz r24 && rm -rf r24
