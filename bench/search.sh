#!/usr/bin/env bash
# The evolutionary search against the random sampler at equal budget (issue 4):
# for each layer and seed, `convgen tune --search random` and `--search evolve`
# with the same budget, each into a database of its own, then the best time
# each found.
#
#   bench/search.sh OUTDIR BUDGET DEVICE "SEEDS" LAYER...
#   e.g. bench/search.sh out/search 40 nvidia "1 2 3" vgg16.conv3_2 vgg16.conv4_2 vgg16.conv5_1
#
# Writes OUTDIR/LAYER.SEARCH.SEED.db and .log as it goes, and OUTDIR/summary.md:
# per layer and seed the best time of each search, and per layer the mean
# over the seeds and how often evolve found the faster kernel.
set -u
out=${1:?usage: bench/search.sh OUTDIR BUDGET DEVICE "SEEDS" LAYER...}
budget=${2:?BUDGET}
dev=${3:?DEVICE}
seeds=${4:?SEEDS}
shift 4
convgen=${CONVGEN:-build/convgen}
mkdir -p "$out"
todo=0
for s in $seeds; do for l in "$@"; do for search in random evolve; do
  [ -e "$out/$l.$search.$s.db" ] || todo=1
done; done; done
[ $todo = 1 ] && {
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  convgen: $("$convgen" --version)  budget: $budget  device: $dev"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
} >>"$out/info.txt"
# Seeds outside layers: a run stopped early still has every layer at the first seeds.
for s in $seeds; do
  for l in "$@"; do
    for search in random evolve; do
      db="$out/$l.$search.$s.db"
      [ -e "$db" ] && continue   # measured already (a rerun after a stop goes on)
      "$convgen" tune "$l" --search "$search" --seed "$s" --budget "$budget" --device "$dev" --db "$db.part" \
        >"$out/$l.$search.$s.log" 2>&1
      mv "$db.part" "$db"
    done
  done
done
best() { sqlite3 "$1" "select coalesce(min(median_us), 'none') from measurements where status = 'ok'"; }
{
  echo "| layer | seed | random best (us) | evolve best (us) | evolve / random |"
  echo "|---|---|---|---|---|"
  for l in "$@"; do
    for s in $seeds; do
      [ -e "$out/$l.random.$s.db" ] && [ -e "$out/$l.evolve.$s.db" ] || continue
      r=$(best "$out/$l.random.$s.db") e=$(best "$out/$l.evolve.$s.db")
      echo "| $l | $s | $r | $e | $(awk -v r="$r" -v e="$e" 'BEGIN { if (r + 0 > 0 && e + 0 > 0) printf "%.2f", e / r; else print "-" }') |"
    done
  done
  echo
  echo "| layer | seeds | random mean best (us) | evolve mean best (us) | evolve faster in |"
  echo "|---|---|---|---|---|"
  for l in "$@"; do
    n=0 rs=0 es=0 wins=0
    for s in $seeds; do
      [ -e "$out/$l.random.$s.db" ] && [ -e "$out/$l.evolve.$s.db" ] || continue
      r=$(best "$out/$l.random.$s.db") e=$(best "$out/$l.evolve.$s.db")
      [ "$r" = none ] || [ "$e" = none ] && continue
      n=$((n + 1))
      rs=$(awk -v a="$rs" -v b="$r" 'BEGIN { print a + b }')
      es=$(awk -v a="$es" -v b="$e" 'BEGIN { print a + b }')
      wins=$((wins + $(awk -v r="$r" -v e="$e" 'BEGIN { print (e < r) ? 1 : 0 }')))
    done
    [ $n -gt 0 ] && echo "| $l | $n | $(awk -v s="$rs" -v n=$n 'BEGIN { printf "%.1f", s / n }') | $(awk -v s="$es" -v n=$n 'BEGIN { printf "%.1f", s / n }') | $wins of $n |"
  done
} >"$out/summary.md"
cat "$out/summary.md"
