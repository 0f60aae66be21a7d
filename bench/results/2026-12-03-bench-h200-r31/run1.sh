# Round 31, call 1 (issue 12's closing figures): the 14 distinct VGG-16 and
# AlexNet layers benched under both targets on the final code, with every
# H200 record so far (round 30 call 1's database), PyTorch's cuDNN
# (bench/pytorch.py) in the same lease. First alexnet.conv5 tuned 20 s under
# CUDA from its OpenCL records (its CUDA record was 2.8x its OpenCL one).
# Carry [".debs"]. The archive is rewritten after each step.
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=/tmp/r31/call1; mkdir -p $R
save() { tar czf $OUT/call1.tgz --exclude='*.db-*' -C /tmp/r31 call1; }
trap 'rm -f $R/*.db-*; [ -f $R/tune.db ] && gzip -f $R/tune.db; save' EXIT
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
gunzip -c bench/results/2026-12-02-bench-h200-r30/call1/tune.db.gz > $R/tune.db
timeout 40 build/convgen tune alexnet.conv5 --target cuda --warm-from opencl --time 20 --device nvidia --db $R/tune.db \
  > $R/tune_conv5.txt 2> $R/tune_conv5.log
echo "tune alexnet.conv5 cuda rc=$? $(date -u)" >> $R/info.txt; save
timeout 180 build/convgen bench vgg16 alexnet --device nvidia --db $R/tune.db --csv $R/bench.csv > $R/bench.txt 2> $R/bench.log
echo "bench opencl rc=$? $(date -u)" >> $R/info.txt; save
timeout 250 build/convgen bench vgg16 alexnet --target cuda --device nvidia --db $R/tune.db --csv $R/bench_cuda.csv \
  > $R/bench_cuda.txt 2> $R/bench_cuda.log
echo "bench cuda rc=$? $(date -u)" >> $R/info.txt; save
timeout 80 python3 bench/pytorch.py $R/bench.csv --csv $R/pytorch.csv > $R/pytorch.log 2>&1
echo "pytorch rc=$? $(date -u)" >> $R/info.txt
python3 bench/table.py $R/bench.csv $R/pytorch.csv > $R/table.md 2>&1
python3 bench/table.py $R/bench_cuda.csv $R/pytorch.csv > $R/table_cuda.md 2>&1
python3 bench/targets.py $R/bench.csv $R/bench_cuda.csv > $R/targets.md 2>&1
cat $R/info.txt; tail -n 8 $R/table.md; tail -n 4 $R/targets.md
