# Round 32, call 3: the vector reads through pads after the review's fixes
# (790a753 and its corner cases): every example and every tests/programs
# case under both targets on the H200, and the 2-D row-tile example at a
# MobileNet-like plane size. Carry [".debs"].
set -u
export GIT_COMMIT=${GIT_COMMIT:-unknown}
. bench/h200-env.sh .debs || exit 1
R=/tmp/r32/call3; mkdir -p $R
save() { tar czf $OUT/call3.tgz -C /tmp/r32 call3; }
trap save EXIT
{ date -u; build/convgen --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $R/info.txt
for t in opencl cuda; do
  timeout 150 scripts/run-examples.sh --device nvidia --target $t > $R/examples_$t.txt 2>&1
  echo "examples $t rc=$? $(date -u)" >> $R/info.txt
  for f in tests/programs/*.cg; do
    args=$(sed -n 's/^# run://p' $f | head -1)
    echo "== $f $args" >> $R/programs_$t.txt
    timeout 30 build/convgen run $f $args --device nvidia --target $t >> $R/programs_$t.txt 2>&1
    echo "$f $t rc=$?" >> $R/info.txt
  done
  for hw in "28 48" "112 114"; do
    set -- $hw
    timeout 30 build/convgen run examples/ir/stencil2d_tile.cg -p H=$1 -p W=$2 --device nvidia --target $t > $R/stencil2d_tile_${t}_$1x$2.txt 2>&1
    echo "stencil2d_tile $t ${1}x$2 rc=$? $(date -u)" >> $R/info.txt
  done
  save
done
cat $R/info.txt | grep -v " rc=0" ; tail -n 1 $R/examples_*.txt; grep -c "check     PASS" $R/programs_*.txt; grep -h "check" $R/stencil2d_tile_*.txt
