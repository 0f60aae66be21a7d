#!/usr/bin/env bash
# fuzz-parallel.sh: scripts/fuzz_onnx.py as JOBS processes at once, seeds
# SEED .. SEED+JOBS-1, COUNT mutants in all, against CONVGEN (the sanitizer
# build by default); each process's log and findings under OUT/seed-N/, and a
# summary of the whole on standard output, its last line 'N mutants, N bugs'.
#     scripts/fuzz-parallel.sh COUNT [JOBS] [SEED] [CONVGEN] [OUT]
# Exit 1 when any process found a bug.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
count=${1:?usage: scripts/fuzz-parallel.sh COUNT [JOBS] [SEED] [CONVGEN] [OUT]}
jobs=${2:-$(nproc)}
seed=${3:-1}
convgen=${4:-build-san/convgen}
out=${5:-$(mktemp -d)}
[ -x "$convgen" ] || { echo "fuzz-parallel: $convgen is not built (make SAN=1 build-san/convgen)" >&2; exit 2; }
mkdir -p "$out"
# as tests/run.sh runs the sanitizer build
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:intercept_tls_get_addr=0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp}
pids=()
for ((j = 0; j < jobs; j++)); do
  n=$((count / jobs + (j < count % jobs ? 1 : 0)))
  s=$((seed + j))
  mkdir -p "$out/seed-$s"
  python3 scripts/fuzz_onnx.py --seed "$s" --count "$n" --convgen "$convgen" --out "$out/seed-$s" \
    >"$out/seed-$s/log" 2>&1 &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
mutants=0 bugs=0
for log in "$out"/seed-*/log; do
  line=$(grep -E '^[0-9]+ mutants, [0-9]+ bugs$' "$log" | tail -n 1)
  if [ -z "$line" ]; then
    echo "fuzz-parallel: $log did not finish" >&2
    status=1
    continue
  fi
  mutants=$((mutants + ${line%% *}))
  b=${line##*, }
  bugs=$((bugs + ${b%% *}))
  grep -E '^(BUG|ACCEPTED) ' "$log"
  grep -E 'accepted .*bugs by class' "$log" | sed "s|^|$(basename "$(dirname "$log")"): |"
done
echo "fuzz-parallel: $jobs processes, seeds $seed..$((seed + jobs - 1)), findings under $out"
echo "$mutants mutants, $bugs bugs"
exit $status
