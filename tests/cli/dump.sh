#!/usr/bin/env bash
# dump.sh: --dump-after PASS and --dump-all on compile, run and gen: the
# passes --dump-after accepts are the compile pipeline's (compile.c's and
# lower.c's tables, listed by the message for an unknown one and by --help),
# each dump on stderr after its banner, the program's text form up to
# check-sizes (it parses back), the source after; the source on stdout stays
# what it was.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
write_vadd "$T/vadd.cg"

# An unknown pass: exit 2 with the list of the passes, in order.
usage_error "--dump-after an unknown pass" \
  "--dump-after lowering: no such pass; the passes are parse, store, infer, check-sizes, kernels, scalarise, prefetch, combine-loads, lower, check-buffers, emit" \
  compile "$T/vadd.cg" -p N=8 --dump-after lowering
expect_err "try 'convgen compile --help'" "--dump-after an unknown pass"
usage_error "--dump-after without a pass" "--dump-after" compile "$T/vadd.cg" -p N=8 --dump-after
usage_error "run --dump-after an unknown pass" "no such pass" run "$T/vadd.cg" -p N=8 --dump-after x
usage_error "gen --dump-after an unknown pass" "no such pass" gen "$T/vadd.cg" -p N=8 -o "$T/g" --dump-after x
[ -e "$T/g" ] && bad "gen --dump-after an unknown pass: wrote DIR"
usage_error "space takes no --dump-after" "--dump-after" space "$T/vadd.cg" --dump-after parse

# The list the message gives is what --dump-after accepts, and what --help documents.
run compile "$T/vadd.cg" -p N=8 --dump-after nosuchpass
passes=$(sed -n 's/.*the passes are //p' "$T/err" | tr -d ',')
[ "$(echo "$passes" | wc -w)" -eq 11 ] || bad "the list of passes: '$passes'"
run compile "$T/vadd.cg" -p N=8
cp "$T/out" "$T/plain.cl"
for p in $passes; do
  run compile "$T/vadd.cg" -p N=8 --dump-after "$p"
  expect_rc 0 "--dump-after $p"
  [ "$(head -n 1 "$T/err")" = "// convgen: after $p" ] || bad "--dump-after $p: the first line is not the banner"
  [ "$(grep -c '^// convgen: after ' "$T/err")" -eq 1 ] || bad "--dump-after $p: not one dump"
  cmp -s "$T/out" "$T/plain.cl" || bad "--dump-after $p: the source on stdout changed"
done
run compile --help
for p in $passes; do expect_out "$p" "compile --help documents the pass $p"; done
for opt in "--dump-after PASS" "--dump-all"; do expect_out "$opt" "compile --help documents $opt"; done

# After infer: the program's text form, which parses back (its sizes still
# declared, their values written in) and compiles to the same source.
run compile "$T/vadd.cg" -p N=8 --dump-after infer
expect_out "__kernel void" "--dump-after infer"
expect_err "userfun add" "--dump-after infer"
cp "$T/err" "$T/infer.cg"
run compile "$T/infer.cg" -p N=8
expect_rc 0 "the dump after infer parses back"
sed 1d "$T/out" >"$T/back.cl"
sed 1d "$T/plain.cl" >"$T/plain-body.cl"
cmp -s "$T/back.cl" "$T/plain-body.cl" || bad "the dump after infer compiles to another source"

# After the lowering's passes and from lower on: the source; after emit, the one on stdout.
run compile "$T/vadd.cg" -p N=8 --dump-after emit
sed 1d "$T/err" >"$T/emit.cl"
cmp -s "$T/emit.cl" "$T/plain.cl" || bad "--dump-after emit differs from the source"
run compile "$T/vadd.cg" -p N=8 --dump-after kernels
expect_err "__kernel void k0" "--dump-after kernels"

# Several passes, in the pipeline's order whatever the order given; --dump-all is every pass.
run compile "$T/vadd.cg" -p N=8 --dump-after lower --dump-after parse
[ "$(grep '^// convgen: after ' "$T/err" | tr '\n' ' ')" = "// convgen: after parse // convgen: after lower " ] ||
  bad "--dump-after lower --dump-after parse: $(grep '^// convgen: after ' "$T/err" | tr '\n' ' ')"
run compile "$T/vadd.cg" -p N=8 --dump-all
expect_rc 0 "--dump-all"
[ "$(sed -n 's|^// convgen: after ||p' "$T/err" | tr '\n' ' ')" = "$(echo $passes) " ] ||
  bad "--dump-all: the passes dumped: $(sed -n 's|^// convgen: after ||p' "$T/err" | tr '\n' ' ')"

# A failing pass: the dumps before it, then the error.
run compile "$T/vadd.cg" --dump-all
expect_rc 2 "--dump-all with an unbound size"
[ "$(sed -n 's|^// convgen: after ||p' "$T/err" | tr '\n' ' ')" = "parse store infer " ] ||
  bad "--dump-all with an unbound size: $(sed -n 's|^// convgen: after ||p' "$T/err" | tr '\n' ' ')"
expect_err "size 'N' has no value" "--dump-all with an unbound size"

# --dump-ir is the dump after parse without its banner.
run compile "$T/vadd.cg" -p N=8 --dump-after parse
sed 1d "$T/err" >"$T/parse.txt"
run compile "$T/vadd.cg" -p N=8 --dump-ir
cmp -s "$T/err" "$T/parse.txt" || bad "--dump-ir is not the dump after parse"

# A layer's point, and gen.
run compile vgg16.conv3_2 --strategy direct --dump-after check-sizes
expect_rc 0 "a layer's point --dump-after check-sizes"
head -n 1 "$T/err" | grep -qx '// convgen: after check-sizes' || bad "a layer's point: no banner"
run gen "$T/vadd.cg" -p N=8 -o "$T/gen" --dump-after emit
expect_rc 0 "gen --dump-after emit"
sed 1d "$T/err" | cmp -s - "$T/gen/kernels.cl" || bad "gen --dump-after emit differs from kernels.cl"

finish
