# shellcheck shell=bash
# call.sh NAME: sourced by run1.sh, run2.sh, run3.sh (from the repository
# root on the GPU machine): the call's folder /tmp/speed/NAME (R), its
# deadline, info.txt, and save, which puts the folder into $OUT as NAME.tgz
# (logs and CSVs; each tuning database gzipped, the working copies left
# out) with the CSVs and info.txt beside it: 3 to 4 of the 8 files a call
# brings back. save runs after every step and at the exit, so a call cut
# short keeps what it finished.
#
# Environment: CALL_BUDGET (seconds from the start the call's work must end
# by, default 550: a command is killed at 600 s), DEADLINE (epoch seconds,
# instead of CALL_BUDGET), GIT_COMMIT (the commit sent; the machine's copy
# has no .git: `GIT_COMMIT=$(git rev-parse --short HEAD)` on the sending
# side), OUT (default /tmp/out).
D=bench/results/2026-12-06-models-speed
CALL=$1
START=$(date +%s)
DEADLINE=${DEADLINE:-$(( START + ${CALL_BUDGET:-550} ))}
R=/tmp/speed/$CALL
OUT=${OUT:-/tmp/out}
export D CALL DEADLINE R OUT
export GIT_COMMIT=${GIT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
export PYTHONUNBUFFERED=1
rm -rf "$R" && mkdir -p "$R" "$OUT"
save() {
  local db
  for db in "$R"/db/*.db; do
    [ -f "$db" ] && { [ ! -f "$db.gz" ] || [ "$db" -nt "$db.gz" ]; } && gzip -9 -c "$db" > "$db.gz"
  done
  tar czf "$OUT/$CALL.tgz.tmp" --exclude='*.db' --exclude='*.db-*' -C "$(dirname "$R")" "$CALL" 2>/dev/null &&
    mv -f "$OUT/$CALL.tgz.tmp" "$OUT/$CALL.tgz"
  cp -f "$R"/*.csv "$R/info.txt" "$OUT/" 2>/dev/null
  return 0
}
export -f save
{
  echo "call: $CALL"
  echo "command: ${*:2}"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "commit: $GIT_COMMIT"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -n 1)"
  echo "cpus: $(nproc)"
  echo "python: $(python3 -c 'import torch, torchvision; print("torch", torch.__version__, "torchvision", torchvision.__version__)' 2>/dev/null)"
} > "$R/info.txt"
trap 'echo "end: $(date -u "+%Y-%m-%d %H:%M:%S UTC")" >> "$R/info.txt"; save' EXIT
