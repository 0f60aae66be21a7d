#!/usr/bin/env bash
# run.sh: the operator table's new rows (issue 30: elementwise, reductions,
# layout, shape folding, fused SiLU/hard swish) and ONNX's node tests on the
# GPU machine: every CLI test of them and tests/cli/node-tests.sh, first
# under the default target (NVIDIA's OpenCL on the GPU), then under CUDA (a
# wrapper adds --target cuda to every infer). Run from the repository root
# with bench/h200-env.sh's packages in .debs; logs into $OUT.
set -uo pipefail
out=${OUT:-/tmp/out}
. bench/h200-env.sh .debs || exit 1
build/convgen --version
build/convgen devices 2>&1 | grep -E "^device|platform" | head -6
cat >/tmp/cg-cuda <<'W'
#!/usr/bin/env bash
# convgen with --target cuda after infer (the CLI tests run infer without it)
if [ "${1:-}" = infer ]; then shift; exec "$CG_REAL" infer --target cuda "$@"; fi
exec "$CG_REAL" "$@"
W
chmod +x /tmp/cg-cuda
export CG_REAL=$PWD/build/convgen
tests=(ops-elementwise ops-layout ops-reduce fusion infer node-tests)
for target in opencl cuda; do
  cg=$PWD/build/convgen
  [ "$target" = cuda ] && cg=/tmp/cg-cuda
  for t in "${tests[@]}"; do
    start=$(date +%s)
    CONVGEN=$cg NODE_TESTS_JOBS=8 timeout 400 bash "tests/cli/$t.sh" >"$out/$target-$t.log" 2>&1
    echo "$target $t: exit $? ($(( $(date +%s) - start )) s)" | tee -a "$out/summary.txt"
  done
done
# a layer's record under CUDA is used under OpenCL on the same GPU (and
# the other way), and infer says how many convolutions had no record
db=/tmp/twin.db
build/convgen tune n=1,c=3,h=16,w=16,k=8,kh=3,kw=3,stride=2,pad=1,bias=1,relu=1 --strategy s2 --budget 3 \
  --target cuda --db "$db" >"$out/twin.log" 2>&1
for target in opencl cuda; do
  build/convgen infer tests/onnx/block.onnx --input tests/onnx/block_input.pb --expect tests/onnx/block_output.pb \
    --db "$db" --target "$target" -v >>"$out/twin.log" 2>&1
  echo "infer --target $target with CUDA records: exit $?" | tee -a "$out/summary.txt"
done
grep -E "conv1 \(Conv\)|note:|PASS|FAIL" "$out/twin.log" | tee -a "$out/summary.txt"
grep -hE "passed|refused|wrong|PASS relative|FAIL" "$out"/cuda-node-tests.log | tail -5
tar czf "$out/logs.tgz" -C "$out" --exclude logs.tgz . 2>/dev/null
