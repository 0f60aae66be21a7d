#!/usr/bin/env bash
# Random points of every strategy on some layers (issue 3: 200 per strategy on
# vgg16.conv5_1 and vgg16.conv1_2 on the H200), each checked against the
# float64 convolution on fresh inputs, then timed (build/bench/points).
#
#   [STRATEGIES="s1 s2"] bench/strategies.sh OUTDIR N DEVICE LAYER...
#
# Writes OUTDIR/LAYER.STRATEGY.csv (one line per point) as it goes, and
# OUTDIR/summary.md: per layer and strategy, the points run and correct, the
# relative L2 errors (min, median, max) and the median times (min, median, max);
# points over the limit only the build reveals (bench/points.c) are counted
# apart.
#   bench/strategies.sh OUTDIR --summary     (summary.md again from the CSVs there)
set -u
out=${1:?usage: bench/strategies.sh OUTDIR N DEVICE LAYER...}
n=${2:?N}
summary_only=0
[ "$n" = --summary ] && summary_only=1 && set -- "$1" 0 none
dev=${3:?DEVICE}
shift 3
mkdir -p "$out"
[ $summary_only = 1 ] || {
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  commit: ${COMMIT:-unknown}  points per strategy: $n  device: $dev"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
} >>"$out/log.txt"
status=0
[ $summary_only = 1 ] || for l in "$@"; do
  for s in ${STRATEGIES:-direct s1 s2 s3}; do
    ./build/bench/points "$l" "$s" "$n" 1 "$dev" >"$out/$l.$s.csv" 2>>"$out/log.txt" || status=1
  done
done
summarise() {
  echo "| layer | strategy | points run | correct | over the build's limit | error min | error median | error max | time min (us) | time median (us) | time max (us) |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  for f in "$out"/*.csv; do
    # the layer field is quoted and may hold commas: take the fields from the end of the line
    tail -n +2 "$f" | awk -F, -v name="$(basename "$f" .csv)" '
      $(NF-6) == "over-limit" { o++; next }
      { ok = ($(NF-6) == "ok"); n++; c += ok; if (ok) { e[c] = $(NF-5) + 0; t[c] = $(NF-4) + 0 } }
      function sort(a, k,   i, j, x) { for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j+1] = a[j]; a[j+1] = x } }
      END {
        split(name, p, "."); s = p[length(p)]; l = substr(name, 1, length(name) - length(s) - 1)
        if (c == 0) { printf "| %s | %s | %d | 0 | %d | | | | | | |\n", l, s, n, o; exit }
        sort(e, c); sort(t, c)
        printf "| %s | %s | %d | %d | %d | %.2g | %.2g | %.2g | %.1f | %.1f | %.1f |\n", l, s, n, c, o, e[1], e[int((c+1)/2)], e[c], t[1], t[int((c+1)/2)], t[c]
      }'
  done
}
summarise >"$out/summary.md"
cat "$out/summary.md"
exit $status
