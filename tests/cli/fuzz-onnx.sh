#!/usr/bin/env bash
# fuzz-onnx.sh: scripts/fuzz_onnx.py for about a minute against $CONVGEN (the
# sanitizer build under `make SAN=1 test`), with a fixed seed so that a run
# is repeatable (the same mutants in the same order; how many fit in the
# minute depends on the machine): byte-level mutants of tests/onnx/*.onnx and
# structural ones of generated models (names defined twice, negative and
# huge dimensions, wrapped attributes, graph-level breakage, 20,000 nodes,
# /dev/zero and a null device as files, huge --shape bindings), read by
# `convgen import` and some run by `convgen infer` or written by `convgen
# export`. Fails on a crash, a sanitizer report, a timeout or a run out of
# memory; an exit status outside 0-2 and a mutant taken that should have been
# refused are printed, not failed on. Needs python3 (not the onnx package);
# skipped when convgen has no ONNX reader. FUZZ_ONNX_TIME and FUZZ_ONNX_SEED
# override the time and the seed.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
M=tests/onnx

if ! command -v python3 >/dev/null 2>&1; then
  echo "fuzz-onnx.sh: no python3: not run" >&2
  finish
fi
if ! "$CONVGEN" import "$M/tiny.onnx" >/dev/null 2>"$T/err" && grep -q "built without an ONNX reader" "$T/err"; then
  echo "fuzz-onnx.sh: this convgen has no ONNX reader (protobuf-c missing when it was built): not fuzzed" >&2
  finish
fi

# Findings in a folder of their own, kept (and named) when the fuzzer finds a bug.
out=$(mktemp -d)
python3 "$(dirname "$0")/../../scripts/fuzz_onnx.py" --convgen "$CONVGEN" --seed "${FUZZ_ONNX_SEED:-1}" \
  --time "${FUZZ_ONNX_TIME:-60}" --timeout 60 --fail-on crash,sanitizer,timeout,memory --out "$out" >"$T/fuzz" 2>&1
rc=$?
: >"$T/out"
: >"$T/err"
head -n 1 "$T/fuzz" >&2
grep -E '^(BUG|ACCEPTED) ' "$T/fuzz" | head -n 40 | cut -c 1-400 >&2
tail -n 30 "$T/fuzz" | grep -vE '^(BUG|ACCEPTED|fuzz_onnx:) ' >&2
if [ "$rc" -ne 0 ]; then
  grep -qE '^[0-9]+ mutants, [0-9]+ bugs$' "$T/fuzz" || bad "the fuzzer did not finish (exit $rc)"
  [ "$rc" -eq 1 ] && bad "the fuzzer found crashes, sanitizer reports, timeouts or runaway memory; reproducers in $out"
  [ "$rc" -gt 1 ] && bad "the fuzzer failed: exit $rc"
else
  grep -qE '^[1-9][0-9]* mutants, [0-9]+ bugs$' "$T/fuzz" || bad "the fuzzer ran no mutants"
  rm -rf "$out"
fi
finish
