# The CUDA target's first run on the H200: every example under --target cuda
# (run-examples.sh), then vgg16.conv3_2's best OpenCL point under both
# targets, and alexnet.conv3's split-K best (two kernels) under both.
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=$OUT/cuda; mkdir -p $R
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "NVRTC: $CONVGEN_NVRTC"; } > $R/info.txt
timeout 60 scripts/run-examples.sh --target cuda > $R/examples.txt 2>&1; echo "examples rc=$?" >> $R/info.txt
P32="-p LK=2 -p LH=2 -p LW=2 -p LS=3 -p LC=2 -p LP=2 -p RW=7 -p RK=8 -p TW=8 -p TH=4 -p TK=2 -p CC=1"
PA3="-p LK=2 -p LH=2 -p LW=2 -p LS=3 -p LC=1 -p LP=2 -p LN=2 -p LX=2 -p CK=12 -p RW=1 -p RK=16 -p TW=13 -p TH=13 -p TK=1 -p CC=4"
for t in cuda opencl; do
  timeout 40 build/convgen run vgg16.conv3_2 --strategy s2 $P32 --target $t --device nvidia --runs 20 > $R/conv3_2.$t.txt 2>&1; echo "conv3_2 $t rc=$?" >> $R/info.txt
  timeout 30 build/convgen run alexnet.conv3 --strategy s2 $PA3 --target $t --device nvidia --runs 20 > $R/alexnet3.$t.txt 2>&1; echo "alexnet.conv3 $t rc=$?" >> $R/info.txt
done
echo "all done $(date -u)" >> $R/info.txt
cat $R/info.txt; tail -3 $R/examples.txt; grep -h "check\|^time" $R/*.txt
cd $OUT && tar czf cuda.tgz cuda && rm -rf cuda
