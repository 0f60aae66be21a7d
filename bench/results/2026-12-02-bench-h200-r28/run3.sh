# Round 28, call 3 (about 9 minutes), after the timed batches lost their
# per-launch events (e431a08: CUDA replays a captured graph; ed594a8:
# OpenCL times its first launch to a marker after the last):
#  1. the launch floor again under each target (call 2: OpenCL 13.5 us a
#     run, CUDA 4.8)
#  2. MobileNet V2's depthwise layers benched again under --target cuda from
#     call 2's records, against cuDNN and PyTorch
#  3. VGG-16 and AlexNet benched under both targets from round 27's database
#     (call 1's conv3_1/conv3_2 records merged in), PyTorch in the same lease
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=$OUT/r; mkdir -p $R
D=bench/results/2026-12-02-bench-h200-r28
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
tiny='n=1,c=1,h=8,w=8,k=1,kh=1,kw=1,pad=0'
for t in opencl cuda; do
  build/convgen run "$tiny" --strategy direct --device nvidia --target $t --runs 20 > $R/floor_$t.txt 2>&1
done
gunzip -c $D/call2/dw.db.gz > $R/dw.db
dw=$(for i in 1 2 3 4 5 7 8 11 14 15; do printf 'mobilenet_v2.features.%s.dw ' $i; done)
build/convgen bench $dw --target cuda --device nvidia --db $R/dw.db --csv $R/dw_bench.csv > $R/dw_bench.txt 2> $R/dw_bench.log
echo "dw rc=$? $(date -u)" >> $R/info.txt
timeout 60 python3 bench/pytorch.py $R/dw_bench.csv --csv $R/dw_pytorch.csv > $R/dw_pytorch.log 2>&1
# round 27's records with call 1's fresh tune of conv3_1 and conv3_2 merged in (bench takes each layer's 3 best)
cp bench/results/2026-12-02-bench-h200-r27/call3/tune.db $R/tune.db
gunzip -c $D/call1/fresh.db.gz > /tmp/fresh.db
python3 bench/merge_db.py $R/tune.db /tmp/fresh.db >> $R/info.txt 2>&1
build/convgen bench vgg16 alexnet --target cuda --device nvidia --db $R/tune.db --budget 8 --csv $R/bench_cuda.csv > $R/bench_cuda.txt 2> $R/bench_cuda.log
echo "bench cuda rc=$? $(date -u)" >> $R/info.txt
timeout 100 python3 bench/pytorch.py $R/bench_cuda.csv --csv $R/pytorch.csv > $R/pytorch.log 2>&1
build/convgen bench vgg16 alexnet --device nvidia --db $R/tune.db --budget 8 --csv $R/bench.csv > $R/bench.txt 2> $R/bench.log
echo "bench opencl rc=$? $(date -u)" >> $R/info.txt
python3 bench/table.py $R/bench.csv $R/pytorch.csv > $R/table.md 2>&1
python3 bench/table.py $R/bench_cuda.csv $R/pytorch.csv > $R/table_cuda.md 2>&1
python3 bench/targets.py $R/bench.csv $R/bench_cuda.csv > $R/targets.md 2>&1
rm -f $R/*.db-*; rm -f $R/dw.db; gzip $R/tune.db
cat $R/info.txt; grep -h "^time\|k0" $R/floor_*.txt; tail -n 6 $R/dw_bench.txt; tail -n 5 $R/targets.md
cd $OUT && tar czf r.tgz r && rm -rf r
