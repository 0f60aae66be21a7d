# Round 28, call 4 (the lease's last 9 minutes): ResNet-50's 23 distinct
# convolutions tuned under --target cuda for 150 s in all (each layer
# primed by --transfer from the VGG-16/AlexNet records of call 3's
# database and from the ResNet layers before it), then benched against
# cuDNN and PyTorch in the same lease: issue 15's ResNet-50 target.
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=$OUT/r; mkdir -p $R
D=bench/results/2026-12-02-bench-h200-r28
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
gunzip -c $D/call3/tune.db.gz > $R/tune.db
build/convgen tune resnet50 --target cuda --time 150 --device nvidia --db $R/tune.db > $R/tune.txt 2> $R/tune.log
echo "tune rc=$? $(date -u)" >> $R/info.txt
build/convgen bench resnet50 --target cuda --device nvidia --db $R/tune.db --budget 4 --runs 10 --csv $R/bench_cuda.csv > $R/bench_cuda.txt 2> $R/bench_cuda.log
echo "bench rc=$? $(date -u)" >> $R/info.txt
timeout 60 python3 bench/pytorch.py $R/bench_cuda.csv --csv $R/pytorch.csv > $R/pytorch.log 2>&1
python3 bench/table.py $R/bench_cuda.csv $R/pytorch.csv > $R/table_cuda.md 2>&1
rm -f $R/*.db-*; gzip $R/tune.db
cat $R/info.txt; tail -n 8 $R/table_cuda.md
