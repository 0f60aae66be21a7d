# Round 29, call 5 (issue 15): the fused residual (residual=1, fa16f06) on
# the GPU for the first time, in the device time left (under 5 minutes):
# random points of each strategy that takes it under both targets, checked
# against the float64 reference; bench on one ResNet-50 residual layer
# (cuDNN's fused call with its z input, CLBlast's epilogue); the suite's
# ResNet-18 (1/16 width, 8 residual Adds fused) run whole under both targets.
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=/tmp/r29/call5; mkdir -p $R
save() { tar czf $OUT/call5.tgz -C /tmp/r29 call5; }
trap save EXIT
L='n=1,c=64,h=56,w=56,k=256,kh=1,kw=1,bias=1,relu=1,residual=1'
for t in cuda opencl; do
  for s in direct s1 s3; do
    timeout 30 build/convgen run "$L" --strategy $s --random 1 --target $t --device nvidia > $R/run_${s}_$t.txt 2>&1
    echo "run $s $t rc=$?" >> $R/info.txt
  done
  timeout 30 build/convgen run "$L" --strategy s2 --random 1 -p LS=1 --target $t --device nvidia > $R/run_s2_ls1_$t.txt 2>&1
  echo "run s2 LS=1 $t rc=$?" >> $R/info.txt
  timeout 30 build/convgen run "$L" --strategy s2 --random 2 -p LX=2 --target $t --device nvidia > $R/run_s2_lx2_$t.txt 2>&1
  echo "run s2 LX=2 $t rc=$?" >> $R/info.txt
  timeout 30 build/convgen infer tests/onnx/resnet18.onnx --input tests/onnx/resnet18_input.pb \
    --expect tests/onnx/resnet18_output.pb --runs 10 --target $t --device nvidia > $R/resnet18_$t.txt 2>&1
  echo "resnet18 $t rc=$?" >> $R/info.txt; save
done
timeout 60 build/convgen bench "resnet50.layer3.1.conv3,relu=1,residual=1" --device nvidia --budget 4 \
  --csv $R/residual_bench.csv > $R/residual_bench.txt 2> $R/residual_bench.log
echo "bench residual rc=$? $(date -u)" >> $R/info.txt
cat $R/info.txt; grep -h "error\|PASS\|FAIL" $R/run_*.txt $R/resnet18_*.txt | head -30; tail -n 8 $R/residual_bench.txt
