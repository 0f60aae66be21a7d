#!/usr/bin/env bash
# space.sh: `convgen space` prints a program's parameters, constraints with their
# origins and the number of valid points; samples points that `convgen run`
# accepts; and rejects bad command lines. The domains are kept small enough that
# no device limit binds (work-groups of at most 256 work-items, a few KiB of
# local memory), so the counts are the same on any device.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"
F=examples/ir/matmul_tiled.cg
cd "$(dirname "$0")/../.." || exit 2

# The report.
run space $F -p M=256 -p N=256 -p K=256 --param TS=1..16
expect_rc 0 "space"
expect_clean "space"
expect_out "program   $F: M=256, N=256, K=256" "space names the program"
grep -qE '^device +[0-9]+: .*work-groups of at most [0-9]+' "$T/out" || bad "space names the device and its limits"
expect_out "parameters (4), in enumeration order:" "space lists the parameters"
grep -qE '^  TS +1\.\.16 +split\[TS\] at examples/ir/matmul_tiled\.cg:17:12 on length 256$' "$T/out" ||
  bad "space gives TS's domain and meaning"
grep -qE '^  TK +1\.\.256 +split\[TK\] at ' "$T/out" || bad "space gives TK the default domain"
sed -n '/^parameters/,/^constraints/p' "$T/out" | awk 'NR > 1 && /^  / { printf "%s ", $1 } END { print "" }' >"$T/order"
[ "$(cat "$T/order")" = "TS TK RM RN " ] || bad "space enumerates TS, TK, RM, RN in that order (got $(cat "$T/order"))"
expect_out "constraints (9):" "space counts the constraints"
for c in "256 % TS == 0 +split\[TS\] at $F:17:12, 18:25 on length 256" \
  "TS % RM == 0 +split\[RM\] at $F:30:24, 22:30 on length TS" \
  "256 % TK == 0 +split\[TK\] at $F:33:28, 33:79 on length 256" \
  "TS % \(TS/RN\) == 0 +split\[TS/RN\] at $F:23:56 on length TS" \
  "RN == TS/\(TS/RN\) +zip at $F:26:25: argument 2 as long as the first" \
  "RM\*RN <= 128 +private memory: a work-item's share of the accumulators of the reduceSeq at $F:19:11, at most 128 values; also private memory: the accumulators of the reduceSeq at $F:24:19, at most 128 values per work-item" \
  "TS/RM\*\(TS/RN\) <= [0-9]+ +device: work-group size of the workgroup line at $F:16, at most [0-9]+ \(.*\)"; do
  grep -qE "^  $c\$" "$T/out" || bad "space lists the constraint /$c/"
done
expect_out "implied by the domains, not checked (8):" "space lists what the domains imply"   # the work-group fits
grep -qE '^  RM\*RN <= 200000 +code size: the unrolled nest ending in mapSeqUnroll at ' "$T/out" ||
  bad "space lists the code-size bound"
expect_out "  in the domains           268435456" "space gives the size of the domains"   # 16 x 256^3
expect_out "  meeting the constraints  486" "space counts the valid points"   # 9 TK x 54 (TS, RM, RN; RM*RN <= 128)

# The lowering stage: every valid point of a small space lowered.
run space $F -p M=64 -p N=64 -p K=64 --param TS=8..16 --param TK=8,16 --param RM=1..4 --param RN=2 --check-lowering
expect_rc 0 "space --check-lowering"
expect_clean "space --check-lowering"
expect_out "  meeting the constraints  12" "space --check-lowering counts"   # TS, TK in {8, 16}; RM in {1, 2, 4}
expect_out "  passing the lowering     12 (0 rejected)" "space --check-lowering lowers each point"
grep -qE '^  TK +8,16 ' "$T/out" || bad "space prints a list domain"

# Samples: reproducible from the seed, distinct, and accepted by `convgen run`.
run space $F -p M=64 -p N=64 -p K=64 --param TS=8..16 --sample 4 --seed 5
expect_rc 0 "space --sample"
cp "$T/out" "$T/sample1"
[ "$(wc -l <"$T/sample1")" -eq 4 ] || bad "space --sample 4 prints 4 lines"
grep -qvE '^-p M=64 -p N=64 -p K=64 -p TS=[0-9]+ -p TK=[0-9]+ -p RM=[0-9]+ -p RN=[0-9]+$' "$T/sample1" &&
  bad "space --sample prints -p options"
