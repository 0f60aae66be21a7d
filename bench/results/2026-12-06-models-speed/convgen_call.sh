#!/usr/bin/env bash
# convgen_call.sh: one call of convgen's side (run2.sh and run3.sh name their
# models; a call for models left over is this script with CALL and MODELS):
#
#     CALL=call4 MODELS="NAME NAME" GIT_COMMIT=... bash bench/results/2026-12-06-models-speed/convgen_call.sh
#
# From the repository root on a fresh GPU machine, carrying .debs:
# export.py writes the models missing from WORK (default /tmp/models; a warm
# machine keeps them) into it, in the background while bench/h200-env.sh
# builds convgen; round 33's database (every H200 record so far, none of
# these models' layers) is unpacked as the untuned phase's "database of the
# other models"; then convgen.sh runs the models one after another (it
# starts each as soon as its export is done), with DEVICE=nvidia, and stops
# starting steps at the call's deadline (call.sh: CALL_BUDGET, 550 s).
#
# Environment: CALL (call2), MODELS (space- or comma-separated), WORK,
# CALL_BUDGET, EXPORTER (export.py's: dynamo for the other exporter), and
# convgen.sh's own: TUNE_TIME (30), TARGETS ("cuda opencl"), TUNE_TARGET
# (cuda), RUNS (20), PHASES, TUNE_SLACK, INFER_TIMEOUT, DEVICE (nvidia).
# Skipping the build (SKIP_BUILD=1, CONVGEN=path) and the export (files
# already in WORK) is for a test of the script off the GPU machine.
set -u
CALL=${CALL:-call2}
MODELS=${MODELS:?MODELS: the models of this call}
MODELS=${MODELS//,/ }
export TUNE_TIME=${TUNE_TIME:-30} TARGETS=${TARGETS:-cuda opencl} DEVICE=${DEVICE-nvidia}
. bench/results/2026-12-06-models-speed/call.sh "$CALL" "$0" "MODELS=$MODELS" "TUNE_TIME=$TUNE_TIME" \
  "TARGETS=$TARGETS" "TUNE_TARGET=${TUNE_TARGET:-cuda}" "RUNS=${RUNS:-20}" "PHASES=${PHASES:-untuned tune tuned}" \
  "EXPORTER=${EXPORTER:-torchscript}"
W=${WORK:-/tmp/models}
mkdir -p "$W"
export EXPORT_LOG=$R/export.log
need=""
for n in $MODELS; do
  if [ -f "$W/${n}_output.pb" ]; then echo "$n: exported (earlier, kept in $W)"; else need+=" $n"; fi
done > "$EXPORT_LOG"
if [ -n "$need" ]; then
  # shellcheck disable=SC2086 # the names, one word each
  python3 bench/results/2026-12-06-models-h100/export.py "$W" $need 2>&1 | grep --line-buffered -v Warning >> "$EXPORT_LOG" &
  export EXPORT_PID=$!
fi
if [ "${SKIP_BUILD:-0}" = 1 ]; then
  echo "build: skipped (SKIP_BUILD=1)" >> "$R/info.txt"
else
  . bench/h200-env.sh .debs > "$R/build.log" 2>&1 || { cat "$R/build.log"; tail -n 30 /tmp/h200-make.log; exit 1; }
fi
export CONVGEN=${CONVGEN:-build/convgen}
echo "convgen: $("$CONVGEN" --version)" >> "$R/info.txt"
echo "built: $(date -u '+%H:%M:%S UTC'), $(( $(date +%s) - START )) s after the start" >> "$R/info.txt"
export RDB=$R/other.db
gunzip -c bench/results/2026-12-03-bench-h200-r33/call3/tune.db.gz > "$RDB"
export SAVE=save
# shellcheck disable=SC2086 # the names, one word each
bash "$D/convgen.sh" "$W" "$R" $MODELS 2>&1 | tee "$R/convgen.txt"
echo "convgen.sh: done $(date -u '+%H:%M:%S UTC'), $(( $(date +%s) - START )) s after the start" >> "$R/info.txt"
rm -f "$RDB" "$RDB"-*
