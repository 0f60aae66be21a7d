#!/usr/bin/env bash
# run-examples.sh: the first part of the main job (scripts/main-job.sh). Runs `convgen run`
# on every example program examples/ir/*.cg on the default device ($CONVGEN_DEVICE,
# else the first GPU, else the first device: PoCL on a machine without a GPU),
# with the sizes that each example declares in a `# run:` line among the comment
# lines at its top, e.g.
#     # run: -p N=1024 -p M=64
# Prints one line per example (PASS or FAIL, name, median time or the reason),
# then a summary line; exits 1 when any example fails.
#
# usage: scripts/run-examples.sh [OPTIONS FOR convgen run...]
#        e.g. scripts/run-examples.sh --device nvidia --runs 20
# environment: CONVGEN (the convgen binary, default build/convgen),
#              CONVGEN_TIMEOUT (seconds per example, default 600).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

convgen=${CONVGEN:-build/convgen}
limit=${CONVGEN_TIMEOUT:-600}
if [ ! -x "$convgen" ]; then
  echo "run-examples: $convgen not found; build it first with 'make'" >&2
  exit 2
fi

# The arguments of the first `# run:` line in the leading comment block.
run_args() {
  awk '/^#[ \t]*run:/ { sub(/^#[ \t]*run:[ \t]*/, ""); print; exit }
       !/^#/ && NF { exit }' "$1"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
shopt -s nullglob
files=(examples/ir/*.cg)
if [ ${#files[@]} -eq 0 ]; then
  echo "FAIL  (none)  no examples in examples/ir/"
  echo "0 examples: 0 passed, 1 failed"
  exit 1
fi
for f in "${files[@]}"; do
  name=$(basename "$f" .cg)
  set -f   # the arguments are words like -p N=4: split them, never glob them
  # shellcheck disable=SC2046
  timeout "$limit" "$convgen" run "$f" $(run_args "$f") "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  set +f
  if [ $rc -eq 0 ]; then
    t=$(sed -n 's/^time *\([0-9.]* us\) median.*/\1/p' "$tmp/out")
    printf 'PASS  %-24s %s\n' "$name" "$t"
    passed=$((passed + 1))
  else
    case $rc in
      124) why="timed out after ${limit}s" ;;
      1) why="$(sed -n 's/^check *FAIL *//p' "$tmp/out")" ;;
      2) why="rejected (usage or program error)" ;;
      *) why="exit status $rc$([ $rc -gt 128 ] && echo " (killed by signal $((rc - 128)))")" ;;
    esac
    printf 'FAIL  %-24s %s\n' "$name" "$why"
    sed 's/^/      /' "$tmp/err"
    failed=$((failed + 1))
  fi
done
echo "$((passed + failed)) examples: $passed passed, $failed failed"
[ $failed -eq 0 ]