[ "$(sort -u "$T/sample1" | wc -l)" -eq 4 ] || bad "space --sample points are distinct"
run space $F -p M=64 -p N=64 -p K=64 --param TS=8..16 --sample 4 --seed 5
cmp -s "$T/out" "$T/sample1" || bad "space --sample is reproducible from the seed"
run space $F -p M=64 -p N=64 -p K=64 --param TS=8..16 --sample 4 --seed 6
cmp -s "$T/out" "$T/sample1" && bad "space --sample depends on the seed"
# shellcheck disable=SC2046 # the line is a list of options
run run $F $(head -n 1 "$T/sample1") --runs 10 --warmup 0
expect_rc 0 "convgen run on a sampled point"
expect_out "PASS" "convgen run on a sampled point"
run space $F -p M=64 -p N=64 -p K=64 --param TS=8..16 --sample 4 --seed 5 --check-lowering
expect_rc 0 "space --sample --check-lowering"
[ "$(wc -l <"$T/out")" -eq 4 ] || bad "space --sample --check-lowering prints 4 points"

# Fewer points than asked: all of them, and a note.
run space $F -p M=64 -p N=64 -p K=64 --param TS=16 --param TK=8 --param RM=4 --param RN=2..4 --sample 5
expect_rc 0 "space --sample beyond the space"
[ "$(wc -l <"$T/out")" -eq 2 ] || bad "space --sample beyond the space prints every point"
expect_err "convgen: note: the space has only 2 points" "space --sample beyond the space"

# An empty space: the report says why; sampling finds nothing.
cat >"$T/wg.cg" <<'CG'
size N, T
userfun id(x: float): float { return x; }
input x: [float]N
workgroup 100000
out = x |> split[T] |> mapWrg[0, mapLcl[0, id]] |> join
CG
run space "$T/wg.cg" -p N=64
expect_rc 0 "space of an empty space"
expect_out "the space is empty: 100000 <= " "space says why it is empty"
expect_out "  meeting the constraints  0" "space counts no point"
run space "$T/wg.cg" -p N=64 --sample 3
expect_rc 1 "space --sample of an empty space"
expect_err "convgen: $T/wg.cg: no point to sample: 100000 <= " "space --sample of an empty space"
[ -s "$T/out" ] && bad "space --sample of an empty space prints no point"

# Help.
run space --help
expect_rc 0 "space --help"
for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES "convgen space - " "--param NAME=DOMAIN" \
  "--check-lowering" "--sample N" "--seed S" "--device SEL"; do
  expect_out "$s" "space --help"
done
run help space
expect_rc 0 "help space"
expect_out "convgen space - " "help space"

# Bad command lines and programs.
usage_error "space without FILE" "missing FILE" space -p M=4
usage_error "space, an option of run" "unknown option '--runs' for 'space'" space $F --runs 10
usage_error "space --param without a domain" "--param TS: expected NAME=LO..HI" space $F -p M=64 --param TS
usage_error "space --param backwards" "--param TS=8..4: want 1 <= LO <= HI" space $F -p M=64 --param TS=8..4
usage_error "space --param not a number" "--param TS=1..x: expected LO..HI" space $F -p M=64 --param TS=1..x
usage_error "space --param bad list" "--param TS=4,0: '0' is not a positive integer" space $F -p M=64 --param TS=4,0
usage_error "space --param twice" "'TS' is given twice" space $F -p M=64 --param TS=1..4 --param TS=2
usage_error "space --param of a bound size" "size 'M' is bound to 64; a bound size is not a tuning parameter" \
  space $F -p M=64 -p N=64 -p K=64 --param M=1..4
usage_error "space --param of no size" "no size 'Q' (the program declares: M, N, K, TS, TK, RM, RN)" \
  space $F -p M=64 --param Q=1..4
usage_error "space with nothing bound" "no domain for 'M': bind the problem sizes or give one for it" space $F
usage_error "space --sample 0" "--sample 0: must be 1 to 10000000" space $F -p M=64 --sample 0
usage_error "space --seed 0" "--seed 0: a seed is a positive integer" space $F -p M=64 --sample 1 --seed 0
usage_error "space on a missing device" "no OpenCL device matches 'no-such-device-xyz'" \
  space $F -p M=64 -p N=64 -p K=64 --device no-such-device-xyz
usage_error "space of a missing file" "$T/nope.cg: cannot open" space "$T/nope.cg" -p N=4
printf 'size N\ninput a: [float]N\nout = a |> mapGlb[0, fun(x) -> nope(x)]\n' >"$T/undef.cg"
usage_error "space of a bad program" "$T/undef.cg:3:" space "$T/undef.cg" -p N=4 --device no-such-device-xyz

