#!/usr/bin/env bash
# run.sh: the whole test suite; `make test` calls it with BUILD=build (or
# BUILD=build-san for `make SAN=1 test`). It runs, in order:
#   1. every unit-test program $BUILD/tests/*/test_*;
#   2. every CLI test tests/cli/*.sh (with CONVGEN=$BUILD/convgen);
#   3. the examples: every examples/ir/*.cg through `convgen run` (scripts/run-examples.sh),
#      and the corner cases tests/programs/*.cg the same way (each with its `# run:` line);
#   4. the must-fail corpus: every tests/errors/*.cg, whose first line is
#      `# error: <text>`, must make `convgen compile` exit 2 with <text> on stderr
#      (an optional `# run: -p N=4 ...` line gives the sizes);
#   5. the golden kernels (tests/golden.sh check).
# One line per item, PASS or FAIL (with the item's output after a failure), and
# a last line "N passed, N failed"; the exit status is 1 when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

BUILD=${BUILD:-build}
export CONVGEN=$PWD/$BUILD/convgen
if [ "$BUILD" = build-san ]; then
  # intercept_tls_get_addr=0: LeakSanitizer's tracer faulted (signal 11) walking
  # the dynamic TLS of PoCL's worker threads at the exit of one infer run
  # (tests/onnx/classifier.onnx), a fault of the tool, not a leak or a bad
  # access (ASan is clean, and so are the leak checks without that walk)
  export ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0
  export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp
  export UBSAN_OPTIONS=print_stacktrace=1
fi
# seconds per item: a hang is a failure, not a stuck suite; the sanitizers
# make test_strategy's random points take some 10 minutes on two cores
limit=${TEST_TIMEOUT:-600}
[ "$BUILD" = build-san ] && limit=${TEST_TIMEOUT:-1500}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

pass() {
  echo "PASS $1"
  passed=$((passed + 1))
}
# fail NAME [LOG]: the log, indented, says why.
fail() {
  echo "FAIL $1"
  if [ $# -ge 2 ] && [ -s "$2" ]; then tail -n 40 "$2" | sed 's/^/    /'; fi
  failed=$((failed + 1))
}

# 1. Unit tests.
for t in "$BUILD"/tests/*/test_*; do
  if [ ! -f "$t" ] || [ ! -x "$t" ]; then continue; fi
  name=${t#"$BUILD"/}
  if timeout "$limit" "$t" >"$tmp/log" 2>&1; then pass "$name"; else fail "$name" "$tmp/log"; fi
done

# 2. The command line.
for t in tests/cli/*.sh; do
  [ -f "$t" ] || continue
  if timeout "$limit" bash "$t" >"$tmp/log" 2>&1; then pass "$t"; else fail "$t" "$tmp/log"; fi
done

# 3. The examples, each compiled, run on the device and checked against the
# interpreter. A FAIL line of run-examples.sh is followed by indented reason lines.
CONVGEN_TIMEOUT=$limit scripts/run-examples.sh >"$tmp/examples" 2>&1
pending=""   # the example whose FAIL lines are being collected in $tmp/log
flush() {
  [ -n "$pending" ] && fail "example $pending" "$tmp/log"
  pending=""
}
while IFS= read -r line; do
  case $line in
    PASS\ *) flush; name=${line#PASS }; name=${name#"${name%%[! ]*}"}; pass "example ${name%% *}" ;;
    FAIL\ *) flush; name=${line#FAIL }; name=${name#"${name%%[! ]*}"}; pending=${name%% *}; printf '%s\n' "$line" >"$tmp/log" ;;
    "      "*) [ -n "$pending" ] && printf '%s\n' "$line" >>"$tmp/log" ;;
  esac
done <"$tmp/examples"
flush
grep -qE '^(PASS|FAIL) ' "$tmp/examples" || fail "examples (scripts/run-examples.sh printed no result)" "$tmp/examples"

# The corner cases: each compiled, run and checked against the interpreter.
for f in tests/programs/*.cg; do
  [ -f "$f" ] || continue
  args=$(awk '/^#[ \t]*run:/ { sub(/^#[ \t]*run:[ \t]*/, ""); print; exit } !/^#/ && NF { exit }' "$f")
  set -f
  # shellcheck disable=SC2086
  timeout "$limit" "$CONVGEN" run "$f" $args --seed 11 >"$tmp/log" 2>&1
  rc=$?
  set +f
  if [ $rc -eq 0 ] && grep -q '^check     PASS' "$tmp/log"; then pass "$f"; else fail "$f" "$tmp/log"; fi
done

# 4. Programs that must be rejected, each with its message.
for f in tests/errors/*.cg; do
  [ -f "$f" ] || continue
  want=$(sed -n '1s/^# error: *//p' "$f")
  if [ -z "$want" ]; then
    echo "the first line must be '# error: <expected message>'" >"$tmp/log"
    fail "$f" "$tmp/log"
    continue
  fi
  args=$(awk '/^#[ \t]*run:/ { sub(/^#[ \t]*run:[ \t]*/, ""); print; exit } !/^#/ && NF { exit }' "$f")
  set -f
  # shellcheck disable=SC2086
  timeout "$limit" "$CONVGEN" compile "$f" $args >/dev/null 2>"$tmp/err"
  rc=$?
  set +f
  if [ $rc -eq 2 ] && grep -qF -- "$want" "$tmp/err" && ! grep -qE 'Sanitizer|runtime error:' "$tmp/err"; then
    pass "$f"
  else
    { echo "want exit status 2 and stderr containing: $want"; echo "got exit status $rc, stderr:"; cat "$tmp/err"; } >"$tmp/log"
    fail "$f" "$tmp/log"
  fi
done

# 5. The golden kernels: every example's emitted source, byte for byte
#    (after a deliberate change to the IR or the lowering: make golden, then
#    review `git diff tests/golden`).
while IFS= read -r line; do
  case $line in
    "PASS golden "*) pass "${line#PASS }" ;;
    "FAIL golden "*) echo "$line" >"$tmp/log"; fail "${line#FAIL }" "$tmp/log" ;;
    *) echo "    $line" ;;
  esac
done < <(CONVGEN=$CONVGEN bash tests/golden.sh check 2>&1)

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
