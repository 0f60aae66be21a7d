#!/usr/bin/env bash
# limits.sh: input past the parser's bounds ends in a message, quickly: deep
# nesting, long pipelines, many size names, a text without end (/dev/zero),
# loops and views nested past the lowering's fixed arrays.
# Before these bounds the release build crashed (SIGSEGV) on 100,000 nested
# parentheses, 10,000 split/join pairs took 11 s and 40,000 size names two
# minutes and 10 GB, and /dev/zero was read until memory ran out.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"

# In the release build an address-space limit keeps a regression from taking
# the machine's memory; the sanitizers reserve more than any limit would leave.
case $CONVGEN in
  *build-san/*) limit=() ;;
  *) limit=(ulimit -v 4000000) ;;
esac
# quick SECONDS ARGS...: convgen within SECONDS under the memory limit.
quick() {
  local s=$1
  shift
  ("${limit[@]:-true}" && timeout "$s" "$CONVGEN" "$@" >"$T/out" 2>"$T/err")
  rc=$?
  [ "$rc" -eq 124 ] && bad "convgen $*: not done in $s s"
}

python3 - "$T" <<'PY'
import sys
t = sys.argv[1]
head = 'userfun id(a: float): float { return a; }\ninput x: [float]16\n'
open(t + '/parens.cg', 'w').write(head + 'out = ' + '(' * 100000 + 'x' + ')' * 100000 + '\n')
open(t + '/pairs.cg', 'w').write(head + 'out = x' + ' |> split[2] |> join' * 100000 + ' |> mapGlb[0, id]\n')
open(t + '/sizes.cg', 'w').write('size ' + ', '.join('s%d' % i for i in range(40000)) + '\n' + head +
                                 'out = x |> mapGlb[0, id]\n')
deep = lambda n: ('userfun id(a: float): float { return a; }\ninput x: ' + '[' * n + 'float' + ']1' * n + '\n' +
                  'out = x |> mapGlb[0, ' + 'mapSeq[' * (n - 1) + 'id' + ']' * (n - 1) + ']\n')
open(t + '/loops64.cg', 'w').write(deep(64))
open(t + '/loops65.cg', 'w').write(deep(65))
open(t + '/views.cg', 'w').write('userfun id(a: float): float { return a; }\ninput x: [float]4\nout = x' +
                                 ' |> split[1]' * 70 + ' |> join' * 70 + ' |> mapGlb[0, id]\n')
open(t + '/let.cg', 'w').write(head + 'out = let y = x' + ' |> split[2] |> join' * 300 + ' in y' +
                               ' |> split[2] |> join' * 300 + ' |> mapGlb[0, id]\n')
PY

quick 20 compile "$T/parens.cg"
expect_rc 2 "100,000 nested parentheses"
expect_err "parens.cg:3:1007: the program is nested more than 1000 deep" "100,000 nested parentheses"
expect_clean "100,000 nested parentheses"

quick 20 compile "$T/pairs.cg"
expect_rc 2 "100,000 split/join pairs"
expect_err "the program is nested more than 1000 deep here" "100,000 split/join pairs"
expect_clean "100,000 split/join pairs"

# A pipeline of 1200 stages, cut in two by let, is within the bound.
quick 20 run "$T/let.cg"
expect_rc 0 "a long pipeline named in two parts with let"

# The lowering keeps 64 loops open at most: 64 nested maps run, 65 are a
# usage error that names the limit (they ended in an internal error, exit 134).
quick 20 run "$T/loops64.cg"
expect_rc 0 "64 nested maps"
quick 20 compile "$T/loops65.cg"
expect_rc 2 "65 nested maps"
expect_err "loops nested more than 64 deep in one kernel" "65 nested maps"
expect_clean "65 nested maps"
# A read through 70 splits and 70 joins stacks 71 indices (a fixed stack of 64
# ended in 'view nesting deeper than 64', exit 134): it grows as needed.
quick 20 run "$T/views.cg"
expect_rc 0 "a read through 70 split/join pairs"

quick 20 compile "$T/sizes.cg"
expect_rc 2 "40,000 size names"
expect_err "sizes 's0', 's1'" "40,000 size names: the message names them"
expect_clean "40,000 size names"

quick 20 compile /dev/zero
expect_rc 2 "/dev/zero"
expect_err "convgen: /dev/zero: more than 16777216 bytes; too large to read" "/dev/zero"
head -c 17000000 /dev/zero | tr '\0' ' ' >"$T/big.cg"
quick 20 compile - <"$T/big.cg"
expect_rc 2 "17 MB on standard input"
expect_err "convgen: <stdin>: more than 16777216 bytes" "17 MB on standard input"

finish
