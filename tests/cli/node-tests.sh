#!/usr/bin/env bash
# node-tests.sh: every ONNX backend node test (Debian's libonnx-testdata,
# /usr/share/libonnx-testdata/data/node/*/) whose operators convgen claims
# all (`convgen import --operators`; a model's operators read by
# scripts/onnx-ops.sh, which decodes the protobuf without the onnx package)
# run by `convgen infer MODEL --input input_K.pb... --expect output_K.pb...`
# (test_data_set_0, the inputs and outputs in order), two at a time. Each
# test is one of:
#   PASS     exit 0, every output within infer's tolerance;
#   REFUSED  exit 2: import or infer does not take it, and says why (the
#            reasons are listed, counted: a uint8 input, a 3-D pool...);
#   WRONG    exit 1: an output differs from ONNX's (or a node failed to build
#            or run): a bug;
#   CRASH    a signal (exit 128 or more), a sanitizer report, a timeout, an
#            exit 2 without a message, any other exit status (4: the device
#            failed): a bug.
# Prints the claimed operators, each operator's counts over the tests that
# use it, the refusals by reason, the totals; fails on any WRONG or CRASH.
# Skipped (exit 0, with a note) without libonnx-testdata, an ONNX reader in
# convgen (or python3 or protoc-c to read the models' operators), or an
# OpenCL device. NODE_TESTS_JOBS (default 2) runs that many at a time,
# NODE_TESTS_TIMEOUT (default 120) is the seconds one test may take,
# NODE_TESTS_DIR the folder of tests; NODE_TESTS_VERBOSE=1 prints each
# test's result.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
M=tests/onnx
D=${NODE_TESTS_DIR:-/usr/share/libonnx-testdata/data/node}
ONNX_OPS=$(dirname "$0")/../../scripts/onnx-ops.sh
jobs=${NODE_TESTS_JOBS:-2}
limit=${NODE_TESTS_TIMEOUT:-120}

skip() {
  echo "node-tests.sh: $*: not run" >&2
  exit 0
}
[ -d "$D" ] || skip "no $D (install libonnx-testdata)"
if ! "$CONVGEN" import "$M/tiny.onnx" >/dev/null 2>"$T/err" && grep -q "built without an ONNX reader" "$T/err"; then
  skip "this convgen has no ONNX reader (protobuf-c missing when it was built)"
fi
"$CONVGEN" devices >/dev/null 2>&1 || skip "no OpenCL device ('convgen devices' found none)"

run import --operators
expect_rc 0 "import --operators"
awk 'NR > 1 && NF { print $1 }' "$T/out" >"$T/claimed"
[ -s "$T/claimed" ] || { bad "import --operators listed no operator"; finish; }
echo "claimed operators ($(wc -l <"$T/claimed")): $(tr '\n' ' ' <"$T/claimed")"

