# readme.bash: what the README walkthrough tests share (readme-mobile.sh,
# readme-resnet.sh), sourced after common.bash, once the section's commands
# are in $T/cmd.1 .. $T/cmd.$n.
# shellcheck shell=bash disable=SC2154,SC2016 # n is the sourcing test's; $T and $CONVGEN expand where the walk runs

# cmd_of PATTERN: the number of the first command matching PATTERN (an
# extended regular expression), or 0; each step of the walkthrough must be one.
cmd_of() {
  local k
  for ((k = 1; k <= n; k++)); do
    grep -qE -- "$1" "$T/cmd.$k" && { echo "$k"; return; }
  done
  echo 0
}

# walk: the commands run in one shell (a variable the first sets stays
# set), with build/convgen standing for $CONVGEN and /tmp/ for $T: each
# one's standard output in $T/out.K, its standard error in $T/err.K, its
# exit status in $T/rc.K; each must exit 0.
walk() {
  local k
  {
    for ((k = 1; k <= n; k++)); do
      printf '{ %s\n} >"$T/out.%d" 2>"$T/err.%d"; echo $? >"$T/rc.%d"\n' \
        "$(sed -e 's#build/convgen#"$CONVGEN"#g' -e 's#/tmp/#"$T"/#g' "$T/cmd.$k")" "$k" "$k" "$k"
    done
  } >"$T/walk.sh"
  env T="$T" CONVGEN="$CONVGEN" bash "$T/walk.sh"
  for ((k = 1; k <= n; k++)); do
    [ "$(cat "$T/rc.$k")" = 0 ] ||
      bad "README's '$(cat "$T/cmd.$k")' exits $(cat "$T/rc.$k"): $(tail -c 300 "$T/out.$k") $(tail -c 300 "$T/err.$k")"
  done
}

# out K TEXT DESCRIPTION: command K's standard output contains TEXT.
out() { grep -qF -- "$2" "$T/out.$1" || bad "$3: the output of '$(cat "$T/cmd.$1")' lacks '$2'"; }

# count K N ERE DESCRIPTION: N lines of command K's standard output match ERE.
count() {
  local got
  got=$(grep -cE -- "$3" "$T/out.$1")
  [ "$got" = "$2" ] || bad "$4: $got lines of the output of '$(cat "$T/cmd.$1")' match '$3', want $2"
}
