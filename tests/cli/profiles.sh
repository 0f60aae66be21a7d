#!/usr/bin/env bash
# profiles.sh: --profile NAME makes the space and the kernels of a GPU that is
# not here (src/rt/profiles.c, docs/profiles.md): its limits constrain the
# space as a device's do, a point over them is refused, every sampled point's
# kernels are within them (their work-groups in manifest.json, their __local
# arrays in kernels.cl), and they build and pass on PoCL.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"

run devices --profiles
expect_rc 0 "devices --profiles"
for p in mali-g72 mali-g78 adreno-640 adreno-740; do expect_out "profile $p: " "devices --profiles lists $p"; done
expect_out "max work-group size  384" "the Mali-G72's work-group size"
expect_out "sources" "each profile names its sources"

usage_error "an unknown profile" "no profile 'mali-g1'; the profiles are mali-g72, mali-g78, adreno-640, adreno-740" \
  space vgg16.conv3_2 --strategy s2 --profile mali-g1
usage_error "--profile with --device" "--profile mali-g72 and --device pocl: give one" \
  space vgg16.conv3_2 --strategy s2 --profile mali-g72 --device pocl
usage_error "run takes no profile" "unknown option '--profile' for 'run'" \
  run vgg16.conv3_2 --strategy s2 --random 1 --profile mali-g72

# The space counts the points within the profile's limits: fewer than PoCL's.
run space vgg16.conv3_2 --strategy s2 --profile mali-g72
expect_rc 0 "space --profile"
expect_out "device    profile mali-g72: Mali-G72 (no device): work-groups of at most 384, work-items 384 x 384 x 384, local memory 32768 bytes" "space --profile names the limits"
expect_out "at most 384 (Mali-G72)" "the constraints cite the profile"
n_profile=$(sed -n 's/^  meeting the constraints  \(at least \)\{0,1\}//p' "$T/out")
run space vgg16.conv3_2 --strategy s2 --device pocl
n_pocl=$(sed -n 's/^  meeting the constraints  \(at least \)\{0,1\}//p' "$T/out")
[ -n "$n_profile" ] && [ "$n_profile" -gt 0 ] && [ "$n_profile" -lt "$n_pocl" ] ||
  bad "the Mali-G72's space ($n_profile points) is not smaller than PoCL's ($n_pocl)"

# A point over the profile's work-group size, or its local memory, is refused;
# PoCL takes both.
wg="-p LK=2 -p LH=2 -p LW=2 -p LS=3 -p LC=3 -p LR=1 -p LP=1 -p RW=1 -p RK=8 -p TW=14 -p TH=7 -p TK=4 -p CC=8"
lm="-p LK=2 -p LH=2 -p LW=2 -p LS=2 -p LC=1 -p LR=2 -p LP=1 -p RW=1 -p RK=2 -p RH=2 -p TW=14 -p TH=7 -p TK=1 -p CC=64"
# shellcheck disable=SC2086 # the points are word lists
{
  rejected "gen over the work-group size" "breaks TH*TK*TW <= 384 (device: work-group size" \
    gen vgg16.conv3_2 --strategy s2 $wg --profile mali-g72 -o "$T/wg"
  [ -e "$T/wg" ] && bad "a refused gen wrote $T/wg"
  rejected "gen over the local memory" "uses 456192 bytes of local memory; the device has 32768" \
    gen vgg16.conv3_2 --strategy s2 $lm --profile mali-g72 -o "$T/lm"
  run gen vgg16.conv3_2 --strategy s2 $wg --device pocl -o "$T/wg"
  expect_rc 0 "PoCL takes the point over the Mali-G72's work-group size"
}

# within LIMIT_WG LIMIT_WI LIMIT_LOCAL DIR WHAT: every kernel of DIR's
# manifest.json has work-groups within the limits, and its kernels.cl's
# __local arrays (floats) fit the local memory.
within() {
  local wg=$1 wi=$2 lm=$3 dir=$4 what=$5
  awk -v wg="$wg" -v wi="$wi" -F'"local": \\[' '/"local": \[/ {
        split($2, a, "]"); n = split(a[1], d, ", "); p = 1
        for (i = 1; i <= n; i++) { if (d[i] + 0 > wi) exit 1; p *= d[i] }
        if (p > wg) exit 1 }' "$dir/manifest.json" || bad "$what: a work-group over $wg (or $wi a dimension)"
  local bytes
  bytes=$(sed -n 's/.*__local float \w*\[\([0-9]*\)\].*/\1/p' "$dir/kernels.cl" | awk '{ s += 4 * $1 } END { print s + 0 }')
  [ "$bytes" -le "$lm" ] || bad "$what: $bytes bytes of __local arrays, over $lm"
  grep -q '#pragma OPENCL EXTENSION' "$dir/kernels.cl" && bad "$what: the kernels enable an extension"
}

# Every sampled point of each profile: gen with the profile, within its limits.
for p in "mali-g72 384 384 32768" "adreno-640 256 256 32768"; do
  set -- $p
  run space vgg16.conv3_2 --strategy s2 --profile "$1" --sample 4 --seed 5
  expect_rc 0 "space --profile $1 --sample"
  cp "$T/out" "$T/points"
  i=0
  while read -r args; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    run gen vgg16.conv3_2 --strategy s2 $args --profile "$1" -o "$T/$1.$i"
    expect_rc 0 "gen --profile $1 $args"
    [ "$rc" -eq 0 ] && within "$2" "$3" "$4" "$T/$1.$i" "$1 point $i"
  done <"$T/points"
  [ "$i" -eq 4 ] || bad "space --profile $1 --sample 4 gave $i points"
done

# On a small layer the profile's points also build and pass on PoCL (whose
# limits are larger): the same point is the same kernels.
small=n=1,c=8,h=12,w=12,k=8,kh=3,kw=3,stride=1,pad=1
run space "$small" --strategy s2 --profile mali-g78 --sample 3 --seed 2
expect_rc 0 "space --profile mali-g78 on a small layer"
cp "$T/out" "$T/small"
while read -r args; do
  # shellcheck disable=SC2086
  run run "$small" --strategy s2 $args --device pocl --runs 10
  expect_rc 0 "a Mali-G78 point builds and passes on PoCL: $args"
done <"$T/small"

# export --profile: the device's records, the kernels the profile's.
run tune "$small" --budget 3 --db "$T/tune.db" --device pocl
expect_rc 0 "tune a small layer"
run export "$small" -o "$T/export" --db "$T/tune.db" --profile adreno-740
if [ "$rc" -eq 0 ]; then
  grep -q "for profile adreno-740" "$T/export"/*_0.cl || bad "export --profile: the kernel's header names the profile"
  cp "$T/export"/*_0.json "$T/export/manifest.json" && cp "$T/export"/*_0.cl "$T/export/kernels.cl"
  within 256 256 32768 "$T/export" "export --profile adreno-740"
  grep -q "cl-std=CL1.2" "$T/export/convgen_kernels.c" || bad "export's host program builds with -cl-std=CL1.2"
else
  expect_rc 1 "export --profile with no record that fits"
  expect_err "fits profile adreno-740" "export --profile says why"
fi

finish
