# Round 29, call 4 (issue 12's closing figures): the 14 distinct VGG-16 and
# AlexNet layers benched under both targets on this round's code, the
# database every round so far built (round 28's, with call 2's fresh tune
# merged), PyTorch's cuDNN (bench/pytorch.py) in the same lease; then
# VGG-16 whole again under CUDA (call 3's database) with import's Identity
# fold (95a9a96: its classifier.3 Gemm as a tuned convolution). The archive
# is rewritten after each step, so that a call cut short still brings back
# what it did.
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
W=/tmp/m; mkdir -p $W
timeout 90 python3 bench/models.py $W --models vgg16 --export-only > $R/models.txt 2> $R/models.log
gunzip -c $D/call3/tune.db.gz > $R/call3.db
timeout 90 build/convgen infer $W/vgg16.onnx --input $W/vgg16_input.pb --expect $W/vgg16_output.pb --runs 20 \
  --target cuda --device nvidia --db $R/call3.db -v > $R/infer_vgg16_cuda.txt 2> $R/infer_vgg16_cuda.log
echo "infer vgg16 cuda rc=$? $(date -u)" >> $R/info.txt; rm -f $R/call3.db*
cat $R/info.txt; tail -n 12 $R/targets.md; grep -h "time:\|memory\|PASS\|FAIL" $R/infer_*.txt
