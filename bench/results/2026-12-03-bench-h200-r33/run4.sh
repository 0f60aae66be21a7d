# Round 33, call 4: the final tree (the lowering's lane test over full
# ranges, the prefetch's gather pad value, vectors kept as vectors read
# back whole): every example and every tests/programs corner case under
# both targets on the H200, and dw's random points (seeds 5, 6) on the
# MobileNet V2 depthwise layers under both. Carry [".debs"].
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=/tmp/r33/call4; mkdir -p $R
save() { tar czf $OUT/call4.tgz -C /tmp/r33 call4; }
trap save EXIT
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
  for i in 1 2 3 4 5 7 8 12 14 15; do
    for s in 5 6; do
      out=$(timeout 30 build/convgen run mobilenet_v2.features.$i.dw --strategy dw --random $s --target $t --device nvidia --runs 10 2>&1)
      echo "$t mobilenet_v2.features.$i.dw $s rc=$? $(echo "$out" | grep -E '^program|^check|convgen:' | tr '\n' ' ')" >> $R/random.txt
    done
  done
done
echo "programs pass=$(grep -c 'check     PASS' $R/programs.txt) of $(wc -l < $R/programs.txt) $(date -u)" >> $R/info.txt
echo "random pass=$(grep -c 'check     PASS' $R/random.txt) of $(wc -l < $R/random.txt) $(date -u)" >> $R/info.txt; save
cat $R/info.txt; grep -v "check     PASS" $R/programs.txt $R/random.txt | head
