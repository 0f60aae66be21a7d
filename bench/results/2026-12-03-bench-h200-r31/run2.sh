# Round 31, call 2 (issue 15's figures): ResNet-50's and MobileNet V2's
# distinct convolution layers (with the fused residual and activations
# their named layers carry) tuned 45 s more each network under CUDA from
# call 1's database, then benched under CUDA against cuDNN's row, with
# PyTorch in the same lease. Carry [".debs"].
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
D=bench/results/2026-12-03-bench-h200-r31
R=/tmp/r31/call2; mkdir -p $R
save() { tar czf $OUT/call2.tgz --exclude='*.db-*' -C /tmp/r31 call2; }
trap 'rm -f $R/*.db-*; [ -f $R/tune.db ] && gzip -f $R/tune.db; save' EXIT
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
gunzip -c $D/call1/tune.db.gz > $R/tune.db
for net in resnet50 mobilenet_v2; do
  timeout 70 build/convgen tune $net --target cuda --time 45 --device nvidia --db $R/tune.db > $R/tune_$net.txt 2> $R/tune_$net.log
  echo "tune $net rc=$? $(date -u)" >> $R/info.txt; save
done
for net in resnet50 mobilenet_v2; do
  timeout 110 build/convgen bench $net --target cuda --device nvidia --db $R/tune.db --budget 4 --runs 10 \
    --csv $R/bench_$net.csv > $R/bench_$net.txt 2> $R/bench_$net.log
  echo "bench $net rc=$? $(date -u)" >> $R/info.txt; save
  timeout 60 python3 bench/pytorch.py $R/bench_$net.csv --csv $R/pytorch_$net.csv > $R/pytorch_$net.log 2>&1
  echo "pytorch $net rc=$? $(date -u)" >> $R/info.txt
  python3 bench/table.py $R/bench_$net.csv $R/pytorch_$net.csv > $R/table_$net.md 2>&1; save
done
cat $R/info.txt; tail -n 6 $R/table_*.md
