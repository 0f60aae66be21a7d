#!/usr/bin/env bash
# Searches against each other at equal budget or equal wall time (issues 4
# and 12): for each layer and seed, `convgen tune --search S` for every S of
# $SEARCHES (default "random evolve"), each into a database of its own, then
# the best time each found.
#
#   bench/search.sh OUTDIR LIMIT DEVICE "SEEDS" LAYER...
#   LIMIT: N (candidates: --budget N) or Ns (seconds of wall time: --time N)
#   e.g. bench/search.sh out/search 40 nvidia "1 2 3" vgg16.conv3_2 vgg16.conv4_2 vgg16.conv5_1
#        SEARCHES="evolve model" JOBS=14 bench/search.sh out/s 30s nvidia "1 2 3" vgg16.conv3_2 ...
#
# Writes OUTDIR/LAYER.SEARCH.SEED.db and .log as it goes, and OUTDIR/summary.md:
# per layer and seed the best time of each search, and per layer the mean
# over the seeds and how often the last search found a faster kernel than
# the first. $JOBS, when set, is passed as --jobs.
set -u
out=${1:?usage: bench/search.sh OUTDIR LIMIT DEVICE "SEEDS" LAYER...}
limit=${2:?LIMIT}
dev=${3:?DEVICE}
seeds=${4:?SEEDS}
shift 4
searches=${SEARCHES:-random evolve}
convgen=${CONVGEN:-build/convgen}
case $limit in
  *s) how=(--time "${limit%s}") ;;
  *) how=(--budget "$limit") ;;
esac
jobs=()
[ -n "${JOBS:-}" ] && jobs=(--jobs "$JOBS")
mkdir -p "$out"
todo=0
for s in $seeds; do for l in "$@"; do for search in $searches; do
  [ -e "$out/$l.$search.$s.db" ] || todo=1
done; done; done
[ $todo = 1 ] && {
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  convgen: $("$convgen" --version)  limit: ${how[*]} ${jobs[*]}  device: $dev  searches: $searches"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
} >>"$out/info.txt"
# Seeds outside layers: a run stopped early still has every layer at the first seeds.
for s in $seeds; do
  for l in "$@"; do
    for search in $searches; do
      db="$out/$l.$search.$s.db"
      [ -e "$db" ] && continue   # measured already (a rerun after a stop goes on)
      "$convgen" tune "$l" --search "$search" --seed "$s" "${how[@]}" "${jobs[@]}" --device "$dev" --db "$db.part" \
        >"$out/$l.$search.$s.log" 2>&1
      mv "$db.part" "$db"
    done
  done
done
python3 - "$out" "$seeds" "$searches" "$@" >"$out/summary.md" <<'PY'
import os, sqlite3, sys
out, seeds, searches, layers = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4:]
def best(path):
    if not os.path.exists(path):
        return None
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    (v,) = con.execute("select min(median_us) from measurements where status = 'ok'").fetchone()
    (n,) = con.execute("select count(*) from measurements").fetchone()
    con.close()
    return v, n
first, last = searches[0], searches[-1]
print("| layer | seed | " + " | ".join(f"{s} best us (measured)" for s in searches) + f" | {last} / {first} |")
print("|---|---|" + "---|" * (len(searches) + 1))
for l in layers:
    for s in seeds:
        b = {q: best(f"{out}/{l}.{q}.{s}.db") for q in searches}
        cells = [f"{b[q][0]:.1f} ({b[q][1]})" if b[q] and b[q][0] else "-" for q in searches]
        ok = b[first] and b[last] and b[first][0] and b[last][0]
        print(f"| {l} | {s} | " + " | ".join(cells) + f" | {b[last][0] / b[first][0]:.2f} |" if ok else
              f"| {l} | {s} | " + " | ".join(cells) + " | - |")
print()
print("| layer | seeds | " + " | ".join(f"{s} mean best us" for s in searches) + f" | {last} faster in |")
print("|---|---|" + "---|" * (len(searches) + 1))
for l in layers:
    rows = [{q: best(f"{out}/{l}.{q}.{s}.db") for q in searches} for s in seeds]
    rows = [r for r in rows if all(r[q] and r[q][0] for q in searches)]
    if not rows:
        continue
    means = [sum(r[q][0] for r in rows) / len(rows) for q in searches]
    wins = sum(r[last][0] < r[first][0] for r in rows)
    print(f"| {l} | {len(rows)} | " + " | ".join(f"{m:.1f}" for m in means) + f" | {wins} of {len(rows)} |")
PY
cat "$out/summary.md"
