# Round 33, call 1 (issue 15, the depthwise strategy dw): random points of
# dw on every MobileNet V1 and V2 depthwise layer under both targets, checked
# against the float64 reference; then MobileNet V2's depthwise layers tuned
# with dw alone under CUDA and OpenCL into round 31's database (every H200
# record so far, s2's grouped form among them), each strategy's best per
# layer read back (strategies.py), and the layers benched under CUDA (the
# best of every strategy) against cuDNN's row and PyTorch in the same lease.
# Carry [".debs"]. The archive is rewritten after each step.
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
D=bench/results/2026-12-03-bench-h200-r33
R=/tmp/r33/call1; mkdir -p $R
save() { tar czf $OUT/call1.tgz --exclude='*.db-*' -C /tmp/r33 call1; }
trap 'rm -f $R/*.db-*; [ -f $R/tune.db ] && gzip -f $R/tune.db; save' EXIT
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
V2="1 2 3 4 5 7 8 12 14 15"
V2L=$(for i in $V2; do printf 'mobilenet_v2.features.%s.dw ' $i; done)
V1L=$(for i in 1 2 3 4 5 6 7 8 9 10 11 12 13; do printf 'mobilenet_v1.conv%s_dw ' $i; done)
for t in opencl cuda; do
  for L in $V2L $V1L; do
    for s in 1 2; do
      out=$(timeout 30 build/convgen run $L --strategy dw --random $s --target $t --device nvidia --runs 10 2>&1)
      echo "$t $L $s rc=$? $(echo "$out" | grep -E '^program|^check|^time|convgen:' | tr '\n' ' ')" >> $R/random.txt
    done
  done
done
echo "random rc=0 pass=$(grep -c 'check     PASS' $R/random.txt) of $(wc -l < $R/random.txt) $(date -u)" >> $R/info.txt; save
gunzip -c bench/results/2026-12-03-bench-h200-r31/call4/tune.db.gz > $R/tune.db
timeout 80 build/convgen tune $V2L --strategy dw --target cuda --time 60 --device nvidia --db $R/tune.db > $R/tune_cuda.txt 2> $R/tune_cuda.log
echo "tune cuda rc=$? $(date -u)" >> $R/info.txt; save
timeout 60 build/convgen tune $V2L --strategy dw --time 40 --device nvidia --db $R/tune.db > $R/tune_opencl.txt 2> $R/tune_opencl.log
echo "tune opencl rc=$? $(date -u)" >> $R/info.txt; save
python3 $D/strategies.py $R/tune.db CUDA ',groups=' > $R/strategies_cuda.md 2>&1
python3 $D/strategies.py $R/tune.db 'NVIDIA CUDA' ',groups=' > $R/strategies_opencl.md 2>&1; save
timeout 120 build/convgen bench $V2L --target cuda --device nvidia --db $R/tune.db --budget 4 --runs 10 \
  --csv $R/bench_cuda.csv > $R/bench_cuda.txt 2> $R/bench_cuda.log
echo "bench cuda rc=$? $(date -u)" >> $R/info.txt; save
timeout 60 python3 bench/pytorch.py $R/bench_cuda.csv --csv $R/pytorch.csv > $R/pytorch.log 2>&1
echo "pytorch rc=$? $(date -u)" >> $R/info.txt
python3 bench/table.py $R/bench_cuda.csv $R/pytorch.csv > $R/table_cuda.md 2>&1; save
cat $R/info.txt; cat $R/strategies_cuda.md; tail -n 14 $R/table_cuda.md
