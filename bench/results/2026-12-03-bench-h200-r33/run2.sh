# Round 33, call 2: the lowering's gather (commit 6e4d358: a vector whose
# lanes are apart in memory read lane by lane) under both targets: every
# example and every tests/programs corner case on the H200; then MobileNet V2
# whole (torchvision's, random weights, exported by bench/models.py with
# PyTorch's times) run by `convgen infer --target cuda` with call 1's
# database, where dw's kernels are the best records of 5 depthwise layers,
# its output checked against the model's float64 output.
# Carry [".debs"]. The archive is rewritten after each step.
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
D=bench/results/2026-12-03-bench-h200-r33
R=/tmp/r33/call2; mkdir -p $R; W=/tmp/m; mkdir -p $W
save() { tar czf $OUT/call2.tgz --exclude='*.db' --exclude='*.db-*' -C /tmp/r33 call2; }
trap 'rm -f $R/*.db*; save' EXIT
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
timeout 120 scripts/run-examples.sh --device nvidia > $R/examples_opencl.txt 2>&1
echo "examples opencl rc=$? $(tail -1 $R/examples_opencl.txt) $(date -u)" >> $R/info.txt
timeout 120 scripts/run-examples.sh --device nvidia --target cuda > $R/examples_cuda.txt 2>&1
echo "examples cuda rc=$? $(tail -1 $R/examples_cuda.txt) $(date -u)" >> $R/info.txt; save
for t in opencl cuda; do
  for f in tests/programs/*.cg; do
    args=$(awk '/^#[ \t]*run:/ { sub(/^#[ \t]*run:[ \t]*/, ""); print; exit } !/^#/ && NF { exit }' "$f")
    out=$(timeout 30 build/convgen run $f $args --seed 11 --target $t --device nvidia 2>&1)
    echo "$t $f rc=$? $(echo "$out" | grep -E '^check|convgen:' | tr '\n' ' ')" >> $R/programs.txt
  done
done
echo "programs pass=$(grep -c 'check     PASS' $R/programs.txt) of $(wc -l < $R/programs.txt) $(date -u)" >> $R/info.txt; save
timeout 150 python3 bench/models.py $W --models mobilenet_v2 --csv $R/pytorch_models.csv > $R/models.txt 2> $R/models.log
echo "models rc=$? $(date -u)" >> $R/info.txt; save
gunzip -c $D/call1/tune.db.gz > $R/tune.db
timeout 60 build/convgen infer $W/mobilenet_v2.onnx --input $W/mobilenet_v2_input.pb --expect $W/mobilenet_v2_output.pb \
  --runs 20 --target cuda --device nvidia --db $R/tune.db -v > $R/infer_mobilenet_v2_cuda.txt 2> $R/infer_mobilenet_v2_cuda.log
echo "infer mobilenet_v2 rc=$? $(date -u)" >> $R/info.txt; save
cat $R/info.txt; grep -v "PASS" $R/programs.txt | head; cat $R/models.txt; grep -h "time:\|memory\|PASS\|FAIL" $R/infer_*.txt | head; grep -h "dw" $R/infer_*.log | head -20
