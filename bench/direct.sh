#!/usr/bin/env bash
# The 'direct' strategy (one work-item per output, derived by rules from the
# high-level convolution) on every distinct VGG-16 and AlexNet layer, on the
# default device: each run checked against the plain float64 convolution, then
# timed (median of 20). Usage: bench/direct.sh OUTDIR [DEVICE].
# Writes OUTDIR/log.txt and OUTDIR/direct.md.
set -u
out=${1:?usage: bench/direct.sh OUTDIR [DEVICE]}
dev=${2:-}
mkdir -p "$out"
log="$out/log.txt" table="$out/direct.md"
devopt=()
[ -n "$dev" ] && devopt=(--device "$dev")
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  commit: ${COMMIT:-unknown}"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
} | tee "$log"
echo "| layer | check (relative L2) | median us | spread | GFLOP/s |" >"$table"
echo "|---|---|---|---|---|" >>"$table"
status=0
for l in vgg16.conv1_1 vgg16.conv1_2 vgg16.conv2_1 vgg16.conv2_2 vgg16.conv3_1 vgg16.conv3_2 vgg16.conv4_1 \
         vgg16.conv4_2 vgg16.conv5_1 alexnet.conv1 alexnet.conv2 alexnet.conv3 alexnet.conv4 alexnet.conv5; do
  res=$(./build/convgen run "$l" --strategy direct "${devopt[@]}" --runs 20 2>&1) || status=1
  echo "$res" >>"$log"
  check=$(echo "$res" | sed -n 's/^check *\([A-Z]*\) *relative L2 error \([^ ]*\).*/\1 \2/p')
  med=$(echo "$res" | sed -n 's/^time *\([0-9.]*\) us median.*/\1/p')
  spread=$(echo "$res" | sed -n 's/^time .*spread \([0-9.]*%\).*/\1/p')
  echo "| $l | $check | $med | $spread | |" >>"$table"
  echo "$l: $check ${med:-?} us ${spread:-}"
done | tee -a "$log"
cat "$table"
exit $status
