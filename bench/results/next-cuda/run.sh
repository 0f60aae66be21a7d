# For the next session's first lease (not run yet): the CUDA target again
# after the hold fix (every example, every strategy's random points), a
# tune of the 14 layers under --target cuda started from the OpenCL records
# (--warm-from opencl), then bench under both targets and PyTorch, in one
# lease. Copy this folder to bench/results/DATE-bench-h200-rNN before running;
# it takes about 12 minutes, over the 600 s a command gets: run the two
# benches and PyTorch as a second call.
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=$OUT/r; mkdir -p $R
cp bench/results/2026-12-02-bench-h200-r26/tune.db $R/tune.db
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "NVRTC: $CONVGEN_NVRTC"; } > $R/info.txt
timeout 120 scripts/run-examples.sh --target cuda --device nvidia > $R/examples_cuda.txt 2>&1; echo "examples rc=$?" >> $R/info.txt
for s in direct s1 s2 s3; do for k in 1 2 3; do
  timeout 30 build/convgen run vgg16.conv4_2 --strategy $s --random $k --target cuda --device nvidia --sample 4096 >> $R/random_cuda.txt 2>&1
  echo "$s $k rc=$?" >> $R/random_cuda.txt
done; done
build/convgen tune vgg16 alexnet --strategy s2 --target cuda --warm-from opencl --warm-start 8 --time 240 --seed 71 --device nvidia --db $R/tune.db > $R/tune_cuda.txt 2> $R/tune_cuda.log
echo "tune cuda rc=$? $(date -u)" >> $R/info.txt
build/convgen bench vgg16 alexnet --target cuda --device nvidia --db $R/tune.db --csv $R/bench_cuda.csv > $R/bench_cuda.txt 2> $R/bench_cuda.log
build/convgen bench vgg16 alexnet --device nvidia --db $R/tune.db --csv $R/bench.csv > $R/bench.txt 2> $R/bench.log
python3 bench/pytorch.py $R/bench.csv --csv $R/pytorch.csv > $R/pytorch.log 2>&1
python3 bench/table.py $R/bench.csv $R/pytorch.csv > $R/table.md 2>&1
python3 bench/table.py $R/bench_cuda.csv $R/pytorch.csv > $R/table_cuda.md 2>&1
python3 bench/targets.py $R/bench.csv $R/bench_cuda.csv > $R/targets.md 2>&1
echo "all done $(date -u)" >> $R/info.txt
tail -6 $R/table.md $R/table_cuda.md
cd $OUT && tar czf r.tgz r && rm -rf r
