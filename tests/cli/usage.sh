#!/usr/bin/env bash
# usage.sh: bad command lines get "convgen: <message>", a hint and exit 2.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
write_vadd "$T/vadd.cg"

run
expect_rc 2 "no arguments"
expect_err "usage: convgen COMMAND" "no arguments"

usage_error "unknown command" "'frobnicate' is not a convgen command" frobnicate
expect_err "try 'convgen --help'" "unknown command"
usage_error "unknown global option" "unknown option '--frob'" --frob
usage_error "unknown option" "unknown option '--frob' for 'compile'" compile "$T/vadd.cg" --frob
expect_err "try 'convgen compile --help'" "unknown option"
usage_error "option of another command" "unknown option '--runs' for 'compile'" compile "$T/vadd.cg" --runs 10
usage_error "unknown option with a value" "unknown option '--frob' for 'run'" run "$T/vadd.cg" --frob=3
usage_error "value given to a flag" "option '--dump-ir' takes no value" compile "$T/vadd.cg" --dump-ir=yes
usage_error "option without its value" "option '-o' needs a value" compile "$T/vadd.cg" -p N=4 -o

usage_error "-p without '='" "-p N: expected NAME=VALUE" compile "$T/vadd.cg" -p N
usage_error "-p with a bad name" "'4x' is not a size name" compile "$T/vadd.cg" -p 4x=3
usage_error "-p non-integer" "-p N=abc: 'abc' is not an integer" compile "$T/vadd.cg" -p N=abc
usage_error "-p trailing junk" "'12k' is not an integer" compile "$T/vadd.cg" -p N=12k
usage_error "-p empty value" "'' is not an integer" compile "$T/vadd.cg" -p N=
usage_error "-p zero" "-p N=0: a size must be at least 1" compile "$T/vadd.cg" -p N=0
usage_error "-p twice" "size 'N' is given twice" compile "$T/vadd.cg" -p N=4 --param N=8
usage_error "--runs below the floor" "--runs 3:" run "$T/vadd.cg" -p N=4 --runs 3
usage_error "--runs non-integer" "--runs x: not an integer" run "$T/vadd.cg" -p N=4 --runs=x
usage_error "--tol not a number" "--tol abc: not a positive number" run "$T/vadd.cg" -p N=4 --tol abc
usage_error "--tol negative" "not a positive number" run "$T/vadd.cg" -p N=4 --tol -1
usage_error "--seed zero" "--seed 0: a seed is a positive integer" run "$T/vadd.cg" -p N=4 --seed 0
usage_error "--sample negative" "--sample -5:" run "$T/vadd.cg" -p N=4 --sample -5

usage_error "compile without FILE" "missing FILE" compile -p N=4
usage_error "run without FILE" "missing FILE" run
usage_error "two FILEs" "unexpected argument" compile "$T/vadd.cg" "$T/vadd.cg" -p N=4
usage_error "devices with an argument" "unexpected argument 'x'" devices x
usage_error "help of no command" "no command 'frobnicate'" help frobnicate

usage_error "file not found" "$T/nope.cg: cannot open" compile "$T/nope.cg" -p N=4
usage_error "file not found (run)" "$T/nope.cg: cannot open" run "$T/nope.cg" -p N=4
usage_error "a layer spec without --strategy" "it reads as a layer spec, which needs --strategy S (direct, s1, s2, s3, dw, tc, wino)" \
  run "n=1,c=4,h=8,w=8,k=4,kh=3,kw=3,groups=2"
usage_error "a folder for a program file" "$T: read error: Is a directory" compile "$T"

# Errors in the program: the library's message, naming the file.
usage_error "unbound size" "size 'N' has no value; give it with -p N=..." compile "$T/vadd.cg"
usage_error "unknown size" "unknown size 'M'" compile "$T/vadd.cg" -p N=4 -p M=2
printf 'size N\ninput a: [float]N\nout = a |> mapGlb[0, fun(x) -> nope(x)]\n' >"$T/undef.cg"
usage_error "parse error" "$T/undef.cg:3:" compile "$T/undef.cg" -p N=4
expect_err "undefined" "parse error"
printf 'size N\ninput a: [float]N\nout = a |> mapGlb[0, fun(x) -> nope(x)]\n' | "$CONVGEN" compile - -p N=4 >"$T/out" 2>"$T/err"
rc=$?
expect_rc 2 "parse error on stdin"
expect_err "convgen: <stdin>:3:" "parse error on stdin"

# The command may come with options in any order; '--' ends the options.
run compile -p N=4 -- "$T/vadd.cg"
expect_rc 0 "options before FILE and --"
expect_out "__kernel" "options before FILE and --"

# --device: an empty selector is refused by every command that takes the
# option; one that matches no device is an error also for compile and gen,
# which need no device for a program (they ignored it).
for cmd in run space compile gen tune best export bench worker; do
  usage_error "$cmd --device ''" "--device: an empty selector" "$cmd" --device '' "$T/vadd.cg"
done
usage_error "--device= with nothing" "--device: an empty selector" run "$T/vadd.cg" -p N=4 --device=
usage_error "compile --device no-such-device" "no OpenCL device matches 'no-such-device-xyz'" \
  compile "$T/vadd.cg" -p N=4 --device no-such-device-xyz
usage_error "gen --device no-such-device" "no OpenCL device matches 'no-such-device-xyz'" \
  gen "$T/vadd.cg" -p N=4 --device no-such-device-xyz -o "$T/gen-nodev"
[ -e "$T/gen-nodev" ] && bad "gen --device no-such-device: wrote something"
run compile "$T/vadd.cg" -p N=4 --device 0
expect_rc 0 "compile --device 0"

# Without HOME (nor XDG_DATA_HOME, CONVGEN_DB) the database has no place: the
# commands that use it say so, and make nothing in the current folder (tune
# made ./.local/share/convgen/tune.db).
mkdir "$T/cwd"
convgen=$(cd "$(dirname "$CONVGEN")" && pwd)/$(basename "$CONVGEN")
for cmd in tune best export bench; do
  args=("$cmd" "n=1,c=2,h=5,w=5,k=2")
  [ "$cmd" = export ] && args+=(-o "$T/cwd/ex")
  (cd "$T/cwd" && env -u HOME -u XDG_DATA_HOME -u CONVGEN_DB "$convgen" "${args[@]}" >"$T/out" 2>"$T/err")
  rc=$?
  expect_rc 2 "$cmd without HOME"
  expect_err "no database path: \$HOME is not set (nor \$XDG_DATA_HOME); give one with --db PATH or \$CONVGEN_DB" \
    "$cmd without HOME"
done
[ -z "$(ls -A "$T/cwd")" ] || bad "without HOME: made in the current folder: $(ls -A "$T/cwd")"

run --version
expect_rc 0 "--version"
grep -qE '^convgen [0-9]+\.[0-9]+' "$T/out" || bad "--version prints 'convgen X.Y'"

finish
