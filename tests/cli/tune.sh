#!/usr/bin/env bash
# tune.sh: `convgen tune` and `convgen best` on the default device (PoCL in
# CI): a tune records every candidate; a second run skips what is recorded; a
# tune killed with SIGKILL part-way and run again ends with no lost and no
# duplicated measurement; crashes and hangs of candidates (injected with
# CONVGEN_FAULT) are recorded and tuning goes on; wrong inputs are refused.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"

# (no bias: tc, which starts each tile from the bias, passes the layer over)
layer='n=1,c=4,h=8,w=8,k=4,relu=1'
db="$T/tune.db"
count() { sqlite3 "$db" "$1"; }

run tune "$layer" --search random --budget 6 --cutoff 0 --db "$db"
expect_rc 0 "tune"
expect_out "best kernels on " "tune ends with the table"
expect_out "$layer" "the table names the layer"
expect_err "6 measured now (6 correct)" "tune counts what it measured"
expect_clean "tune"
[ "$(count 'select count(*) from measurements')" = 6 ] || bad "tune: 6 measurements in the database"
[ "$(count "select count(*) from measurements where status = 'ok' and median_us > 0 and error < 1e-4")" = 6 ] ||
  bad "tune: every measurement correct and timed"
# (direct, s1, s2, s3 and wino take it)
[ "$(count 'select count(distinct strategy) from candidates')" = 5 ] || bad "tune: every strategy drawn"

# Again: nothing measured twice.
run tune "$layer" --search random --budget 6 --cutoff 0 --db "$db"
expect_rc 0 "tune again"
expect_err "0 measured now (0 correct), 6 recorded before" "tune again skips what is recorded"
[ "$(count 'select count(*) from measurements')" = 6 ] || bad "tune again: still 6 measurements"

# --time shorter than a candidate: the first layer overruns its share and
# the whole time, and every layer still gets a correct kernel (a layer with
# none goes on until its first, TUNE_FIRST_KERNEL_S at most); exit 0 says
# so (1 when a layer has none).
run tune "$layer" 'n=1,c=4,h=6,w=6,k=8,bias=1,relu=1' 'n=1,c=8,h=6,w=6,k=4,relu=1' --time 1 --db "$T/time.db"
expect_rc 0 "tune --time 1: every layer with a correct kernel"
[ "$(sqlite3 "$T/time.db" "select count(distinct c.layer_id) from measurements m join candidates c on c.id = m.candidate_id where m.status = 'ok'")" = 3 ] ||
  bad "tune --time 1: a correct measurement of each of the three layers"

# --param restricts the spaces searched (every candidate has LS=3); a name
# that a strategy searched lacks is refused with the name.
run tune "$layer" --strategy s2 --param LS=3 --search random --budget 4 --cutoff 0 --db "$T/dom.db"
expect_rc 0 "tune --param LS=3"
[ "$(sqlite3 "$T/dom.db" "select count(*) from candidates where point like '% LS=3 %'")" = 4 ] ||
  bad "tune --param LS=3: every candidate has LS=3"
run tune "$layer" --param LS=3 --budget 2 --db "$T/dom.db"
expect_rc 2 "tune --param with a strategy that lacks it"
expect_err "has no parameter 'LS'" "tune --param: which strategy lacks the name"

# --warm-start: the fastest records seed evolve, whose first candidates are
# then mutations of them (without it, 2 more are all random start). --budget
# counts the 10 recorded: 12 measures 2 more, and 10 none.
run tune "$layer" --strategy s2 --search random --budget 10 --cutoff 0 --db "$T/warm.db"
run tune "$layer" --strategy s2 --search evolve --budget 10 --warm-start 8 --cutoff 0 --seed 5 --db "$T/warm.db"
expect_err "0 measured now (0 correct); it has its --budget of 10 candidates recorded" "tune --warm-start: the budget counts the records"
run tune "$layer" --strategy s2 --search evolve --budget 12 --warm-start 8 --cutoff 0 --seed 5 --db "$T/warm.db"
expect_rc 0 "tune --warm-start"
expect_err "warm start from 8 of its 8 fastest records" "tune --warm-start says what it seeded"
[ "$(sqlite3 "$T/warm.db" "select count(*) from measurements where search = 'evolve/mutation'")" -ge 1 ] ||
  bad "tune --warm-start: mutations of the records from the first candidate"
[ "$(sqlite3 "$T/warm.db" "select count(*) from measurements")" = 12 ] || bad "tune --warm-start: 2 more measured"
run tune "$layer" --warm-start x --db "$T/warm.db"
expect_rc 2 "tune --warm-start x"

