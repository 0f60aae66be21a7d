#!/usr/bin/env bash
# untuned_order.sh: what an untuned convolution should run, measured: the
# best point of a similar tuned layer (infer --untuned nearest, the default)
# or its own default point (--untuned default). ResNeXt-50 with call 9's
# database (its tune cut at 20 of 29 layers: 16 convolutions have no
# record), under CUDA, the two alternated twice in one lease.
#
#     GIT_COMMIT=... bash bench/results/2026-12-06-models-speed/untuned_order.sh
#
# Carry [".debs", ".speed-db"] (.speed-db/resnext_call9.db.gz: call9.tgz's
# db/resnext50_32x4d.db.gz). Writes $OUT/untuned_order.txt.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
log=$OUT/untuned_order.txt
{
  echo "commit: ${GIT_COMMIT:-unknown}"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
} > "$log"
W=/tmp/models
mkdir -p "$W"
python3 bench/results/2026-12-06-models-h100/export.py "$W" resnext50_32x4d > "$OUT/export.log" 2>&1 &
exp=$!
. bench/h200-env.sh .debs > "$OUT/build.log" 2>&1 || { echo "build failed" >> "$log"; exit 1; }
wait $exp || { echo "export failed" >> "$log"; exit 1; }
gunzip -c .speed-db/resnext_call9.db.gz > /tmp/resnext.db
n=resnext50_32x4d
for round in 1 2; do
  for u in nearest default; do
    echo "== round $round, --untuned $u" >> "$log"
    build/convgen infer "$W/$n.onnx" --input "$W/${n}_input.pb" --expect "$W/${n}_output.pb" --db /tmp/resnext.db \
      --target cuda --device nvidia --runs 20 --untuned "$u" > "$OUT/infer.out" 2> "$OUT/infer.err"
    echo "exit $?" >> "$log"
    grep -E "^time:|PASS|FAIL" "$OUT/infer.out" >> "$log"
    grep "convgen: note" "$OUT/infer.err" >> "$log"
  done
done
cat "$log"
