# Round 30, call 1. About 8 minutes. Carry [".debs"]
# (with protoc-c's packages: bench/h200-env.sh says which).
#  1. ResNet-50 and MobileNet V2 with the fused residual (residual=1, merged
#     after round 29's call 3): their fused layers are new to the database;
#     tuned under CUDA (120 s each model, --transfer from the unfused
#     layers' records), then run whole against their float64 outputs
#  2. the residual baselines: bench on four ResNet-50 residual layers (named
#     layers carry residual=1 where import fuses the block's Add)
#     (cuDNN's fused call with its z input, CLBlast's epilogue)
#  3. the CUDA bench of the AlexNet layers round 29's call 4 did not reach
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=/tmp/r30/call1; mkdir -p $R; W=/tmp/m; mkdir -p $W
save() { tar czf $OUT/call1.tgz --exclude='*.db-*' -C /tmp/r30 call1; }
trap 'rm -f $R/*.db-*; [ -f $R/tune.db ] && gzip -f $R/tune.db; save' EXIT
timeout 150 python3 bench/models.py $W --models resnet50,mobilenet_v2 --export-only > $R/models.txt 2> $R/models.log
gunzip -c bench/results/2026-12-02-bench-h200-r29/call3/tune.db.gz > $R/tune.db
for net in resnet50 mobilenet_v2; do
  build/convgen import $W/$net.onnx > $R/import_$net.txt 2>&1
  timeout 140 build/convgen tune $W/$net.onnx --target cuda --time 120 --device nvidia --db $R/tune.db > $R/tune_$net.txt 2> $R/tune_$net.log
  timeout 90 build/convgen infer $W/$net.onnx --input $W/${net}_input.pb --expect $W/${net}_output.pb --runs 20 \
    --target cuda --device nvidia --db $R/tune.db -v > $R/infer_${net}_cuda.txt 2> $R/infer_${net}_cuda.log
  echo "$net rc=$? $(date -u)" >> $R/info.txt; save
done
timeout 90 build/convgen bench resnet50.layer1.1.conv3 resnet50.layer2.1.conv3 resnet50.layer3.1.conv3 \
  resnet50.layer4.1.conv3 --target cuda --device nvidia --db $R/tune.db --csv $R/residual.csv > $R/residual.txt 2> $R/residual.log
timeout 60 build/convgen bench alexnet.conv2 alexnet.conv3 alexnet.conv4 alexnet.conv5 --target cuda --device nvidia \
  --db $R/tune.db --csv $R/alexnet_cuda.csv > $R/alexnet_cuda.txt 2> $R/alexnet_cuda.log
cat $R/info.txt; grep -h "time:\|memory\|PASS\|FAIL" $R/infer_*.txt