# --transfer (on by default): a layer tuned after a similar one measures the
# other's fastest points first, where they are points of its space; 0 turns
# it off. The near layer has the first's output plane (6 x 6: its 8 x 8
# input and 3 x 3 window, no padding), so the first's fastest points,
# whichever they are (their order is the device's timing), are points of
# its space: the tiles over rows and columns divide alike (with pad=1 its
# output was 8 x 8, and points with RH=6 or TH=3, often the fastest, were
# not; the check failed when all three were such).
near="n=1,c=4,h=8,w=8,k=8,kh=3,kw=3,stride=1,pad=0,bias=1,relu=1"
run tune "$near" --strategy s2 --budget 4 --db "$T/warm.db"
expect_rc 0 "tune --transfer (default)"
expect_err "records of 1 similar layers measured first (--transfer)" "tune --transfer says what it measured first"
[ "$(sqlite3 "$T/warm.db" "select count(*) from measurements where search like '%/transfer'")" -ge 1 ] ||
  bad "tune --transfer: records made with search 'transfer'"
run tune "n=1,c=4,h=10,w=12,k=4,kh=3,kw=3,stride=1,pad=1,bias=1,relu=1" --strategy s2 --budget 2 --transfer 0 --db "$T/warm.db"
expect_rc 0 "tune --transfer 0"
grep -q "transfer" "$T/err" && bad "tune --transfer 0: still transfers"
usage_error "tune --transfer 101" "--transfer 101: must be 0 to 100 records per layer" tune "$layer" --transfer 101 --db "$T/warm.db"

