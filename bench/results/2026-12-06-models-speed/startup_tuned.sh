#!/usr/bin/env bash
# startup_tuned.sh: startup.sh on a ResNet-50 tuned on the GPU it runs on,
# one call of the device tool from the repository root, carrying .debs:
#
#     GIT_COMMIT=... bash bench/results/2026-12-06-models-speed/startup_tuned.sh
#
# Builds convgen (bench/h200-env.sh), exports torchvision's ResNet-50
# (bench/models.py), tunes it for TUNE_TIME seconds (default 60) under each
# target into a database of its own (round 33's H200 records are not this
# GPU's when an H100 comes), then runs startup.sh with THREADS (default
# "1 16": the builds one at a time, then sixteen at once), every start of a
# tuned network. Writes $OUT/startup.tgz (startup.txt, the tunes' tables,
# the logs) when OUT is set, else leaves them in R (default /tmp/startup).
set -u
R=${R:-/tmp/startup}
mkdir -p "$R/logs"
. bench/h200-env.sh .debs > "$R/logs/build.log" 2>&1 || { tail -n 30 "$R/logs/build.log"; exit 1; }
W=${WORK:-/tmp/models}
mkdir -p "$W"
[ -f "$W/resnet50_output.pb" ] || python3 bench/models.py "$W" --models resnet50 --export-only > "$R/logs/export.log" 2>&1
DB=$R/resnet50.db
rm -f "$DB"
for t in cuda opencl; do
  build/convgen tune "$W/resnet50.onnx" --time "${TUNE_TIME:-60}" --target "$t" --db "$DB" ${DEVICE:+--device "$DEVICE"} \
    > "$R/logs/tune.$t.out" 2> "$R/logs/tune.$t.err"
  echo "tune --target $t: exit $?" >> "$R/logs/tune.txt"
done
CONVGEN=build/convgen THREADS=${THREADS:-1 16} R=$R DB=$DB WORK=$W bash bench/results/2026-12-06-models-speed/startup.sh
if [ -n "${OUT:-}" ]; then
  gzip -c "$DB" > "$R/resnet50.db.gz"
  tar -czf "$OUT/startup.tgz" -C "$R" startup.txt logs resnet50.db.gz
  cp "$R/startup.txt" "$OUT/"
fi
