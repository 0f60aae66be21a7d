# Round 27, third call (after the context fix, 7e60693): the nine layers the
# first call's CUDA tune did not reach, tuned under --target cuda from their
# OpenCL records; then bench under both targets in this one lease with
# PyTorch, the CUDA export run on the GPU, and the two split-K points that
# hung under CUDA in the first call's tune, run alone with a limit.
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=$OUT/r27c; mkdir -p $R
D=bench/results/2026-12-02-bench-h200-r27
cp $D/tune.db $R/tune.db
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
build/convgen tune vgg16.conv3_2 vgg16.conv4_1 vgg16.conv4_2 vgg16.conv5_1 alexnet --strategy s2 --target cuda --warm-from opencl --warm-start 6 --time 100 --timeout 15 --seed 73 --device nvidia --db $R/tune.db > $R/tune_cuda.txt 2> $R/tune_cuda.log
echo "tune cuda rc=$? $(date -u)" >> $R/info.txt
build/convgen bench vgg16 alexnet --target cuda --device nvidia --db $R/tune.db --budget 8 --csv $R/bench_cuda.csv > $R/bench_cuda.txt 2> $R/bench_cuda.log
echo "bench cuda rc=$? $(date -u)" >> $R/info.txt
build/convgen bench vgg16 alexnet --device nvidia --db $R/tune.db --budget 8 --csv $R/bench.csv > $R/bench.txt 2> $R/bench.log
echo "bench opencl rc=$? $(date -u)" >> $R/info.txt
python3 bench/pytorch.py $R/bench.csv --csv $R/pytorch.csv > $R/pytorch.log 2>&1
python3 bench/table.py $R/bench.csv $R/pytorch.csv > $R/table.md 2>&1
python3 bench/table.py $R/bench_cuda.csv $R/pytorch.csv > $R/table_cuda.md 2>&1
python3 bench/targets.py $R/bench.csv $R/bench_cuda.csv > $R/targets.md 2>&1
echo "tables rc=$? $(date -u)" >> $R/info.txt
build/convgen export vgg16.conv3_2 alexnet.conv3 --target cuda --device nvidia --db $R/tune.db -o /tmp/excuda > $R/export_cuda.txt 2>&1 &&
  make -C /tmp/excuda >> $R/export_cuda.txt 2>&1 && (cd /tmp/excuda && ./example) >> $R/export_cuda.txt 2>&1
echo "export cuda rc=$? $(date -u)" >> $R/info.txt
P1="-p LK=2 -p LH=2 -p LW=2 -p LS=2 -p LC=3 -p LR=2 -p LP=3 -p LN=2 -p LX=2 -p CK=32 -p RW=4 -p RK=4 -p RH=2 -p TW=7 -p TH=2 -p TK=2 -p CC=4"
P2="-p LK=2 -p LH=2 -p LW=2 -p LS=2 -p LC=3 -p LR=2 -p LP=2 -p LN=2 -p LX=2 -p CK=8 -p RW=2 -p RK=8 -p RH=4 -p TW=1 -p TH=14 -p TK=1 -p CC=2"
for t in cuda opencl; do
  timeout 40 build/convgen run vgg16.conv2_1 --strategy s2 $P1 --target $t --device nvidia --runs 3 > $R/hang1_$t.txt 2>&1; echo "hang1 $t rc=$?" >> $R/info.txt
  timeout 40 build/convgen run vgg16.conv3_1 --strategy s2 $P2 --target $t --device nvidia --runs 3 > $R/hang2_$t.txt 2>&1; echo "hang2 $t rc=$?" >> $R/info.txt
done
cat $R/info.txt; tail -n 4 $R/targets.md; tail -n 12 $R/export_cuda.txt
rm -f $R/tune.db-*
cd $OUT && tar czf r27c.tgz r27c && rm -rf r27c
