# Round 29, call 3 (issue 16): the three torchvision models whole under
# --target cuda with this round's import (Constant nodes; a Gemm with an
# initializer B run as a 1x1 convolution layer, tuned). Call 2's first try
# of this call did not get a machine.
#  1. bench/models.py --export-only: ResNet-50, MobileNet V2, VGG-16 (random
#     weights) to ONNX with float64 outputs (PyTorch's times: call 2)
#  2. the classifiers' Gemms tuned as layers (100 s for the five), then
#     MobileNet V2's layers (150 s: its pointwise layers had no records)
#  3. convgen infer --expect --runs 20 on each, -v (every node's time)
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
D=bench/results/2026-12-02-bench-h200-r29
R=/tmp/r29/call3; mkdir -p $R; W=/tmp/m; mkdir -p $W
save() { tar czf $OUT/call3.tgz --exclude='*.db-*' -C /tmp/r29 call3; }
trap 'rm -f $R/*.db-*; [ -f $R/tune.db ] && gzip -f $R/tune.db; save' EXIT
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
timeout 150 python3 bench/models.py $W --models resnet50,mobilenet_v2,vgg16 --export-only > $R/models.txt 2> $R/models.log
echo "models rc=$? $(date -u)" >> $R/info.txt
gunzip -c bench/results/2026-12-02-bench-h200-r28/call4/tune.db.gz > $R/tune.db
gunzip -c $D/call2/fresh.db.gz > /tmp/fresh2.db && python3 bench/merge_db.py $R/tune.db /tmp/fresh2.db >> $R/info.txt 2>&1
for net in resnet50 mobilenet_v2 vgg16; do build/convgen import $W/$net.onnx > $R/import_$net.txt 2>&1; done
fc='bias=1,kh=1,kw=1,h=1,w=1,n=1'
timeout 120 build/convgen tune "c=25088,k=4096,relu=1,$fc" "c=4096,k=4096,relu=1,$fc" "c=4096,k=1000,$fc" \
  "c=2048,k=1000,$fc" "c=1280,k=1000,$fc" --target cuda --time 100 --device nvidia --db $R/tune.db > $R/tune_fc.txt 2> $R/tune_fc.log
echo "tune fc rc=$? $(date -u)" >> $R/info.txt; save
timeout 170 build/convgen tune $W/mobilenet_v2.onnx --target cuda --time 150 --device nvidia --db $R/tune.db > $R/tune_mnv2.txt 2> $R/tune_mnv2.log
echo "tune mobilenet_v2 rc=$? $(date -u)" >> $R/info.txt; save
for net in resnet50 mobilenet_v2 vgg16; do
  timeout 90 build/convgen infer $W/$net.onnx --input $W/${net}_input.pb --expect $W/${net}_output.pb --runs 20 \
    --target cuda --device nvidia --db $R/tune.db -v > $R/infer_${net}_cuda.txt 2> $R/infer_${net}_cuda.log
  echo "infer $net cuda rc=$? $(date -u)" >> $R/info.txt; save
done
cat $R/info.txt; tail -n 7 $R/tune_fc.txt; grep -h "time:\|memory\|PASS\|FAIL" $R/infer_*.txt