# A variant stands or falls by its mapping, the same at every point; what the
# sizes decide (the prefetch pass's register cap, the code-size cap) refuses
# points, never a whole variant (a sampled point over the cap once made
# bench skip s2's LP=2 kernels of three VGG-16 layers as "not usable").
run space vgg16.conv3_2 --strategy s2
expect_rc 0 "space of s2 on vgg16.conv3_2 with the device"
grep -q "too many to keep in registers" "$T/out" "$T/err" && bad "space rejects a whole LP=2 variant for one point's registers"
expect_out "LP=2 (next chunk prefetched)" "space lists s2's LP=2 variants"

# Optimisational padding in a program: a symbolic amount P pads the input so
# that tiles of T divide it, and crop drops what the last tile computes past
# the output (N=31, prime: without P only T=1 and T=31 divide it)
cat >"$T/padopt.cg" <<'CG'
size N
size P
size T
userfun inc(a: float): float { return a + 1.0f; }
input x: [float]N
out = x |> pad[0, P - 1, 0.0f] |> split[T] |> mapWrg[0, mapLcl[0, inc]] |> join |> crop[0, P - 1]
CG
run space "$T/padopt.cg" -p N=31 --param P=1..8 --param T=1..32
expect_rc 0 "space of a program padded and cropped"
expect_out "  (P + 30) % T == 0  split[T] at" "the tile divides the padded length"
expect_out "crop[0, P - 1] at" "crop's constraint names it"
expect_out "  meeting the constraints  29" "padding makes tiles of many sizes valid"
run space "$T/padopt.cg" -p N=31 --param P=1..1 --param T=1..32
expect_out "  meeting the constraints  2" "unpadded, only 1 and 31 divide 31"
# A declared output whose length type inference could not compare (P + 30
# against 31) is a constraint of the space; a symbolic crop amount is at
# least 0
sed 's/^out = \(.*\) |> crop\[0, P - 1\]$/out: [float]N = \1/' "$T/padopt.cg" >"$T/declared.cg"
run space "$T/declared.cg" -p N=31 --param P=1..8 --param T=1..32
expect_out "  P + 30 == 31       the output: P + 30 as long as its declared 31" "the declared output's length"
expect_out "  meeting the constraints  2" "only P=1 keeps the declared length"
sed 's/crop\[0, P - 1\]$/crop[0, P - 2]/; s/pad\[0, P - 1, 0.0f\]/pad[0, 0, 0.0f]/' "$T/padopt.cg" >"$T/crop2.cg"
run space "$T/crop2.cg" -p N=32 --param P=1..3 --param T=1..32
expect_out "  P - 2 >= 0" "a symbolic crop amount is at least 0"
expect_out "  meeting the constraints  12" "P=2 and 3 with each T dividing 32"
# s2's LE: a layer of prime channel counts gets variants whose channels are
# padded to multiples of 8 (c 61 -> 64, k 127 -> 128), so that channel
# tiles divide them; LE=3 rounds to the same and is not a variant; without
# it RK and TK only split by 1 and the whole
P=n=1,c=61,h=29,w=29,k=127,kh=3,kw=3,stride=1,pad=1
run space "$P" --strategy s2
expect_rc 0 "space of a layer with prime channel counts"
expect_out "LE=2 (to multiples of 8)" "s2's channel padding is a variant"
grep -q "LE=3" "$T/out" && bad "LE=3 rounds 61 and 127 as LE=2 does: not a variant"
grep -q "128 % RK == 0" "$T/out" || bad "a padded variant splits the 128 channels"
total=$(sed -n 's/^  meeting the constraints  *\([0-9]*\)$/\1/p' "$T/out")
[ "${total:-0}" -gt 1000000 ] || bad "the padded channels make the space rich (${total:-none} points)"
run space "n=1,c=64,h=29,w=29,k=128,kh=3,kw=3,stride=1,pad=1" --strategy s2
grep -q "LE=" "$T/out" && bad "channels that are multiples of 8 and 32 are not padded"
# a warp's tile-product accumulators are spread over its 32 lanes, a float4
# each a sub-tile: a lane's share counts, in values (4 a sub-tile), whether
# the warp reads from global memory (LS=1) or from staged chunks (LS=2)
run space vgg16.conv3_2 --strategy tc
expect_rc 0 "space of tc"
expect_out "RK/8*(RW/16)*4 <= 128     private memory: the accumulators" "tc's accumulators: a lane's share, 4 values a sub-tile"
expect_out "RK/8*(RW/16)*4 <= 128         private memory: a work-item's share" "tc LS=2: a lane's share of the group's"
grep -q "RK/8\*(RW/16)\*32" "$T/out" && bad "tc's accumulators are not counted as every lane's"
finish
