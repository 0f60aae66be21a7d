# Round 29, call 4 (issue 12's closing figures): the 14 distinct VGG-16 and
# AlexNet layers benched under both targets on this round's code, the
# database every round so far built (round 28's, with call 2's fresh tune
# merged), PyTorch's cuDNN (bench/pytorch.py) in the same lease; then
# vgg16.conv4_2 tuned from nothing for 120 s with the defaults (evolve's
# weighted draws), into an empty database. The archive is rewritten after
# each step, so that a call cut short still brings back what it did.
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
D=bench/results/2026-12-02-bench-h200-r29
R=/tmp/r29/call4; mkdir -p $R
save() { tar czf $OUT/call4.tgz --exclude='*.db' --exclude='*.db-*' -C /tmp/r29 call4; }
trap 'rm -f $R/*.db-*; for f in $R/*.db; do [ -f "$f" ] && gzip -f "$f"; done; save' EXIT
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
gunzip -c bench/results/2026-12-02-bench-h200-r28/call4/tune.db.gz > $R/tune.db
gunzip -c $D/call2/fresh.db.gz > /tmp/fresh2.db && python3 bench/merge_db.py $R/tune.db /tmp/fresh2.db >> $R/info.txt 2>&1
timeout 180 build/convgen bench vgg16 alexnet --device nvidia --db $R/tune.db --budget 8 --csv $R/bench.csv > $R/bench.txt 2> $R/bench.log
echo "bench opencl rc=$? $(date -u)" >> $R/info.txt; save
timeout 120 build/convgen bench vgg16 alexnet --target cuda --device nvidia --db $R/tune.db --budget 8 --csv $R/bench_cuda.csv > $R/bench_cuda.txt 2> $R/bench_cuda.log
echo "bench cuda rc=$? $(date -u)" >> $R/info.txt; save
timeout 80 python3 bench/pytorch.py $R/bench.csv --csv $R/pytorch.csv > $R/pytorch.log 2>&1
echo "pytorch rc=$? $(date -u)" >> $R/info.txt
python3 bench/table.py $R/bench.csv $R/pytorch.csv > $R/table.md 2>&1
python3 bench/table.py $R/bench_cuda.csv $R/pytorch.csv > $R/table_cuda.md 2>&1
python3 bench/targets.py $R/bench.csv $R/bench_cuda.csv > $R/targets.md 2>&1; save
timeout 140 build/convgen tune vgg16.conv4_2 --time 120 --device nvidia --db $R/fresh.db > $R/fresh.txt 2> $R/fresh.log
echo "fresh rc=$? $(date -u)" >> $R/info.txt
cat $R/info.txt; tail -n 12 $R/targets.md; tail -n 5 $R/fresh.txt