# A layer with no correct record measures its default point first (the
# point infer runs for it untuned), so that a tune of one candidate records
# that point: the message names it and the record is the one named.
run tune "$near" --strategy s2 --budget 1 --transfer 0 --db "$T/default.db"
expect_rc 0 "tune from an empty database"
expect_err "its default point (s2 " "tune says it measures the default point first"
said=$(sed -n 's/.*its default point (s2 \(.*\)) measured first$/\1/p' "$T/err")
got=$(sqlite3 "$T/default.db" "select c.point from measurements m join candidates c on m.candidate_id = c.id
  where m.search like '%/default'")
[ -n "$said" ] && [ "$said" = "$got" ] || bad "tune: the default point said ($said) is the one recorded ($got)"
run tune "$near" --strategy s2 --budget 2 --transfer 0 --db "$T/default.db"
grep -q "default point" "$T/err" && bad "tune: a layer with a correct record measures its default point again"

# --warm-from TARGET: the same GPU's fastest records under the other target
# are measured first. Without a CUDA device here, the records of this one
# are made to look like a CUDA device's (its platform), and a tune on this
# device starts from them as a new device would.
twin="$T/twin.db"
run tune "$layer" --strategy s2 --search random --budget 6 --cutoff 0 --db "$twin"
sqlite3 "$twin" "update devices set platform = 'CUDA', fingerprint = 'cuda|' || fingerprint"
fast=$(sqlite3 "$twin" "select c.point from measurements m join candidates c on m.candidate_id = c.id
  where m.status = 'ok' order by m.median_us limit 3" | sort)
run tune "$layer" --strategy s2 --warm-from cuda --warm-start 3 --budget 5 --cutoff 0 --db "$twin"
expect_rc 0 "tune --warm-from cuda"
expect_err "3 of the 3 fastest records under --target cuda measured first" "tune --warm-from says what it took"
firsts=$(sqlite3 "$twin" "select c.point from measurements m join candidates c on m.candidate_id = c.id
  join devices d on m.device_id = d.id where d.platform != 'CUDA' and m.search = 'evolve/seed'" | sort)
[ "$firsts" = "$fast" ] || bad "tune --warm-from: the twin's 3 fastest measured here first ('$firsts' against '$fast')"
usage_error "--warm-from metal" "--warm-from metal: unknown target (targets: opencl, cuda)" tune "$layer" --warm-from metal

# One data seed per layer: every candidate of a layer draws the same inputs, so
# its worker computes the float64 reference once (CONVGEN_WORKER_STDERR shows
# the worker's account of it) and reuses it; another layer gets another seed,
# the same command the same seeds, and a record's seed gives `convgen run`
# its inputs back.
other='n=2,c=3,h=7,w=6,k=5,kh=3,kw=5,stride=2,pad=1'
CONVGEN_WORKER_STDERR=1 run tune "$layer" "$other" --search random --budget 4 --cutoff 0 --db "$T/seed.db"
expect_rc 0 "tune two layers"
[ "$(grep -c '^worker: reference computed' "$T/err")" = 2 ] || bad "a reference computed once per layer"
[ "$(grep -c '^worker: reference reused' "$T/err")" = 6 ] || bad "a reference reused by the other candidates"
seeds="select count(distinct m.seed) from measurements m join candidates c on m.candidate_id = c.id"
[ "$(sqlite3 "$T/seed.db" "$seeds group by c.layer_id")" = "1
1" ] || bad "one seed per layer"
[ "$(sqlite3 "$T/seed.db" "$seeds")" = 2 ] || bad "a seed per layer, not one for both"
[ "$(sqlite3 "$T/seed.db" "select count(*) from measurements where status = 'ok' and error < 1e-4")" = 8 ] ||
  bad "one seed per layer: every candidate correct"
run tune "$layer" "$other" --search random --budget 4 --cutoff 0 --db "$T/seed2.db"
[ "$(sqlite3 "$T/seed.db" 'select seed from measurements order by seed')" = \
  "$(sqlite3 "$T/seed2.db" 'select seed from measurements order by seed')" ] || bad "the same tune, other seeds"
IFS='|' read -r st point seed <<<"$(sqlite3 "$T/seed.db" "select c.strategy, c.point, m.seed from measurements m
  join candidates c on m.candidate_id = c.id where c.strategy = 's2' limit 1")"
args=()
for p in $point; do args+=(-p "$p"); done
run run "$layer" --strategy "$st" "${args[@]}" --seed "$seed"
expect_rc 0 "run with a recorded seed"
expect_out "seed $seed)" "run with a recorded seed"

# The worker keeps the reference of the layer and seed it last measured:
# reused for the next candidate of both (another strategy too), computed
# again for another seed or another layer.
printf '%s\tdirect\t-\t5\n%s\ts3\tCG=2\t5\n%s\tdirect\t-\t6\n%s\tdirect\t-\t6\n' "$layer" "$layer" "$layer" "$other" |
  CONVGEN_WORKER_STDERR=1 "$CONVGEN" worker >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "worker on four candidates"
[ "$(grep -c "^result	ok	" "$T/out")" = 4 ] || bad "worker: four correct candidates"
[ "$(grep '^worker: reference' "$T/err" | cut -d' ' -f3 | tr '\n' ' ')" = "computed reused computed computed " ] ||
  bad "worker: the reference computed, reused, computed for another seed and for another layer"

# best prints the record.
run best "$layer" --db "$db"
expect_rc 0 "best"
expect_out "GFLOP/s" "best prints the table"

# Killed with SIGKILL part-way, then run again: 24 measurements, each once
# (in a database of its own: evolve's walk need not pass through the random
# search's records above). On PoCL the tune has one worker, so each
# candidate is proposed with every result before it back, as the resumed
# tune replays them, and both walk the same candidates (src/tune/search.h).
# The worker must die with its tune; the check looks at the workers this tune
# started, by id, not at every process named like one (another tune on the
# machine, or the look-alike started here, is none of its business).
bash -c 'exec -a "convgen worker (a look-alike)" sleep 120' &
lookalike=$!
shared_db=$db db="$T/resume.db"
"$CONVGEN" tune "$layer" --budget 24 --db "$db" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 300); do
  n=$(count 'select count(*) from measurements' 2>/dev/null)   # empty until the database is made
  [ "${n:-0}" -ge 10 ] && break
  sleep 0.1
done
workers=$(pgrep -P $pid)
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
got=$(count 'select count(*) from measurements')
[ "$got" -lt 24 ] || bad "kill -9: the tune was not stopped part-way ($got measurements)"
[ -n "$workers" ] || bad "kill -9: the tune had no worker"
sleep 0.5
for w in $workers; do
  state=$(ps -o stat= -p "$w")   # empty when gone; Z: dead, not yet reaped
  [ -n "$state" ] && [ "${state#Z}" = "$state" ] && bad "kill -9: worker $w outlived the tune"
done
kill $lookalike
wait $lookalike 2>/dev/null
run tune "$layer" --budget 24 --db "$db"
expect_rc 0 "resume"
[ "$(count 'select count(*) from measurements')" = 24 ] || bad "resume: 24 measurements ($(count 'select count(*) from measurements'))"
[ "$(count 'select count(distinct candidate_id) from measurements')" = 24 ] || bad "resume: a candidate measured twice"
[ "$(count "select count(*) from measurements where status in ('ok', 'slow')")" = 24 ] ||
  bad "resume: every measurement correct (timed, or slow: not timed)"
db=$shared_db

# The evolutionary search: mutations recorded as such, and a rerun replays the
# recorded results instead of measuring again (the same candidates, in order).
edb="$T/evolve.db"
run tune "$layer" --search evolve --budget 14 --db "$edb"
expect_rc 0 "evolve"
[ "$(sqlite3 "$edb" "select count(*) from measurements where search = 'evolve/mutation'")" -ge 1 ] ||
  bad "evolve: no mutation recorded"
run tune "$layer" --search evolve --budget 14 --db "$edb"
expect_err "0 measured now (0 correct), 14 recorded before" "evolve again replays what is recorded"
[ "$(sqlite3 "$edb" 'select count(*) from measurements')" = 14 ] || bad "evolve again: measured something twice"
run tune "$layer" --search evolve --budget 18 --db "$edb"
[ "$(sqlite3 "$edb" 'select count(*) from measurements')" = 18 ] || bad "evolve with a larger budget: 4 more"
# The model search: candidates picked by the cost model recorded as such, and
# a rerun replays them (the fit is deterministic given the results in order).
mdb="$T/model.db"
run tune "$layer" --search model --budget 16 --db "$mdb"
expect_rc 0 "model"
[ "$(sqlite3 "$mdb" "select count(*) from measurements where search = 'model/model'")" -ge 1 ] ||
  bad "model: no candidate picked by the model recorded"
run tune "$layer" --search model --budget 16 --db "$mdb"
expect_err "0 measured now (0 correct), 16 recorded before" "model again replays what is recorded"
usage_error "a bad search" "--search best: the searches are random, evolve and model" tune "$layer" --search best

# Two tunes at once on one database, the same layer and seed (the same
# candidates in the same order): each candidate is measured by one of them
# (claims), so what they measured adds up to the rows stored.
cdb="$T/claims.db"
"$CONVGEN" tune "$layer" --search random --budget 10 --cutoff 0 --db "$cdb" >/dev/null 2>"$T/c1.err" &
p1=$!
"$CONVGEN" tune "$layer" --search random --budget 10 --cutoff 0 --db "$cdb" >/dev/null 2>"$T/c2.err" &
p2=$!
wait "$p1"; r1=$?
wait "$p2"; r2=$?
[ "$r1" = 0 ] && [ "$r2" = 0 ] || bad "two tunes at once: exit statuses $r1 and $r2: $(cat "$T/c1.err" "$T/c2.err")"
m1=$(sed -n 's/.*: \([0-9]*\) measured now.*/\1/p' "$T/c1.err")
m2=$(sed -n 's/.*: \([0-9]*\) measured now.*/\1/p' "$T/c2.err")
rows=$(sqlite3 "$cdb" 'select count(*) from measurements')
[ -n "$m1" ] && [ -n "$m2" ] && [ $((m1 + m2)) = "$rows" ] ||
  bad "two tunes at once measured $m1 + $m2 candidates for $rows rows: some twice"
[ "$(sqlite3 "$cdb" 'select count(*) from claims')" = 0 ] || bad "two tunes at once left claims behind"

# The faults below fall on the strategies their counts name: a layer that tc (no bias) and wino (whose
# kernels are square; this one's are 3 x 2) pass over, so the candidates are direct's, s1's, s2's and s3's.
faulty='n=1,c=4,h=8,w=8,k=4,kh=3,kw=2,relu=1'

# A candidate that crashes its worker, one that hangs: recorded, and tuning goes on.
CONVGEN_FAULT=crash:s1,hang:s3 run tune "$faulty" --budget 6 --build-timeout 8 --timeout 8 --db "$T/fault.db"
expect_rc 0 "faults"
[ "$(sqlite3 "$T/fault.db" "select count(*) from measurements where status = 'crash' and reason like '%signal 11%'")" = 2 ] ||
  bad "faults: two crashes recorded with the signal"
[ "$(sqlite3 "$T/fault.db" "select count(*) from measurements where status = 'hang'")" = 1 ] || bad "faults: the hang recorded"
[ "$(sqlite3 "$T/fault.db" "select count(*) from measurements where status = 'ok'")" = 3 ] ||
  bad "faults: the other candidates measured"
[ "$(sqlite3 "$T/fault.db" "select count(kernel_hash) from measurements")" = 6 ] ||
  bad "faults: a crash and a hang keep the hash of their kernels too (the tuner's)"

# The device lost after a crash (CONVGEN_FAULT=lost:FILE, "K N": the first K
# workers find it, the next N do not): a worker that cannot start is tried
# again with backoff and the tune goes on; when it stays lost, the tune
# stops with every result recorded, the table, a message and exit 4 (a device
# failure, not the 2 of bad input), and the
# same command goes on later. (The first failed start ended the tune.)
echo "1 2" >"$T/lost"
CONVGEN_FAULT=crash:s1,lost:$T/lost run tune "$faulty" --search random --budget 6 --cutoff 0 --db "$T/lost.db"
expect_rc 0 "a device lost for two starts"
expect_err "a worker could not start: no OpenCL device found (CONVGEN_FAULT=lost); trying again in 2 s" \
  "a device lost for two starts: tried again"
expect_err "a worker started again (try 3)" "a device lost for two starts: found again"
[ "$(sqlite3 "$T/lost.db" "select count(*) from measurements")" = 6 ] || bad "a device lost for two starts: 6 recorded"
echo "1 -1" >"$T/lost"
CONVGEN_FAULT=crash:s1,lost:$T/lost run tune "$faulty" --search random --budget 6 --cutoff 0 --db "$T/lost2.db"
expect_rc 4 "a device lost for good"
expect_err "the device is lost: no OpenCL device found (CONVGEN_FAULT=lost) (5 tries over" "a device lost for good: said"
expect_err "every result so far is recorded" "a device lost for good: said"
expect_out "best kernels on " "a device lost for good: the table of what is recorded"
[ "$(sqlite3 "$T/lost2.db" "select status from measurements order by id" | tr '\n' ' ')" = "ok crash " ] ||
  bad "a device lost for good: the results before it recorded"
run tune "$faulty" --search random --budget 6 --cutoff 0 --db "$T/lost2.db"
expect_err "4 measured now (4 correct), 2 recorded before" "a device lost for good: the same command goes on"

# --retry-faults AGE: crashes and hangs recorded before this tune (and AGE s
# before it) are measured again, the new result replacing the record; by
# default, or when younger than AGE, they are results like any other.
# (Without it a transient fault was permanent.)
sleep 1   # the records' times are in whole seconds: theirs before the next tune's start
run tune "$faulty" --budget 6 --retry-faults 3600 --db "$T/fault.db"
expect_err "0 measured now (0 correct), 6 recorded before" "--retry-faults 3600: the faults are younger"
CONVGEN_FAULT=crash:s1,hang:s3 run tune "$faulty" --budget 6 --build-timeout 8 --retry-faults 0 --db "$T/fault.db"
expect_err "3 measured now (0 correct, 3 of them crashes or hangs retried), 3 recorded before" \
  "--retry-faults 0: the faults measured again, once"
[ "$(sqlite3 "$T/fault.db" "select count(*) from measurements where status in ('crash', 'hang')")" = 3 ] ||
  bad "--retry-faults: a fault again is recorded again"
sleep 1
# (--cutoff 0: on a loaded machine a retried candidate's checked run could pass the cutoff and be 'slow')
run tune "$faulty" --budget 6 --retry-faults 0 --cutoff 0 --db "$T/fault.db"
expect_rc 0 "--retry-faults 0"
expect_err "3 measured now (3 correct, 3 of them crashes or hangs retried), 3 recorded before" \
  "--retry-faults 0: the transient faults measured again"
[ "$(sqlite3 "$T/fault.db" "select count(*), count(distinct candidate_id) from measurements")" = "6|6" ] ||
  bad "--retry-faults: the new results replace the faults"
[ "$(sqlite3 "$T/fault.db" "select count(*) from measurements where status in ('ok', 'slow')")" = 6 ] ||
  bad "--retry-faults: the retried candidates are correct now"
run tune "$faulty" --budget 6 --retry-faults 0 --db "$T/fault.db"
expect_err "0 measured now (0 correct), 6 recorded before" "--retry-faults: only faults are measured again"
usage_error "a bad --retry-faults" "--retry-faults -1: must be 0 to 100000000 seconds" tune "$faulty" --retry-faults -1

# The build and the run have limits of their own: a candidate that hangs
# before it is built is stopped by --build-timeout (the run's long limit does
# not keep it), one that hangs once built by --timeout (the build's long limit
# does not), each named in the reason. (--timeout covered both: one limit.)
SECONDS=0
CONVGEN_FAULT=hang:s3 run tune "$layer" --strategy s3 --budget 1 --build-timeout 2 --timeout 300 --db "$T/limits.db"
[ "$SECONDS" -lt 60 ] || bad "--build-timeout 2: a hang in the build waited ${SECONDS} s"
[ "$(sqlite3 "$T/limits.db" "select status || ': ' || reason from measurements")" = \
  "hang: not built within 2 s (--build-timeout); the worker was killed" ] || bad "--build-timeout: the hang and its reason"
SECONDS=0
CONVGEN_FAULT=hold:s3 run tune "$layer" --strategy s3 --budget 1 --build-timeout 300 --timeout 2 --db "$T/limits2.db"
[ "$SECONDS" -lt 60 ] || bad "--timeout 2: a hang in the run waited ${SECONDS} s"
[ "$(sqlite3 "$T/limits2.db" "select status || ': ' || reason from measurements")" = \
  "hang: no result within 2 s of its check and timing (--timeout); the worker was killed" ] ||
  bad "--timeout: the hang in the run and its reason"
usage_error "a bad --build-timeout" "--build-timeout 0: must be 1 to 86400 seconds" tune "$layer" --build-timeout 0

# --jobs: workers build at once and measure one at a time (a device lock);
# every candidate recorded once, the same faults handled, a worker that hangs
# while it holds the lock killed and the others going on, no lock file left
# (a longer watchdog than the serial test: three builds at once on a small CI machine).
mkdir -p "$T/tmp"
CONVGEN_FAULT=crash:s1,hang:s3 TMPDIR="$T/tmp" run tune "$faulty" --budget 6 --build-timeout 4 --timeout 4 --jobs 3 --db "$T/jobs.db"
expect_rc 0 "--jobs 3 with faults"
expect_err "3 workers (building at once, measuring one at a time)" "--jobs says how many workers"
[ "$(sqlite3 "$T/jobs.db" "select count(*) from measurements")" = 6 ] || bad "--jobs: six candidates recorded"
[ "$(sqlite3 "$T/jobs.db" "select count(*) from measurements where status = 'crash'")" = 2 ] || bad "--jobs: two crashes"
[ "$(sqlite3 "$T/jobs.db" "select count(*) from measurements where status = 'hang'")" = 1 ] || bad "--jobs: the hang"
[ "$(sqlite3 "$T/jobs.db" "select count(*) from measurements where status = 'ok'")" = 3 ] || bad "--jobs: three measured"
run tune "$faulty" --budget 10 --jobs 2 --db "$T/jobs.db"
[ "$(sqlite3 "$T/jobs.db" "select count(*) from measurements")" = 10 ] || bad "--jobs: a larger budget adds four"
CONVGEN_FAULT=hold:s2 TMPDIR="$T/tmp" run tune "$faulty" --budget 8 --timeout 4 --jobs 3 --db "$T/hold.db"
expect_rc 0 "--jobs 3, s2 hanging with the lock"
by_status() { sqlite3 "$T/hold.db" "select count(*) from measurements m join candidates c on m.candidate_id = c.id where $1"; }
[ "$(by_status "c.strategy = 's2' and m.status = 'hang'")" -ge 1 ] || bad "--jobs: no s2 candidate recorded as a hang"
[ "$(by_status "c.strategy = 's2' and m.status != 'hang'")" = 0 ] || bad "--jobs: an s2 candidate holding the lock was not a hang"
[ "$(by_status "c.strategy != 's2' and m.status = 'ok'")" -ge 1 ] || bad "--jobs: the others not measured after the hang"
[ -z "$(ls -A "$T/tmp")" ] || bad "--jobs: left in TMPDIR: $(ls -A "$T/tmp")"
usage_error "a bad --jobs" "--jobs 0: must be 1 to 64" tune "$faulty" --jobs 0

# --budget counts the candidates recorded before: the same tune with --jobs run
# again measures nothing (results came back in another order, so the evolve
# search proposed others; 16 records became 19, and 60 became 88 then 93),
# a larger budget adds the difference, and no claim is left behind.
small='n=1,c=2,h=5,w=5,k=2'
jq() { sqlite3 "$T/rerun.db" "$1"; }
run tune "$small" --budget 16 --jobs 2 --cutoff 0 --db "$T/rerun.db"
expect_rc 0 "--jobs 2, a budget past the random start"
[ "$(jq "select count(*) from measurements")" = 16 ] || bad "--jobs 2: 16 candidates recorded, not $(jq "select count(*) from measurements")"
for again in 1 2; do
  run tune "$small" --budget 16 --jobs 2 --cutoff 0 --db "$T/rerun.db"
  expect_rc 0 "--jobs 2 run again ($again)"
  expect_err "$small: 0 measured now (0 correct)" "--jobs 2 run again ($again) measures nothing"
  [ "$(jq "select count(*) from measurements")" = 16 ] || bad "--jobs 2 run again ($again): $(jq "select count(*) from measurements") records, not 16"
  [ "$(jq "select count(*) from claims")" = 0 ] || bad "--jobs 2 run again ($again): claims left: $(jq "select * from claims")"
done
run tune "$small" --budget 18 --jobs 2 --cutoff 0 --db "$T/rerun.db"
[ "$(jq "select count(*) from measurements")" = 18 ] || bad "--jobs 2 --budget 18: $(jq "select count(*) from measurements") records, not 18"
[ "$(jq "select count(*) from claims")" = 0 ] || bad "--jobs 2 --budget 18: claims left"
# The same, deterministic: a walk that proposes other candidates than those
# recorded (here another --seed; --jobs's rerun by the order of results)
# measures none past the budget (it measured 4 more).
run tune "$small" --search random --seed 2 --budget 4 --cutoff 0 --db "$T/seeds.db"
run tune "$small" --search random --seed 3 --budget 4 --cutoff 0 --db "$T/seeds.db"
expect_rc 0 "another seed, the budget recorded"
expect_err "$small: 0 measured now (0 correct)" "another seed, the budget recorded"
expect_err "; it has its --budget of 4 candidates recorded" "another seed: the summary says why"
[ "$(sqlite3 "$T/seeds.db" "select count(*) from measurements")" = 4 ] || bad "another seed: measured past the budget"
run tune "$small" --search random --seed 3 --budget 6 --cutoff 0 --db "$T/seeds.db"
[ "$(sqlite3 "$T/seeds.db" "select count(*) from measurements")" = 6 ] || bad "another seed, --budget 6: not 2 more"

# export: the best kernels with a host program that builds, runs and checks them
# (one layer whose best is s3: two kernels and a temporary buffer).
deep='n=1,c=8,h=5,w=7,k=3,kh=3,kw=1,stride=1,pad=1,bias=1,relu=0'
run tune "$deep" --strategy s3 --budget 3 --db "$db"
expect_rc 0 "tune s3"
run export "$layer" "$deep" -o "$T/ex" --db "$db"
expect_rc 0 "export"
expect_out "wrote 2 layers into $T/ex" "export says what it wrote"
for f in convgen_kernels.c convgen_kernels.h example.c Makefile; do [ -s "$T/ex/$f" ] || bad "export: no $f"; done
grep -q '"global": ' "$T/ex/"*_1.json || bad "export: a manifest per layer"
if make -s -C "$T/ex" >"$T/make.log" 2>&1; then
  "$T/ex/example" >"$T/ex.out" 2>&1 || bad "export: the example failed: $(cat "$T/ex.out")"
  [ "$(grep -c ' PASS ' "$T/ex.out")" = 2 ] || bad "export: the example does not pass both layers: $(cat "$T/ex.out")"
else
  bad "export: the generated code does not build: $(head -c 600 "$T/make.log")"
fi
usage_error "export without -o" "missing -o DIR" export "$layer" --db "$db"
run export "n=1,c=2,h=5,w=5,k=2" -o "$T/ex2" --db "$db"
expect_rc 1 "export of a layer never tuned"
expect_err "no correct kernel recorded" "export of a layer never tuned"
[ -e "$T/ex2" ] && bad "export of a layer never tuned: wrote something"

# MPI: two ranks share the layers; rank 0 alone writes the database; run
# again, nothing is measured twice.
if command -v mpirun >/dev/null; then
  mdb="$T/mpi.db"
  # Under the sanitizers, Open MPI's own allocations at exit (from plugins it
  # has unloaded, so no suppression can name them) would count as leaks:
  # leak detection is off for these runs; address and UB checks stay on.
  mpi=(env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" mpirun --allow-run-as-root --oversubscribe -np 2
    "$CONVGEN")
  "${mpi[@]}" tune "$layer" "$deep" "n=1,c=3,h=7,w=7,k=5" --budget 4 --db "$mdb" >"$T/out" 2>"$T/err"
  rc=$?
  expect_rc 0 "mpirun -np 2 tune"
  expect_err "rank 1: " "mpirun: rank 1 tunes"
  [ "$(grep -c 'best kernels on' "$T/out")" = 1 ] || bad "mpirun: one table, from rank 0"
  [ "$(sqlite3 "$mdb" 'select count(*), count(distinct candidate_id) from measurements')" = "12|12" ] ||
    bad "mpirun: 3 layers x 4 candidates, each once ($(sqlite3 "$mdb" 'select count(*) from measurements'))"
  [ "$(sqlite3 "$mdb" 'select count(kernel_hash) from measurements')" = 12 ] ||
    bad "mpirun: every record keeps its kernel hash, rank 1's sent to rank 0 with it"
  sqlite3 "$mdb" 'select candidate_id, measured_at from measurements order by candidate_id' >"$T/mpi.before"
  "${mpi[@]}" tune "$layer" "$deep" "n=1,c=3,h=7,w=7,k=5" --budget 4 --db "$mdb" >"$T/out" 2>"$T/err"
  rc=$?
  expect_rc 0 "mpirun again"
  # (the last layer, tuned first from --transfer's points, may now walk a
  # candidate the transfer displaced; none measured before is measured again)
  sqlite3 "$mdb" 'select candidate_id, measured_at from measurements order by candidate_id' >"$T/mpi.after"
  [ -z "$(comm -23 "$T/mpi.before" "$T/mpi.after")" ] || bad "mpirun again: measured something twice"
else
  echo "  (mpirun not installed: the MPI checks are skipped; scripts/setup.sh --test installs it)" >&2
fi

# The worker on bad requests: an answer each, no crash.
printf 'n=1,c=4,h=8,w=8,k=4\tbogus\t-\t1\nn=1,c=4,h=8,w=8,k=4\tbogus\t-\t1\nnot a request\n' |
  "$CONVGEN" worker >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "worker on bad requests"
[ "$(grep -c "^result	setup-failed	" "$T/out")" = 3 ] || bad "worker: a setup-failed reply per bad request"
# A point the space refuses is a rejected one, not a bad request: outside a
# constraint (4 % RK), an unusable variant (an illegal mapping); a point text
# that names no point (a value missing) is a request it cannot read. Neither
# has a kernel hash; a point measured has one (16 hex digits, before the reason).
small=n=1,c=4,h=8,w=8,k=4
printf '%s\ts2\tLK=1 LH=1 LW=1 RK=3 RW=2\t1\n%s\ts2\tLK=1 LH=1 LW=2 RK=2 RW=2\t1\n%s\ts2\tLK=1 LH=1 LW=1 RK=2\t1\n%s\tdirect\t-\t1\n' \
  "$small" "$small" "$small" "$small" | "$CONVGEN" worker >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "worker on refused points"
sed -n 2p "$T/out" | grep -q "^result	rejected	.*the point is outside the space: it breaks 4 % RK == 0" ||
  bad "worker: a point breaking a constraint is rejected"
sed -n 3p "$T/out" | grep -q "^result	rejected	.*is not usable: .*illegal mapping: mapGlb(2) is mixed with mapWrg/mapLcl" ||
  bad "worker: a point of an illegal mapping is rejected"
sed -n 4p "$T/out" | grep -q "^result	setup-failed	.*tuning parameter 'RW' has no value" ||
  bad "worker: a point text missing a value is a request it cannot read"
sed -n 2p "$T/out" | grep -qE "^result	rejected	([^	]*	){6}	" || bad "worker: a rejected point has no kernel hash"
grep -qE "^result	ok	([^	]*	){6}[0-9a-f]{16}	$" "$T/out" ||
  bad "worker: a point measured has its kernel hash: $(grep '^result	ok' "$T/out")"
# best and export only read the database: asking about a layer never tuned adds nothing.
before=$(count 'select count(*) from layers')
run best "n=1,c=2,h=6,w=6,k=2" --db "$db"
expect_rc 1 "best of a layer never tuned"
[ "$(count 'select count(*) from layers')" = "$before" ] || bad "best wrote a layer row"

# Wrong inputs.
usage_error "no layer" "missing LAYER or NETWORK" tune --budget 3
usage_error "a bad layer" "unknown key 'q'" tune "n=1,c=4,h=8,w=8,k=4,q=1" --db "$db"
usage_error "a bad strategy" "unknown strategy 'fast'" tune "$layer" --strategy fast --db "$db"
usage_error "a bad budget" "--budget 0: must be 1 to 100000000 candidates per layer" tune "$layer" --budget 0
echo "not a database" >"$T/junk.db"
usage_error "not a database" "$T/junk.db: " tune "$layer" --budget 1 --db "$T/junk.db"
[ "$(cat "$T/junk.db")" = "not a database" ] || bad "not a database: the file was changed"
# A strategy that does not take the layer (dw, the depthwise strategy, on a
# dense layer): nothing to measure, and tune says why.
run tune "$layer" --strategy dw --budget 2 --db "$T/dw.db"
expect_rc 1 "tune --strategy dw on a dense layer"
expect_err "strategy dw does not take it: dw derives a depthwise layer's kernels" "tune: why dw has no candidates"
run best "$layer" --db "$T/none.db"
expect_rc 1 "best without a database"
expect_err "1 of 1 layer untuned on " "best without a database: how many layers are untuned, on which device"
expect_err "no tuning database at $T/none.db; \`convgen tune $layer --db $T/none.db\` tunes them" \
  "best without a database: why, and the command that tunes them"
run best "$layer" vgg16.conv1_1 --db "$T/tune.db"
expect_rc 1 "best of a tuned layer and an untuned one"
expect_err "note: 1 of 2 layers untuned on " "best: the untuned layers counted"
expect_err "\`convgen tune $layer vgg16.conv1_1 --db $T/tune.db\` tunes them" "best: the command that tunes them"
run export "$layer" vgg16.conv1_1 --db "$T/tune.db" -o "$T/exl"
expect_rc 1 "export of a tuned layer and an untuned one"
expect_err "note: 1 of 2 layers untuned on " "export --layers: the layers with no record counted"
[ -e "$T/exl" ] && bad "export of an untuned layer writes nothing"
exit $((nfail > 0))
