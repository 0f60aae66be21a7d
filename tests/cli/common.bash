# common.bash: helpers for the CLI tests (tests/cli/*.sh source this file).
# Each test script runs $CONVGEN (default build/convgen) and checks its exit
# status, stdout and stderr; it prints a line per failed check and exits 1 when
# any failed. Scratch files live in $T, removed on exit.

CONVGEN=${CONVGEN:-build/convgen}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
nfail=0
# the default database in $T, never the user's (a command without --db
# reads and writes $XDG_DATA_HOME/convgen/tune.db): what a test finds there
# is what it made
export XDG_DATA_HOME="$T/data"
unset CONVGEN_DB

# run ARGS...: runs convgen; sets $rc, and $T/out, $T/err hold its output.
run() {
  "$CONVGEN" "$@" >"$T/out" 2>"$T/err"
  rc=$?
}

bad() {
  echo "  FAIL: $*" >&2
  echo "    stdout: $(head -c 400 "$T/out")" >&2
  echo "    stderr: $(head -c 400 "$T/err")" >&2
  nfail=$((nfail + 1))
}

# expect_rc N DESCRIPTION
expect_rc() { [ "$rc" -eq "$1" ] || bad "$2: exit status $rc, want $1"; }
# expect_out|expect_err TEXT DESCRIPTION: the stream contains TEXT (fixed string)
expect_out() { grep -qF -- "$1" "$T/out" || bad "$2: stdout lacks '$1'"; }
expect_err() { grep -qF -- "$1" "$T/err" || bad "$2: stderr lacks '$1'"; }
# No sanitizer report and no crash, whatever the exit status.
expect_clean() {
  if grep -qE 'Sanitizer|runtime error:' "$T/err" || [ "$rc" -ge 128 ]; then bad "$1: crashed"; fi
}

# expect_refusal STATUS DESCRIPTION MESSAGE ARGS...: exit STATUS, stderr starts with
# "convgen: " and contains MESSAGE, nothing on stdout.
expect_refusal() {
  local status=$1 what=$2 msg=$3
  shift 3
  run "$@"
  expect_rc "$status" "$what"
  expect_err "$msg" "$what"
  head -n 1 "$T/err" | grep -q '^convgen: ' || bad "$what: stderr does not start with 'convgen: '"
  [ -s "$T/out" ] && bad "$what: wrote to stdout"
  expect_clean "$what"
}

# usage_error DESCRIPTION MESSAGE ARGS...: bad input, exit 2 (expect_refusal).
usage_error() { expect_refusal 2 "$@"; }

# rejected DESCRIPTION MESSAGE ARGS...: a point the space refuses: exit 3 (not
# the 2 of bad input; expect_refusal).
rejected() { expect_refusal 3 "$@"; }

# A small program that every part of the pipeline handles: c = a + b.
write_vadd() {
  cat >"$1" <<'CG'
# vadd: c = a + b
size N
userfun add(x: float, y: float): float { return x + y; }
input a: [float]N
input b: [float]N
out = zip(a, b) |> mapGlb[0, fun(p) -> add(get[0](p), get[1](p))]
CG
}

# node_test_args DIR: the options that run ONNX node test DIR (its
# test_data_set_0's input_K.pb and output_K.pb, in order) as --input and
# --expect, into the array node_args.
node_test_args() {
  local f
  node_args=()
  # (an unmatched pattern stays as it is: grep drops it)
  while IFS= read -r f; do node_args+=(--input "$f"); done < <(printf '%s\n' "$1"/test_data_set_0/input_*.pb |
    grep -v '\*' | sort -V)
  while IFS= read -r f; do node_args+=(--expect "$f"); done < <(printf '%s\n' "$1"/test_data_set_0/output_*.pb |
    grep -v '\*' | sort -V)
}

# skip_without_onnx: end the test, passed, with a note on stderr, when this
# convgen was built without the ONNX reader (protobuf-c missing): it reads
# no model. Import failing on tests/onnx/tiny.onnx for any other reason is
# not a skip: the test goes on and its checks say what broke.
skip_without_onnx() {
  if ! "$CONVGEN" import tests/onnx/tiny.onnx >/dev/null 2>"$T/err" && grep -q "built without an ONNX reader" "$T/err"; then
    echo "$(basename "$0"): this convgen has no ONNX reader: not checked" >&2
    finish
  fi
}

finish() {
  if [ "$nfail" -ne 0 ]; then
    echo "$nfail check(s) failed" >&2
    exit 1
  fi
  exit 0
}