# Each test's operators; those whose every operator is claimed (a file
# protobuf cannot read lists "?", claimed by nobody).
for dir in "$D"/*/; do [ -f "$dir/model.onnx" ] && echo "${dir%/}/model.onnx"; done | bash "$ONNX_OPS" >"$T/ops" 2>"$T/err" ||
  skip "$(cat "$T/err")"
all=$(wc -l <"$T/ops")
awk -F '\t' 'NR == FNR { claimed[$1] = 1; next }
             { n = split($2, op, " "); ok = n > 0
               for (i = 1; i <= n; i++) if (!claimed[op[i]]) ok = 0
               if (ok) { sub(/\/model\.onnx$/, "", $1); print $1 "\t" $2 } }' "$T/claimed" "$T/ops" >"$T/tests"
ntests=$(wc -l <"$T/tests")
echo "$ntests of $all node tests use only claimed operators"

# one_test DIR RESULT: DIR's test run; RESULT gets "CLASS<TAB>detail" (run by xargs)
# shellcheck disable=SC2317
one_test() {
  local dir=$1 res=$2 a rc detail nout=0
  node_test_args "$dir"
  for a in "${node_args[@]}"; do [ "$a" = --expect ] && nout=$((nout + 1)); done
  timeout -k 5 "$limit" "$CONVGEN" infer "$dir/model.onnx" "${node_args[@]}" >"$res.out" 2>"$res.err"
  rc=$?
  # the first line of stderr, without the paths: the node and its operator say where
  detail=$(head -n 1 "$res.err" | sed -e 's/^convgen: //' -e "s|$dir/||g" -e 's/\t/ /g')
  if grep -qE 'Sanitizer|runtime error:' "$res.err"; then
    printf 'CRASH\texit %s, a sanitizer report: %s\n' "$rc" "$(grep -m 1 -E 'Sanitizer|runtime error:' "$res.err")"
  elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    printf 'CRASH\ttimed out after %s s\n' "$limit"
  elif [ "$rc" -ge 128 ]; then
    printf 'CRASH\texit %s (signal %s): %s\n' "$rc" $((rc - 128)) "$detail"
  elif [ "$rc" = 0 ]; then
    if [ "$(grep -c ' PASS relative L2 error' "$res.out")" = "$nout" ]; then
      printf 'PASS\t\n'
    else
      printf 'WRONG\texit 0 without a PASS line per output: %s\n' "$(tr '\n' ' ' <"$res.out" | cut -c 1-300)"
    fi
  elif [ "$rc" = 1 ]; then
    local fail
    fail=$(grep -m 1 'FAIL' "$res.out" | sed -e "s|$dir/||g")
    printf 'WRONG\t%s\n' "${fail:-$detail}"
  elif [ "$rc" = 2 ] && [ -z "$detail" ]; then
    printf 'CRASH\texit 2 without a message\n'
  elif [ "$rc" = 2 ]; then
    # the reason, for counting: "node NAME (Op): why" as "Op: why"
    printf 'REFUSED\t%s\n' "$(sed -E -e 's/^model\.onnx: //' -e 's/^node ("[^"]*"|#[0-9]+|[^ ]*) \(([A-Za-z0-9_.:]+)\): /\2: /' <<<"$detail")"
  else
    printf 'CRASH\texit %s: %s\n' "$rc" "$detail"
  fi >"$res"
  rm -f "$res.out" "$res.err"
}
export -f one_test node_test_args
export CONVGEN limit

start=$SECONDS
mkdir -p "$T/res"
# shellcheck disable=SC2016 # the inner bash expands them
cut -f 1 "$T/tests" | xargs -d '\n' -P "$jobs" -I{} bash -c 'one_test "$1" "$2/$(basename "$1")"' _ {} "$T/res"

# Per operator, over the tests that use it; the refusals by reason; what failed.
declare -A npass nref nwrong ncrash
tp=0 tref=0 tw=0 tc=0
: >"$T/reasons"
: >"$T/bugs"
while IFS=$'\t' read -r dir ops; do
  name=$(basename "$dir")
  if [ -s "$T/res/$name" ]; then IFS=$'\t' read -r class detail <"$T/res/$name"; else class=CRASH detail="no result"; fi
  for op in $ops; do
    case $class in
      PASS) npass[$op]=$((${npass[$op]:-0} + 1)) ;;
      REFUSED) nref[$op]=$((${nref[$op]:-0} + 1)) ;;
      WRONG) nwrong[$op]=$((${nwrong[$op]:-0} + 1)) ;;
      *) ncrash[$op]=$((${ncrash[$op]:-0} + 1)) ;;
    esac
  done
  [ -n "${NODE_TESTS_VERBOSE:-}" ] && printf '%-7s %s (%s)%s\n' "$class" "$name" "$ops" "${detail:+: $detail}"
  case $class in
    PASS) tp=$((tp + 1)) ;;
    REFUSED) tref=$((tref + 1)); printf '%s\n' "$detail" >>"$T/reasons" ;;
    WRONG) tw=$((tw + 1)); printf 'WRONG %s (%s): %s\n' "$name" "$ops" "$detail" >>"$T/bugs" ;;
    *) tc=$((tc + 1)); printf 'CRASH %s (%s): %s\n' "$name" "$ops" "$detail" >>"$T/bugs" ;;
  esac
done <"$T/tests"

echo "per operator, over the tests that use it:"
printf '  %-20s %6s %7s %5s %7s\n' operator passed refused wrong crashed
while read -r op; do
  printf '  %-20s %6d %7d %5d %7d\n' "$op" "${npass[$op]:-0}" "${nref[$op]:-0}" "${nwrong[$op]:-0}" "${ncrash[$op]:-0}"
done <"$T/claimed"
if [ -s "$T/reasons" ]; then
  # a data type's number named (onnx.proto's TensorProto.DataType), whatever input or file it is
  echo "refused, by reason:"
  sed -E -e "s/^input '[^']*' has element type ([0-9]+);.*/a graph input of type \1: convgen runs float32 inputs/" \
         -e 's/^test_data_set_0\/output_[0-9]+\.pb: not a float32 tensor of its [0-9]+ elements \(data type ([0-9]+)\)/an expected output of type \1: infer compares float32 outputs/' \
         "$T/reasons" |
    awk 'BEGIN { split("float32 uint8 int8 uint16 int16 int32 int64 string bool float16 double uint32 uint64 complex64 complex128 bfloat16", t, " ") }
         match($0, /of type [0-9]+:/) { k = substr($0, RSTART + 8, RLENGTH - 9) + 0; if (k in t) $0 = substr($0, 1, RSTART + 7) t[k] substr($0, RSTART + RLENGTH - 1) }
         { print }' |
    sort | uniq -c | sort -k1,1nr -k2 | sed 's/^ */  /'
fi
if [ -s "$T/bugs" ]; then   # each a failed check
  sed 's/^/  FAIL: /' "$T/bugs"
  nfail=$((nfail + $(wc -l <"$T/bugs")))
fi
echo "node tests: $ntests run: $tp passed, $tref refused, $tw wrong, $tc crashed ($((SECONDS - start)) s, $jobs at a time)"
[ "$ntests" -ge 100 ] || bad "only $ntests node tests use claimed operators (Conv's, the pools' and Gemm's alone are more)"
finish
