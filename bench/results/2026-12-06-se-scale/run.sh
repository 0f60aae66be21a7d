#!/usr/bin/env bash
# run.sh: the squeeze-excite scale fused into the projection after it
# (scale=1, commit GIT_COMMIT) against the commit before the fusion
# (BEFORE), in one lease. From the repository root on the GPU machine,
# carrying .debs, .speed-db (the models' tuned databases) and .old-src
# (`git archive BEFORE | tar -x -C .old-src`, bench/results, tests and docs
# left out):
#
#     GIT_COMMIT=... BEFORE=... bash bench/results/2026-12-06-se-scale/run.sh
#
# Builds both, exports MODELS (default: efficientnet_b0 mobilenet_v3_large
# regnet_y_400mf) with export.py, unpacks each one's database from
# .speed-db, lists the layers with scale=1 that `convgen import` (the new
# binary) makes and tunes them alone (`convgen tune SPEC... --time T
# --target cuda`, T = TUNE_PER_LAYER s a layer, into the same database:
# its other layers' records are the ones both binaries run), and the same
# layers without scale=1 with the old binary for as long, then runs
# `convgen infer NAME.onnx --input --expect --runs 20 --target cuda -v`
# with the old binary, the new, the old and the new again. Writes
# $R/se_scale.txt (R: /tmp/se_scale) and the logs, and $OUT/se_scale.tgz
# and se_scale.txt when OUT is set. BUDGET (560): seconds, a step past it
# skipped.
set -u
START=$(date +%s)
BUDGET=${BUDGET:-560}
R=${R:-/tmp/se_scale}
W=${WORK:-/tmp/models}
MODELS=${MODELS:-efficientnet_b0 mobilenet_v3_large regnet_y_400mf}
PER=${TUNE_PER_LAYER:-8}
mkdir -p "$R/logs" "$W"
save() { [ -n "${OUT:-}" ] && { tar -czf "$OUT/se_scale.tgz" -C "$R" se_scale.txt logs; cp "$R/se_scale.txt" "$OUT/"; }; }
trap save EXIT
left() { echo $(( BUDGET - ($(date +%s) - START) )); }
need=""
for n in $MODELS; do [ -f "$W/${n}_output.pb" ] || need+=" $n"; done
# shellcheck disable=SC2086 # the names, one word each
[ -z "$need" ] || python3 bench/results/2026-12-06-models-h100/export.py "$W" $need > "$R/logs/export.log" 2>&1 &
export_pid=$!
. bench/h200-env.sh .debs > "$R/logs/build.log" 2>&1 || { tail -n 30 "$R/logs/build.log"; exit 1; }
(cd .old-src && GIT_COMMIT=${BEFORE:-before} make -j16 BUILD=build build/convgen > "$R/logs/build-old.log" 2>&1) ||
  { tail -n 30 "$R/logs/build-old.log"; exit 1; }
wait "$export_pid"
{
  echo "commit: ${GIT_COMMIT:-?} ($(build/convgen --version)), before: ${BEFORE:-?} ($(.old-src/build/convgen --version))"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
} > "$R/se_scale.txt"
for n in $MODELS; do
  gunzip -c ".speed-db/$n.db.gz" > "$R/$n.db"
  build/convgen import "$W/$n.onnx" > "$R/logs/$n.import" 2>&1
  mapfile -t specs < <(grep -o 'layer [^ ]*scale=1' "$R/logs/$n.import" | sed 's/^layer //' | sort -u)
  t=$(( PER * ${#specs[@]} ))
  if [ "$(left)" -lt $(( 2 * t + 60 )) ]; then echo "$n: skipped (the budget)" >> "$R/se_scale.txt"; continue; fi
  t0=$(date +%s)
  timeout $(( t + 60 )) build/convgen tune "${specs[@]}" --time "$t" --target cuda --db "$R/$n.db" \
    > "$R/logs/$n.tune.out" 2> "$R/logs/$n.tune.err"
  echo "$n: ${#specs[@]} layers with scale=1 tuned, --time $t: exit $?, $(( $(date +%s) - t0 )) s" >> "$R/se_scale.txt"
  # the same layers without the scale, as the old binary runs them, tuned as long (fair on any GPU)
  t0=$(date +%s)
  timeout $(( t + 60 )) .old-src/build/convgen tune "${specs[@]%,scale=1}" --time "$t" --target cuda \
    --db "$R/$n.db" > "$R/logs/$n.tune-old.out" 2> "$R/logs/$n.tune-old.err"
  echo "$n: the same ${#specs[@]} layers without scale=1 tuned by the old binary, --time $t: exit $?," \
    "$(( $(date +%s) - t0 )) s" >> "$R/se_scale.txt"
  for k in 1 2; do
    for which in before after; do
      [ "$(left)" -lt 20 ] && { echo "$n $which $k: skipped (the budget)" >> "$R/se_scale.txt"; continue; }
      bin=build/convgen
      [ "$which" = before ] && bin=.old-src/build/convgen
      f=$R/logs/$n.$which.$k
      timeout 120 "$bin" infer "$W/$n.onnx" --input "$W/${n}_input.pb" --expect "$W/${n}_output.pb" --runs 20 \
        --target cuda --db "$R/$n.db" -v > "$f.out" 2> "$f.err"
      rc=$?
      echo "$n $which $k: exit $rc; $(grep -o 'PASS relative L2 error [^ ]*' "$f.out");" \
        "$(grep -o '^time: [0-9.]* us a run[^;]*' "$f.out"); $(grep -c '(Conv): tuned' "$f.err") convolutions on their own record" \
        >> "$R/se_scale.txt"
    done
  done
done
cat "$R/se_scale.txt"
