# Round 27, first call: the CUDA target after the hold fix (CUDA_HOLD_MAX):
# every example and three random points of each strategy under --target
# cuda, then a tune of the 14 VGG-16/AlexNet layers under --target cuda
# started from round 26's OpenCL records (--warm-from opencl). The second
# call (run2.sh) benches both targets and PyTorch from this database.
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=$OUT/r27a; mkdir -p $R
cp bench/results/2026-12-02-bench-h200-r26/tune.db $R/tune.db
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "NVRTC: $CONVGEN_NVRTC"; } > $R/info.txt
CONVGEN_TIMEOUT=60 timeout 200 scripts/run-examples.sh --target cuda --device nvidia > $R/examples_cuda.txt 2>&1; echo "examples rc=$? $(date -u)" >> $R/info.txt
for s in direct s1 s2 s3; do for l in vgg16.conv4_2 'n=2,c=19,h=23,w=17,k=13,kh=3,kw=3,pad=1,bias=1,act=relu6'; do for k in 1 2 3; do
  timeout 30 build/convgen run "$l" --strategy $s --random $k --target cuda --device nvidia --sample 4096 >> $R/random_cuda.txt 2>&1
  echo "== $s $l random $k rc=$?" >> $R/random_cuda.txt
done; done; done
echo "random rc=$? $(date -u)" >> $R/info.txt
build/convgen tune vgg16 alexnet --strategy s2 --target cuda --warm-from opencl --warm-start 8 --time 300 --seed 71 --device nvidia --db $R/tune.db > $R/tune_cuda.txt 2> $R/tune_cuda.log
echo "tune cuda rc=$? $(date -u)" >> $R/info.txt
grep -c "rc=0" $R/random_cuda.txt >> $R/info.txt; tail -2 $R/examples_cuda.txt >> $R/info.txt
cat $R/info.txt
cd $OUT && tar czf r27a.tgz r27a && rm -rf r27a
