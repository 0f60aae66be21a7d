#!/usr/bin/env bash
# convgen.sh WORK OUTDIR MODEL...: issue 30's speed run of convgen on the
# given models, whose files export.py wrote into WORK (NAME.onnx,
# NAME_input.pb, NAME_output.pb). Per model, each step under `timeout`, a
# failure recorded and the loop going on:
#
#   import   `convgen import NAME.onnx`: its convolutions and distinct layers
#            (a refused model stops here, its reason recorded)
#   untuned  `convgen infer NAME.onnx --input --expect --runs $RUNS --target T
#            --db $RDB -v` for each target: $RDB stands for "the database of
#            the other models" (the run scripts give a copy of round 33's
#            call3/tune.db.gz, every H200 record so far; none of it is of
#            these models' layers), so each convolution runs the best point of
#            the most alike tuned layer, or the direct kernel
#   tune     `convgen tune NAME.onnx --time T --target $TUNE_TARGET --db
#            OUTDIR/db/NAME.db` from an empty database
#   tuned    infer as untuned, each target, with OUTDIR/db/NAME.db (under
#            OpenCL a CUDA tune's records run as "tuned under the other
#            target": a point is the same choices in either language)
#
# Writes OUTDIR/convgen.csv (one row per model, phase and target; rewritten
# row by row) and OUTDIR/logs/NAME.PHASE[.TARGET].{out,err}. Columns: us,
# spread_pct, reps and batches from infer's "time:" line; act_MB, buffers,
# weights_MB, temp_MB from its "device memory:" line and mem_MB their sum
# (activations + weights + temporaries); rel_l2 and PASS/FAIL from its
# --expect line; the kernels infer says (-v) each convolution ran: own (its
# own record on this device and target), other_target (its record under the
# other target), nearest (the best point of a similar tuned layer), direct;
# note (the untuned note on stderr, or the error); for tune: tune_s (the
# --time given), layers_tuned (layers with a correct record) of layers,
# measured (candidates measured); wall_s every step's wall time; ref_l2 the
# L2 norm of NAME_output.pb (pytorch.py's ref_l2 is the same model's).
#
# Environment (defaults in brackets):
#   CONVGEN [build/convgen]   TARGETS ["cuda opencl"]   TUNE_TARGET [cuda]
#   TUNE_TIME [30]: tune --time per model   TUNE_MIN [10]: the least --time a
#     deadline may cut it to   TUNE_SLACK [150]: the tune's timeout is
#     --time + this (a layer without a correct kernel goes on past --time
#     until its first, 10 s at most each); a deadline cuts --time to the
#     larger of half what is left and what is left less TUNE_SLACK
#   TUNE_RESUME [0]: 1 tunes on in DB_FROM's database of the model (the
#     --time of the two tunes adds) instead of from an empty one   TUNE_JOBS: tune --jobs (its default:
#     one per CPU, 16 at most)
#   RUNS [20]   DEVICE: --device (empty: convgen's default, the first GPU)
#   RDB: the database for untuned (a path; required when PHASES has untuned)
#   INFER_TIMEOUT [240]   PHASES ["untuned tune tuned"]
#   DEADLINE [0]: epoch seconds this script must end by (0: none): a step's
#     timeout is cut to what is left, the tune's --time (TUNE_SLACK) to what
#     is left after the tuned infers' estimate (the untuned infers' wall
#     times x 1.5 + 10 s), and a step with under 15 s left is "skipped (deadline)"
#   EXPORT_LOG, EXPORT_PID: export.py's log and process when it runs beside
#     this script: a model's files are waited for until its "NAME: exported"
#     line (or its process's end)
#   SAVE: a command run after every step (the run scripts' tar into $OUT)
#
# Time per model (H200, estimates): import under 2 s; an infer is mostly
# compiling its distinct kernels, about 0.3 s (1x1, depthwise) to 2 s (3x3
# staged s2) each under CUDA (NVRTC), less under NVIDIA's OpenCL, plus about
# 2 s: ~10-60 s a model and target; tune about max(TUNE_TIME, 1.5 s x the
# distinct layers) (each layer walks at least to its first correct kernel).
set -uo pipefail
work=${1:?usage: convgen.sh WORK OUTDIR MODEL...}
outdir=${2:?usage: convgen.sh WORK OUTDIR MODEL...}
shift 2
CONVGEN=${CONVGEN:-build/convgen}
TARGETS=${TARGETS:-cuda opencl}
TUNE_TARGET=${TUNE_TARGET:-cuda}
TUNE_TIME=${TUNE_TIME:-30}
TUNE_MIN=${TUNE_MIN:-10}
TUNE_SLACK=${TUNE_SLACK:-150}
TUNE_JOBS=${TUNE_JOBS:-}
RUNS=${RUNS:-20}
DEVICE=${DEVICE:-}
RDB=${RDB:-}
INFER_TIMEOUT=${INFER_TIMEOUT:-240}
PHASES=${PHASES:-untuned tune tuned}
DEADLINE=${DEADLINE:-0}
EXPORT_LOG=${EXPORT_LOG:-}
EXPORT_PID=${EXPORT_PID:-}
SAVE=${SAVE:-true}   # a command line, eval'd
logs=$outdir/logs
dbdir=$outdir/db
csv=$outdir/convgen.csv
mkdir -p "$logs" "$dbdir"
case " $PHASES " in *" untuned "*) [ -n "$RDB" ] && [ -f "$RDB" ] || { echo "convgen.sh: RDB (the untuned phase's database) is not a file: '$RDB'" >&2; exit 2; } ;; esac
cols=model,phase,target,status,rc,us,spread_pct,reps,batches,act_MB,buffers,weights_MB,temp_MB,mem_MB,rel_l2,convs,distinct,own,other_target,nearest,direct,tune_s,layers_tuned,layers,measured,wall_s,ref_l2,note
[ -f "$csv" ] || echo "$cols" > "$csv"

