#!/usr/bin/env bash
# help.sh: every way of asking for help prints a man-page style text on stdout
# and exits 0.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"

check_help() {
  local what=$1
  shift
  run "$@"
  expect_rc 0 "$what"
  for section in NAME SYNOPSIS DESCRIPTION "EXIT STATUS" EXAMPLES; do
    expect_out "$section" "$what"
  done
  [ -s "$T/err" ] && bad "$what: wrote to stderr"
}

check_help "convgen --help" --help
check_help "convgen -h" -h
check_help "convgen help" help
expect_out "COMMANDS" "convgen --help"
for cmd in devices compile run space gen help; do
  check_help "convgen help $cmd" help "$cmd"
  expect_out "convgen $cmd - " "convgen help $cmd"
  check_help "convgen $cmd --help" "$cmd" --help
  expect_out "convgen $cmd - " "convgen $cmd --help"
  check_help "convgen $cmd -h" "$cmd" -h
done
# --help wins over everything else on the line, even a missing FILE.
check_help "convgen compile --help with junk" compile --help -p N=4
check_help "convgen run FILE --help" run nofile.cg --help
# Each command documents its options.
run compile --help
for opt in "-p NAME=VALUE" "-o OUT" "--dump-ir"; do expect_out "$opt" "compile --help documents $opt"; done
run run --help
for opt in "--device SEL" "--sample N" "--runs N" "--warmup N" "--seed S" "--tol X"; do
  expect_out "$opt" "run --help documents $opt"
done

# The main help's ENVIRONMENT names every variable convgen reads.
run --help
sed -n '/^ENVIRONMENT/,/^EXIT STATUS/p' "$T/out" >"$T/env"
for v in $(grep -rhoE 'getenv\("[A-Z_]+"\)' "$(dirname "$0")/../../src" | sed -E 's/getenv\("(.*)"\)/\1/' | sort -u); do
  grep -qw -- "$v" "$T/env" || bad "convgen --help: ENVIRONMENT does not name $v"
done

# docs/cli.md is generated from these texts and must not drift from them.
CONVGEN=$CONVGEN "$(dirname "$0")/../../scripts/gen-cli-doc.sh" - >"$T/cli.md" 2>"$T/err"
cmp -s "$T/cli.md" "$(dirname "$0")/../../docs/cli.md" ||
  bad "docs/cli.md is out of date with the --help texts; run scripts/gen-cli-doc.sh"

finish
