# Round 32, call 2: vector loads that straddle a pad's border (lane-by-lane
# fallback, examples/ir/row_tile_padded.cg) on NVIDIA's OpenCL and under
# CUDA (NVRTC: the vector built as float4{...}): every example under both
# targets, and the new example at a size of a MobileNet row count.
# Carry [".debs"].
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=/tmp/r32/call2; mkdir -p $R
save() { tar czf $OUT/call2.tgz -C /tmp/r32 call2; }
trap save EXIT
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
timeout 150 scripts/run-examples.sh --device nvidia > $R/examples_opencl.txt 2>&1
echo "examples opencl rc=$? $(date -u)" >> $R/info.txt; save
timeout 150 scripts/run-examples.sh --device nvidia --target cuda > $R/examples_cuda.txt 2>&1
echo "examples cuda rc=$? $(date -u)" >> $R/info.txt; save
for t in opencl cuda; do
  for n in 6 1998 1000002; do
    timeout 30 build/convgen run examples/ir/row_tile_padded.cg -p N=$n --device nvidia --target $t > $R/row_tile_${t}_$n.txt 2>&1
    echo "row_tile $t N=$n rc=$? $(date -u)" >> $R/info.txt
  done
done
cat $R/info.txt; tail -n 2 $R/examples_*.txt; grep -h "check" $R/row_tile_*.txt
