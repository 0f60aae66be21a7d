#!/usr/bin/env bash
# main-job.sh: scripts/main-job.sh (README command 1) with a stand-in for
# convgen (CONVGEN), so that only the script is under test: the table of
# best kernels is printed once (tune ends with it and best prints it again:
# the job printed it twice), and the last line says whether the job
# succeeded, or which steps failed (it ended with bench's output and no word
# on the job).
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"

fake=$T/convgen
# The stand-in: run passes, tune and best print the table as convgen does,
# bench fails when $T/bench-fails exists.
cat >"$fake" <<SH
#!/usr/bin/env bash
case \$1 in
  run) echo "time      1.0 us median" ;;
  tune|best) echo "best kernels on a stand-in:"; echo "layer  strategy  time (us)"; echo "\$2  s2  1.0" ;;
  bench) [ -e "$T/bench-fails" ] && exit 1; echo "bench table" ;;
esac
SH
chmod +x "$fake"

CONVGEN=$fake ./scripts/main-job.sh alexnet.conv5 2 >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "the main job"
[ "$(grep -c '^layer  strategy' "$T/out")" = 1 ] || bad "the main job prints the table of best kernels once"
[ "$(tail -n 1 "$T/out")" = "main job: OK (examples, tune, best and bench of alexnet.conv5 succeeded)" ] ||
  bad "the main job's last line says it succeeded: $(tail -n 1 "$T/out")"

touch "$T/bench-fails"
CONVGEN=$fake ./scripts/main-job.sh alexnet.conv5 2 >"$T/out" 2>"$T/err"
rc=$?
expect_rc 1 "the main job with bench failing"
[ "$(tail -n 1 "$T/out")" = "main job: FAILED (bench)" ] || bad "the main job names the step that failed: $(tail -n 1 "$T/out")"
finish
