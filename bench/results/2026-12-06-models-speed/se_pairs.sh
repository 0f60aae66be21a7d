#!/usr/bin/env bash
# se_pairs.sh: the squeeze-excite pairs of one pixel (commit eac0e98) against
# the commit before them, in one lease: the tuned models with SE blocks run
# by both binaries, alternately, under each target. From the repository
# root on the GPU machine, carrying .debs, .speed-db and .old-src (the
# commit before, `git archive BEFORE | tar -x -C .old-src`, its bench/results,
# tests and docs left out):
#
#     GIT_COMMIT=... BEFORE=... bash bench/results/2026-12-06-models-speed/se_pairs.sh
#
# Builds both (bench/h200-env.sh; the old one in .old-src), exports MODELS
# (default: efficientnet_b0 mobilenet_v3_large regnet_y_400mf) with
# export.py into WORK (/tmp/models), unpacks each one's database from
# .speed-db, and runs `convgen infer NAME.onnx --input --expect --runs 20
# --target T --db NAME.db -v` with the old binary, the new, the old and the
# new again. Writes $R/se_pairs.txt (R: /tmp/se_pairs) and the logs, and
# $OUT/se_pairs.tgz when OUT is set.
set -u
R=${R:-/tmp/se_pairs}
W=${WORK:-/tmp/models}
MODELS=${MODELS:-efficientnet_b0 mobilenet_v3_large regnet_y_400mf}
mkdir -p "$R/logs" "$W"
need=""
for n in $MODELS; do [ -f "$W/${n}_output.pb" ] || need+=" $n"; done
# shellcheck disable=SC2086 # the names, one word each
[ -z "$need" ] || python3 bench/results/2026-12-06-models-h100/export.py "$W" $need > "$R/logs/export.log" 2>&1 &
export_pid=$!
. bench/h200-env.sh .debs > "$R/logs/build.log" 2>&1 || { tail -n 30 "$R/logs/build.log"; exit 1; }
(cd .old-src && GIT_COMMIT=${BEFORE:-before} make -j16 BUILD=build > "$R/logs/build-old.log" 2>&1) ||
  { tail -n 30 "$R/logs/build-old.log"; exit 1; }
wait "$export_pid"
{
  echo "commit: ${GIT_COMMIT:-?} ($(build/convgen --version)), before: ${BEFORE:-?} ($(.old-src/build/convgen --version))"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  for n in $MODELS; do
    gunzip -c ".speed-db/$n.db.gz" > "$R/$n.db"
    for t in cuda opencl; do
      for k in 1 2; do
        for which in before after; do
          bin=build/convgen
          [ "$which" = before ] && bin=.old-src/build/convgen
          f=$R/logs/$n.$t.$which.$k
          timeout 240 "$bin" infer "$W/$n.onnx" --input "$W/${n}_input.pb" --expect "$W/${n}_output.pb" --runs 20 \
            --target "$t" --db "$R/$n.db" -v > "$f.out" 2> "$f.err"
          rc=$?
          echo "$n $t $which $k: exit $rc; $(grep -o 'PASS relative L2 error [^ ]*' "$f.out");" \
            "$(grep -o '^time: [0-9.]* us a run[^;]*' "$f.out"); $(grep -c 'a pair of one pixel' "$f.err") pairs"
        done
      done
    done
  done
} | tee "$R/se_pairs.txt"
if [ -n "${OUT:-}" ]; then tar -czf "$OUT/se_pairs.tgz" -C "$R" se_pairs.txt logs; cp "$R/se_pairs.txt" "$OUT/"; fi