now() { date +%s; }
left() { if [ "$DEADLINE" -gt 0 ]; then echo $(( DEADLINE - $(now) )); else echo 1000000; fi; }
# the timeout for a step that would take up to $1 s: what is left if less
cap() { local l; l=$(left); [ "$l" -lt "$1" ] && echo "$l" || echo "$1"; }
q() { local s=${1//$'\n'/ }; printf '"%s"' "${s//\"/\"\"}"; }   # a CSV field, quoted

# row FIELD=VALUE...: one CSV line in $cols order (absent fields empty)
row() {
  local -A f=()
  local kv line="" c
  for kv in "$@"; do f[${kv%%=*}]=${kv#*=}; done
  IFS=, read -ra names <<<"$cols"
  for c in "${names[@]}"; do
    case $c in note|status) line+=$(q "${f[$c]:-}"), ;; *) line+="${f[$c]:-}", ;; esac
  done
  echo "${line%,}" >> "$csv"
}

# infer_fields OUT ERR: the fields of an infer's output, as FIELD=VALUE words
infer_fields() {
  local out=$1 err=$2 t m p
  t=$(sed -nE 's/^time: ([0-9.]+) us a run, median of ([0-9]+) batches of ([0-9]+) runs.*\(spread ([0-9.]+)%\).*/us=\1 batches=\2 reps=\3 spread_pct=\4/p' "$out" | head -n 1)
  m=$(sed -nE "s/^device memory: activations ([0-9.]+) MB in ([0-9]+) buffers \(each its own: [0-9.]+ MB\), weights ([0-9.]+) MB, the nodes' temporaries ([0-9.]+) MB.*/act_MB=\1 buffers=\2 weights_MB=\3 temp_MB=\4/p" "$out" | head -n 1)
  [ -n "$m" ] && m+=" mem_MB=$(echo "$m" | awk '{ split($1, a, "="); split($3, w, "="); split($4, t, "="); printf "%.3f", a[2] + w[2] + t[2] }')"
  # the worst output (these models have one): FAIL if any is, the largest error
  p=$(awk '/relative L2 error .* \(tolerance/ { for (i = 1; i <= NF; i++) if ($i == "error") e = $(i + 1);
             if ($0 ~ / FAIL /) bad = 1; if (e + 0 > worst + 0 || worst == "") worst = e }
           / FAIL: / { bad = 1 }
           END { if (worst != "" || bad) printf "check=%s rel_l2=%s", bad ? "FAIL" : "PASS", worst }' "$out")
  local tuned other
  tuned=$(grep -c '^infer: node .*): tuned ' "$err")
  other=$(grep -c '^infer: node .*): tuned under the other target' "$err")
  echo "$t $m $p own=$(( tuned - other )) other_target=$other" \
    "nearest=$(grep -c '^infer: node .*): not tuned: ' "$err")" \
    "direct=$(grep -c '^infer: node .*): direct (not tuned)' "$err")"
}

# wait_export NAME: until export.py has written NAME's files (when it runs beside us)
wait_export() {
  [ -n "$EXPORT_LOG" ] || return 0
  while ! grep -qE "^$1: (exported|export failed)" "$EXPORT_LOG" 2>/dev/null; do
    [ -n "$EXPORT_PID" ] && ! kill -0 "$EXPORT_PID" 2>/dev/null && return 0
    [ "$(left)" -lt 15 ] && return 0
    sleep 1
  done
}

wall() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# infer NAME PHASE TARGET DB: one timed, checked infer and its row; its wall time in $last_wall
infer() {
  local n=$1 phase=$2 target=$3 db=$4 base=$logs/$1.$2.$3 to rc t0 fields status note
  to=$(cap "$INFER_TIMEOUT")
  if [ "$to" -lt 15 ]; then
    row model="$n" phase="$phase" target="$target" status="skipped (deadline)" ref_l2="$ref_l2" convs="$convs" distinct="$distinct"
    last_wall=0; return
  fi
  t0=$(date +%s.%N)
  timeout -k 10 "$to" "$CONVGEN" infer "$work/$n.onnx" --input "$work/${n}_input.pb" --expect "$work/${n}_output.pb" \
    --runs "$RUNS" --target "$target" ${DEVICE:+--device "$DEVICE"} --db "$db" -v >"$base.out" 2>"$base.err"
  rc=$?
  last_wall=$(wall "$t0")
  fields=$(infer_fields "$base.out" "$base.err")
  local check=""; [[ $fields =~ check=([A-Z]+) ]] && check=${BASH_REMATCH[1]}
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then status="timeout ${to} s"
  elif [ -n "$check" ] && [ $rc -le 1 ]; then status=$check
  else status="exit $rc"; fi
  note=$(grep -m 1 '^convgen: note:' "$base.err" | sed -E 's/ in [^ ]+: / in DB: /; s/;? *`convgen tune [^`]*` tunes them//' | cut -c 1-300)
  [ $rc -ne 0 ] && [ -z "$check" ] && note=$(grep -v '^infer: node' "$base.err" | tail -n 1 | cut -c 1-300)
  local -a kv
  read -ra kv <<<"${fields//check=/ignored=}"   # FIELD=VALUE words, none with a space
  row model="$n" phase="$phase" target="$target" status="$status" rc=$rc "${kv[@]}" \
    convs="$convs" distinct="$distinct" wall_s="$last_wall" ref_l2="$ref_l2" note="$note"
  local us="" sp=""
  [[ $fields =~ us=([0-9.]+) ]] && us=" ${BASH_REMATCH[1]} us a run"
  [[ $fields =~ spread_pct=([0-9.]+) ]] && sp=" (spread ${BASH_REMATCH[1]}%)"
  local own="?"; [[ $fields =~ own=([0-9]+) ]] && own=${BASH_REMATCH[1]}
  echo "$n $phase $target: $status$us$sp; $own of $convs convolutions ran their own record ($last_wall s)"
}

for n in "$@"; do
  wait_export "$n"
  convs="" distinct="" ref_l2=""
  if [ "$(left)" -lt 30 ]; then
    row model="$n" phase=import status="skipped (deadline)"
    echo "$n: skipped (deadline)"; eval "$SAVE"; continue
  fi
  if [ ! -f "$work/$n.onnx" ]; then
    row model="$n" phase=import status="no ONNX file" note="$(grep -m 1 "^$n:" "$EXPORT_LOG" 2>/dev/null)"
    echo "$n: no $work/$n.onnx"; eval "$SAVE"; continue
  fi
  ref_l2=$(python3 -c 'import sys, numpy, onnx; from onnx import numpy_helper
print("%.9g" % numpy.linalg.norm(numpy_helper.to_array(onnx.load_tensor(sys.argv[1])).astype(numpy.float64)))' \
    "$work/${n}_output.pb" 2>/dev/null)
  t0=$(date +%s.%N)
  timeout -k 5 "$(cap 120)" "$CONVGEN" import "$work/$n.onnx" >"$logs/$n.import.out" 2>"$logs/$n.import.err"
  rc=$?
  if [ $rc -ne 0 ]; then
    [ $rc -eq 2 ] && status=refused || status="exit $rc"
    row model="$n" phase=import status="$status" rc=$rc wall_s="$(wall "$t0")" ref_l2="$ref_l2" \
      note="$(tail -n 1 "$logs/$n.import.err" | cut -c 1-300)"
    echo "$n: import exit $rc: $(tail -n 1 "$logs/$n.import.err" | cut -c 1-200)"; eval "$SAVE"; continue
  fi
  c=$(sed -nE 's/^convolutions: ([0-9]+) \(([0-9]+) distinct layers?\).*/\1 \2/p' "$logs/$n.import.out" | tail -n 1)
  convs=${c% *} distinct=${c#* }
  row model="$n" phase=import status=ok rc=0 convs="$convs" distinct="$distinct" wall_s="$(wall "$t0")" ref_l2="$ref_l2"
  echo "$n: $convs convolutions, $distinct distinct"
  untuned_wall=0
  case " $PHASES " in *" untuned "*)
    for t in $TARGETS; do
      infer "$n" untuned "$t" "$RDB"
      untuned_wall=$(awk -v a="$untuned_wall" -v b="$last_wall" 'BEGIN { print a + b }'); eval "$SAVE"
    done ;;
  esac
  fresh=$dbdir/$n.db tune_status=""
  # DB_FROM: a folder of NAME.db.gz from an earlier call (its tune), for a
  # call of the tuned phase alone
  if [ -n "${DB_FROM:-}" ] && [ ! -f "$fresh" ] && [ -f "$DB_FROM/$n.db.gz" ]; then
    mkdir -p "$dbdir" && gunzip -c "$DB_FROM/$n.db.gz" > "$fresh"
  fi
  case " $PHASES " in *" tune "*)
    [ "${TUNE_RESUME:-0}" = 1 ] || rm -f "$fresh" "$fresh-wal" "$fresh-shm"
    reserve=$(awk -v w="$untuned_wall" 'BEGIN { printf "%d", w * 1.5 + 10 }')
    avail=$(( $(left) - reserve ))
    T=$TUNE_TIME cut=$(( avail / 2 ))
    [ $(( avail - TUNE_SLACK )) -gt "$cut" ] && cut=$(( avail - TUNE_SLACK ))
    [ "$DEADLINE" -gt 0 ] && [ "$cut" -lt "$T" ] && T=$cut
    [ "$T" -lt "$TUNE_MIN" ] && T=$TUNE_MIN
    to=$(( T + TUNE_SLACK )); [ "$DEADLINE" -gt 0 ] && [ "$avail" -lt "$to" ] && to=$avail
    if [ "$DEADLINE" -gt 0 ] && [ "$to" -lt $(( TUNE_MIN + 5 )) ]; then
      tune_status="skipped (deadline)"
      row model="$n" phase=tune target="$TUNE_TARGET" status="$tune_status" convs="$convs" distinct="$distinct" ref_l2="$ref_l2"
      echo "$n tune: skipped (deadline)"
    else
      t0=$(date +%s.%N)
      timeout -k 10 "$to" "$CONVGEN" tune "$work/$n.onnx" --time "$T" --target "$TUNE_TARGET" ${DEVICE:+--device "$DEVICE"} \
        ${TUNE_JOBS:+--jobs "$TUNE_JOBS"} --db "$fresh" >"$logs/$n.tune.out" 2>"$logs/$n.tune.err"
      rc=$?
      w=$(wall "$t0")
      # the database's own count (a tune cut by its timeout prints no table); its WAL folded in
      counts=$(python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
ok = c.execute("SELECT count(DISTINCT k.layer_id) FROM measurements m JOIN candidates k ON k.id = m.candidate_id WHERE m.status = ?", ("ok",)).fetchone()[0]
print(ok, c.execute("SELECT count(*) FROM measurements").fetchone()[0])' "$fresh" 2>/dev/null)
      layers=$(awk '/^best kernels on /{ on = 1; getline; next } on && NF { n++ } END { print n + 0 }' "$logs/$n.tune.out")
      [ "$layers" -eq 0 ] && layers=$distinct
      if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then status="timeout ${to} s"; elif [ $rc -eq 0 ]; then status=ok
      else status="exit $rc"; fi
      row model="$n" phase=tune target="$TUNE_TARGET" status="$status" rc=$rc tune_s="$T" layers_tuned="${counts% *}" \
        layers="$layers" measured="${counts#* }" convs="$convs" distinct="$distinct" wall_s="$w" ref_l2="$ref_l2" \
        note="$( case $rc in 0) ;; 124|137) echo "stopped at its timeout; its records so far are kept" ;;
                 *) grep -vE ': [0-9]+/[0-9]+ |measured now' "$logs/$n.tune.err" | tail -n 1 | cut -c 1-300 ;; esac)"
      echo "$n tune --time $T: $status, ${counts% *} of $layers layers with a correct kernel, ${counts#* } measured ($w s)"
    fi
    eval "$SAVE" ;;
  esac
  case " $PHASES " in *" tuned "*)
    if [ ! -f "$fresh" ]; then
      why="no tuned database"; [ "$tune_status" = "skipped (deadline)" ] && why=$tune_status
      for t in $TARGETS; do
        row model="$n" phase=tuned target="$t" status="$why" convs="$convs" distinct="$distinct" ref_l2="$ref_l2"
      done
    else
      for t in $TARGETS; do infer "$n" tuned "$t" "$fresh"; eval "$SAVE"; done
    fi ;;
  esac
  eval "$SAVE"
done
