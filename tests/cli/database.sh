#!/usr/bin/env bash
# database.sh: the readers of the tuning database (best, export, bench) open it
# read-only: they work on a database in a folder they cannot write (WAL mode
# needs a -shm file beside it), and, as tune does, refuse a file that is not a
# convgen database of this schema version, with a printable message, leaving
# the file as it is. Each record keeps the hash of the kernels it measured
# (schema 2): a record whose hash is not that of the kernels convgen makes now
# is measured again by tune (and replaced) and warned about by the readers; a
# database of schema 1 is migrated in place by tune, all or nothing, and read
# as it is by the readers.
# shellcheck source=tests/cli/common.bash disable=SC2034 # rc is read by the helpers
. "$(dirname "$0")/common.bash"

layer='n=1,c=2,h=5,w=5,k=2'
run tune "$layer" --budget 2 --db "$T/tune.db"
expect_rc 0 "tune"

# A folder the reader cannot write. Root writes anywhere, so as root the
# readers run as nobody (with a HOME of their own: PoCL keeps a cache there).
mkdir -p "$T/ro" "$T/home" "$T/out.d"
cp "$T/tune.db" "$T/ro/tune.db"
chmod 755 "$T" && chmod 555 "$T/ro" && chmod 644 "$T/ro/tune.db" && chmod 777 "$T/home" "$T/out.d"
as_reader=()
[ "$(id -u)" -eq 0 ] && as_reader=(setpriv --reuid=65534 --regid=65534 --clear-groups)
reader() {
  HOME=$T/home "${as_reader[@]}" "$CONVGEN" "$@" >"$T/out" 2>"$T/err"
  rc=$?
}
reader best "$layer" --db "$T/ro/tune.db"
expect_rc 0 "best on a database in a read-only folder"
expect_out "$layer" "best on a database in a read-only folder"
reader export "$layer" -o "$T/out.d/ex" --db "$T/ro/tune.db"
expect_rc 0 "export from a database in a read-only folder"
[ -s "$T/out.d/ex/convgen_kernels.c" ] || bad "export from a read-only folder: nothing written"
[ "$(ls "$T/ro")" = tune.db ] || bad "the readers left files in the read-only folder: $(ls "$T/ro")"
chmod 755 "$T/ro"

# export makes DIR with the folders above it (its help said so, it did not),
# and a new DIR appears whole or not at all: with files limited to less than
# its largest (a full disk, in effect) nothing is left. The copy it reads is
# out of WAL mode, which would need a -shm file larger than that.
run export "$layer" -o "$T/new/a/ex" --db "$T/tune.db"
expect_rc 0 "export into a folder whose parents are missing"
[ -s "$T/new/a/ex/convgen_kernels.c" ] || bad "export -o new/a/ex: nothing written"
cp "$T/tune.db" "$T/plain.db"
sqlite3 "$T/plain.db" "pragma journal_mode = delete" >/dev/null
largest=$(wc -c "$T/new/a/ex"/* | sort -n | tail -n 2 | head -n 1 | awk '{print $1}')
(trap '' XFSZ && ulimit -f $(((largest - 1) / 1024)) && "$CONVGEN" export "$layer" -o "$T/full/ex" --db "$T/plain.db" >"$T/out" 2>"$T/err")
rc=$?
expect_rc 2 "export on a full disk"
expect_err "$T/full/ex/" "export on a full disk: the message names the file"
expect_err ": cannot write: File too large" "export on a full disk"
[ -e "$T/full/ex" ] && bad "export on a full disk: a half-made folder was left: $(ls -A "$T/full/ex")"
[ -n "$(ls -A "$T/full")" ] && bad "export on a full disk: left in the folder above: $(ls -A "$T/full")"

# A writer killed before it renamed its folder into place leaves .DIR.tmp.PID
# beside DIR; the next export or gen into DIR removes those whose PID no
# longer runs, and keeps a live writer's (and other folders' siblings). They
# were once left for good.
dead=4000000
while kill -0 "$dead" 2>/dev/null; do dead=$((dead + 1)); done
sleep 300 &
live=$!
mkdir -p "$T/stale/.ex.tmp.$dead" "$T/stale/.ex.tmp.$live" "$T/stale/.other.tmp.$dead" "$T/stale/.gen.tmp.$dead"
echo half >"$T/stale/.ex.tmp.$dead/convgen_kernels.c"
run export "$layer" -o "$T/stale/ex" --db "$T/tune.db"
expect_rc 0 "export beside stale siblings"
[ -e "$T/stale/.ex.tmp.$dead" ] && bad "export left the sibling of a writer that no longer runs"
[ -d "$T/stale/.ex.tmp.$live" ] || bad "export removed the sibling of a live writer"
[ -d "$T/stale/.other.tmp.$dead" ] || bad "export removed another folder's sibling"
run export "$layer" -o "$T/stale/ex" --db "$T/tune.db"
expect_rc 0 "export into an existing folder beside a live writer's sibling"
[ -d "$T/stale/.ex.tmp.$live" ] || bad "export into an existing folder removed the sibling of a live writer"
mkdir "$T/stale/.ex.tmp.$dead"
run export "$layer" -o "$T/stale/ex" --db "$T/tune.db"
[ -e "$T/stale/.ex.tmp.$dead" ] && bad "export into an existing folder left a stale sibling"
run gen "$layer" --strategy direct -o "$T/stale/gen"
expect_rc 0 "gen beside a stale sibling"
[ -e "$T/stale/.gen.tmp.$dead" ] && bad "gen left the sibling of a writer that no longer runs"
kill "$live"
wait "$live" 2>/dev/null

# A new database that cannot be made (a full disk: 2 KiB files) is not left
# behind as a stub that the next tune refuses.
(trap '' XFSZ && ulimit -f 2 && "$CONVGEN" tune "$layer" --budget 1 --db "$T/stub/new.db" >"$T/out" 2>"$T/err")
rc=$?
expect_rc 2 "tune into a new database on a full disk"
[ -z "$(ls -A "$T/stub")" ] || bad "tune on a full disk: left behind: $(ls -lA "$T/stub")"

# refused WHAT FILE MESSAGE: best, export (of layers and of a model whole),
# tune and infer refuse it (exit 2) with MESSAGE, before any device work (no
# "wrote", no output line), and leave it as it is. infer and export of a model
# once dropped the error and ran every layer untuned (exit 0).
M=tests/onnx
onnx=1
"$CONVGEN" import "$M/tiny.onnx" >/dev/null 2>&1 || onnx=0
refused() {
  local what=$1 file=$2 msg=$3 sum
  sum=$(cksum <"$file" 2>/dev/null || echo folder)
  for cmd in best export tune infer export-model; do
    case $cmd in
      best) run best "$layer" --db "$file" ;;
      export) run export "$layer" -o "$T/refused" --db "$file" ;;
      tune) run tune "$layer" --budget 1 --db "$file" ;;
      infer) [ $onnx = 1 ] || continue; run infer "$M/tiny.onnx" --input "$M/block_input.pb" --db "$file" ;;
      export-model) [ $onnx = 1 ] || continue; run export "$M/tiny.onnx" -o "$T/refused" --db "$file" ;;
    esac
    expect_rc 2 "$cmd on $what"
    expect_err "$msg" "$cmd on $what"
    head -n 1 "$T/err" | grep -q '^convgen: ' || bad "$cmd on $what: stderr does not start with 'convgen: '"
    [ -s "$T/out" ] && bad "$cmd on $what: wrote to stdout"
    expect_clean "$cmd on $what"
  done
  [ "$(cksum <"$file" 2>/dev/null || echo folder)" = "$sum" ] || bad "$what: the file was changed"
  [ -e "$T/refused" ] && bad "$what: export wrote something"
}

# Random bytes, a database cut short, a folder.
head -c 4096 /dev/urandom >"$T/random.db"
refused "random bytes" "$T/random.db" "file is not a database"
cp "$T/tune.db" "$T/whole.db"
sqlite3 "$T/whole.db" "pragma journal_mode = delete" >/dev/null
head -c "$(($(wc -c <"$T/whole.db") / 2))" "$T/whole.db" >"$T/truncated.db"
refused "a truncated database" "$T/truncated.db" "database disk image is malformed"
mkdir "$T/folder.db"
refused "a folder" "$T/folder.db" "folder.db: a folder, not a database file"
# A file the reader cannot read (as root, the readers run as nobody).
cp "$T/tune.db" "$T/home/unreadable.db"
chmod 600 "$T/home/unreadable.db"
[ "$(id -u)" -eq 0 ] || chmod 000 "$T/home/unreadable.db"
if [ $onnx = 1 ]; then
  for cmd in infer export; do
    if [ $cmd = infer ]; then reader infer "$M/tiny.onnx" --input "$M/block_input.pb" --db "$T/home/unreadable.db"
    else reader export "$M/tiny.onnx" -o "$T/out.d/unreadable" --db "$T/home/unreadable.db"; fi
    expect_rc 2 "$cmd with a database it cannot read"
    expect_err "unreadable.db: cannot open for reading" "$cmd with a database it cannot read"
    [ -s "$T/out" ] && bad "$cmd with a database it cannot read: wrote to stdout"
  done
  [ -e "$T/out.d/unreadable" ] && bad "export with a database it cannot read: wrote something"
  # A database that does not exist is none: the layers run untuned.
  run infer "$M/tiny.onnx" --input "$M/block_input.pb" --db "$T/none.db"
  expect_rc 0 "infer with a database that does not exist"
  [ -e "$T/none.db" ] && bad "infer made the database that did not exist"
fi

cp "$T/tune.db" "$T/nometa.db"
sqlite3 "$T/nometa.db" "drop table meta"
refused "a database without its meta table" "$T/nometa.db" \
  "convgen's tables without a schema version (no meta row 'schema'): damaged, or not made by convgen"

cp "$T/tune.db" "$T/newer.db"
sqlite3 "$T/newer.db" "update meta set value = '3' where key = 'schema'"
refused "a newer schema" "$T/newer.db" "schema version 3 is newer than this convgen's (2)"
run bench "$layer" --db "$T/newer.db"
expect_rc 2 "bench on a newer schema"
expect_err "schema version 3 is newer than this convgen's (2)" "bench on a newer schema"

sqlite3 "$T/other.db" "create table t(x); create table u(y)"
refused "someone else's database" "$T/other.db" "not a convgen database (it has 2 tables of its own)"

# A damaged schema: SQLite's message quotes the damaged bytes, written as \xNN.
cp "$T/tune.db" "$T/flipped.db"
python3 - "$T/flipped.db" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
i = b.find(b'CREATE TABLE meta')
b[i + 13:i + 17] = b'\xff\xfe\x01\x80'
open(p, 'wb').write(b)
PY
refused "a bit-flipped database" "$T/flipped.db" "malformed database schema"
for cmd in best tune; do
  run "$cmd" "$layer" --db "$T/flipped.db"
  LC_ALL=C grep -q '[^ -~]' "$T/err" && bad "$cmd on a bit-flipped database: raw bytes in the message: $(od -c "$T/err" | head -3)"
done
expect_err '\x01' "the damaged byte, written as \\x01"

: >"$T/empty.db"
run best "$layer" --db "$T/empty.db"
expect_rc 2 "best on an empty file"
expect_err "an empty file, not a convgen database" "best on an empty file"

# The same hardware under another driver: best (and export, bench) use its
# records, with a warning that names both drivers; other hardware has none.
cp "$T/tune.db" "$T/driver.db"
sqlite3 "$T/driver.db" "update devices set driver = 'old-driver-0.1', fingerprint = fingerprint || ' (old driver)'"
run best "$layer" --db "$T/driver.db"
expect_rc 0 "best with records under another driver"
expect_err "under driver old-driver-0.1" "best names the driver the records were made under"
expect_err "whose kernels may run differently" "best warns that the records are another driver's"
sqlite3 "$T/driver.db" "update devices set name = 'another GPU'"
run best "$layer" --db "$T/driver.db"
expect_rc 1 "best with records of other hardware only"
expect_err "nothing recorded on" "best with records of other hardware only"

# A damaged record (the candidates table edited by hand: a strategy convgen
# lacks, a point that is not one of its strategy's, bytes that are not text)
# is passed over by best with a warning that names it, printable, and the
# fastest sound record is the layer's best; with none left, none (exit 1).
# best once printed them as they were.
cp "$T/tune.db" "$T/damaged.db"
dq() { sqlite3 "$T/damaged.db" "$1"; }
# the K-th fastest correct record (a candidate that failed has no time, and
# SQLite sorts a NULL first: on a loaded machine a tune's timeout made one)
cand() {
  dq "select c.id from measurements m join candidates c on c.id = m.candidate_id where m.status = 'ok'
      order by m.median_us limit 1 offset $1"
}
sound=$(dq "select c.strategy || ' ' || c.point from candidates c where c.id = $(cand 1)")
dq "update candidates set strategy = 'nosuch' || char(1) where id = $(cand 0)"
run best "$layer" --db "$T/damaged.db"
expect_rc 0 "best with a damaged strategy"
expect_err "warning: $layer: a damaged record passed over (strategy 'nosuch\x01'" "best names the damaged record"
expect_err "no strategy of that name" "best says what is damaged"
grep -q "nosuch" "$T/out" && bad "best printed the damaged record"
LC_ALL=C grep -q '[^ -~]' "$T/err" "$T/out" && bad "best printed raw bytes of a damaged record"
for point in "'garbage ' || char(1)" "'ZZ=1'" "''" "'LK=99999999999999999999999'"; do
  dq "update candidates set strategy = 's1', point = $point where id = $(cand 0)"
  run best "$layer" --db "$T/damaged.db"
  expect_rc 0 "best with a damaged point $point"
  expect_err "warning: $layer: a damaged record passed over (strategy 's1', point '" "best with a damaged point $point"
  grep -qE "^$layer +${sound%% *} .*  ${sound#* }\$" "$T/out" || bad "best with a damaged point $point: the next record ($sound) is not the best"
  LC_ALL=C grep -q '[^ -~]' "$T/err" "$T/out" && bad "best printed raw bytes of a damaged point $point"
  expect_clean "best with a damaged point $point"
done
dq "update candidates set strategy = 'gone'"
run best "$layer" --db "$T/damaged.db"
expect_rc 1 "best with every record damaged"
expect_out "no correct kernel recorded" "best with every record damaged"
expect_clean "best with every record damaged"

# The kernel hash: every record of a tune keeps one (16 hex digits: four
# candidates, four hashes), and the same tune again finds each equal to the
# hash of what it makes now.
hdb=$T/hash.db
q() { sqlite3 "$hdb" "$1"; }
run tune "$layer" --budget 4 --db "$hdb"
expect_rc 0 "tune into a new database"
[ "$(q "select value from meta where key = 'schema'")" = 2 ] || bad "a new database is of schema 2"
[ "$(q "select count(distinct kernel_hash) from measurements where length(kernel_hash) = 16 and
  kernel_hash not glob '*[^0-9a-f]*'")" = 4 ] || bad "each of 4 records keeps its own kernel hash: $(q 'select kernel_hash from measurements')"
run tune "$layer" --budget 4 --db "$hdb"
expect_err "0 measured now (0 correct), 4 recorded before" "the same kernels are not measured again"
run best "$layer" --db "$hdb"
grep -q warning "$T/err" && bad "best warns about records of the kernels convgen makes"
run tune "$layer" --strategy s2 --budget 2 --db "$T/s2.db"
run best "$layer" --db "$T/s2.db"
expect_out " s2 " "best of an s2 tune"
grep -q warning "$T/err" && bad "best warns about an s2 record of the kernels convgen makes"

# schema1 SRC DST: DST is SRC as convgen made databases before the kernel
# hash, schema 1 (this text is that version's, frozen), in WAL mode.
schema1() {
  sqlite3 "$2" >/dev/null <<SQL
PRAGMA journal_mode=WAL;
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE devices(id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
  platform TEXT NOT NULL, vendor TEXT NOT NULL, driver TEXT NOT NULL, compute_units INTEGER, max_wg_size INTEGER,
  local_mem INTEGER, global_mem INTEGER, first_seen TEXT NOT NULL);
CREATE TABLE layers(id INTEGER PRIMARY KEY, spec TEXT NOT NULL UNIQUE, n INTEGER, c INTEGER, h INTEGER, w INTEGER,
  k INTEGER, kh INTEGER, kw INTEGER, stride_h INTEGER, stride_w INTEGER, pad_h INTEGER, pad_w INTEGER, bias INTEGER,
  relu INTEGER);
CREATE TABLE candidates(id INTEGER PRIMARY KEY, layer_id INTEGER NOT NULL REFERENCES layers(id),
  strategy TEXT NOT NULL, point TEXT NOT NULL, UNIQUE(layer_id, strategy, point));
CREATE TABLE measurements(id INTEGER PRIMARY KEY, candidate_id INTEGER NOT NULL REFERENCES candidates(id),
  device_id INTEGER NOT NULL REFERENCES devices(id), status TEXT NOT NULL, reason TEXT NOT NULL, error REAL,
  median_us REAL, min_us REAL, max_us REAL, spread REAL, runs INTEGER, seed INTEGER NOT NULL, search TEXT NOT NULL,
  convgen TEXT NOT NULL, measured_at TEXT NOT NULL, UNIQUE(candidate_id, device_id));
CREATE INDEX measurements_time ON measurements(device_id, status, median_us);
CREATE TABLE claims(candidate_id INTEGER NOT NULL REFERENCES candidates(id),
  device_id INTEGER NOT NULL REFERENCES devices(id), owner TEXT NOT NULL, expires REAL NOT NULL,
  PRIMARY KEY(candidate_id, device_id));
INSERT INTO meta VALUES ('schema', '1');
ATTACH '$1' AS src;
INSERT INTO devices SELECT * FROM src.devices;
INSERT INTO layers SELECT * FROM src.layers;
INSERT INTO candidates SELECT * FROM src.candidates;
INSERT INTO measurements SELECT id, candidate_id, device_id, status, reason, error, median_us, min_us, max_us,
  spread, runs, seed, search, convgen, measured_at FROM src.measurements;
SQL
}
rows="select id, candidate_id, device_id, status, reason, error, median_us, min_us, max_us, spread, runs, seed, search,
  convgen, measured_at from measurements order by id"
schema1 "$hdb" "$T/v1.db"
cp "$T/v1.db" "$T/v1-kept.db"
[ "$(sqlite3 "$T/v1.db" "$rows")" = "$(q "$rows")" ] || bad "the schema-1 copy has the records"

# A reader reads a schema-1 file as it is, and changes nothing (nor in a folder
# it cannot write, where it opens the file as immutable).
sum=$(cksum <"$T/v1.db")
run best "$layer" --db "$T/v1.db"
expect_rc 0 "best on a schema-1 database"
expect_out "$layer" "best on a schema-1 database"
run export "$layer" -o "$T/v1-ex" --db "$T/v1.db"
expect_rc 0 "export from a schema-1 database"
[ "$(cksum <"$T/v1.db")" = "$sum" ] || bad "the readers changed a schema-1 database"
grep -q migrated "$T/err" && bad "a reader migrated a schema-1 database"
mkdir -p "$T/ro1" && cp "$T/v1.db" "$T/ro1/tune.db" && chmod 644 "$T/ro1/tune.db" && chmod 555 "$T/ro1"
reader best "$layer" --db "$T/ro1/tune.db"
expect_rc 0 "best on a schema-1 database in a read-only folder"
expect_out "$layer" "best on a schema-1 database in a read-only folder"
[ "$(cksum <"$T/ro1/tune.db")" = "$sum" ] && [ "$(ls "$T/ro1")" = tune.db ] ||
  bad "best changed a schema-1 database in a read-only folder: $(ls "$T/ro1")"
chmod 755 "$T/ro1"

# tune migrates it in place, in one transaction, and says so: every record
# kept as it was, its kernels not known (NULL), so not measured again ...
run tune "$layer" --budget 4 --db "$T/v1.db"
expect_rc 0 "tune on a schema-1 database"
expect_err "database schema 1 migrated to 2 (measurements.kernel_hash: not known for the 4 records made before)" \
  "tune migrates a schema-1 database"
expect_err "0 measured now (0 correct), 4 recorded before" "records of kernels not known are used as they are"
[ "$(sqlite3 "$T/v1.db" "select value from meta where key = 'schema'")" = 2 ] || bad "migrated: the schema is 2"
[ "$(sqlite3 "$T/v1.db" "$rows")" = "$(q "$rows")" ] || bad "migrated: a record changed"
[ "$(sqlite3 "$T/v1.db" "select count(*) from measurements where kernel_hash is null")" = 4 ] ||
  bad "migrated: the old records' kernels are not known"
run tune "$layer" --budget 4 --db "$T/v1.db"
grep -q migrated "$T/err" && bad "a schema-2 database migrated again"
# ... unless --remeasure-unknown: then each is measured again and replaced.
run tune "$layer" --budget 4 --remeasure-unknown --db "$T/v1.db"
expect_rc 0 "tune --remeasure-unknown"
expect_err "4 measured now (4 correct, 4 of them again: their kernels were not known)" "tune --remeasure-unknown"
[ "$(sqlite3 "$T/v1.db" "select count(*), count(kernel_hash) from measurements")" = "4|4" ] ||
  bad "--remeasure-unknown: the records replaced, with their hashes"
[ "$(sqlite3 "$T/v1.db" "select kernel_hash from measurements order by candidate_id")" = \
  "$(q "select kernel_hash from measurements order by candidate_id")" ] || bad "--remeasure-unknown: the same hashes"

# A migration that fails (here a trigger refuses the new version number)
# leaves the file as it was: schema 1, no new column, the same bytes.
cp "$T/v1-kept.db" "$T/v1-fail.db"
sqlite3 "$T/v1-fail.db" "create trigger keep before update on meta begin select raise(abort, 'meta is kept'); end"
sum=$(cksum <"$T/v1-fail.db")
run tune "$layer" --budget 1 --db "$T/v1-fail.db"
expect_rc 2 "a migration that fails"
expect_err "migrating the database from schema version 1 to 2 failed: meta is kept; it is left as it was" \
  "a migration that fails"
expect_clean "a migration that fails"
[ "$(cksum <"$T/v1-fail.db")" = "$sum" ] || bad "a migration that failed changed the file"
[ "$(sqlite3 "$T/v1-fail.db" "select count(*) from pragma_table_info('measurements') where name = 'kernel_hash'")" = 0 ] ||
  bad "a migration that failed left the new column"

# A record whose hash is not of the kernels convgen makes now: best and export
# warn (naming the layer), and tune measures it again, replacing the row.
id=$(q "select id from measurements where status = 'ok' order by median_us limit 1")
hash=$(q "select kernel_hash from measurements where id = $id")
q "update measurements set kernel_hash = '0123456789abcdef', median_us = 0.001 where id = $id"
run best "$layer" --db "$hdb"
expect_rc 0 "best with a record of other kernels"
expect_err "warning: $layer: the record of strategy" "best names the layer of a record of other kernels"
expect_err "was measured with other kernels than this convgen makes for it (kernel hash 0123456789abcdef, now $hash)" \
  "best warns about a record of other kernels"
run export "$layer" -o "$T/hash-ex" --db "$hdb"
expect_rc 0 "export with a record of other kernels"
expect_err "(kernel hash 0123456789abcdef, now $hash)" "export warns about a record of other kernels"
run tune "$layer" --budget 4 --db "$hdb"
expect_rc 0 "tune with a record of other kernels"
expect_err "1 measured now (1 correct, 1 of them again: their kernels changed), 3 recorded before" \
  "a record of other kernels is measured again"
[ "$(q "select count(*) from measurements")" = 4 ] || bad "the new measurement replaces the record, adds none"
[ "$(q "select kernel_hash from measurements where id = $id")" = "$hash" ] || bad "the new measurement keeps its hash"
[ "$(q "select median_us > 0.001 from measurements where id = $id")" = 1 ] || bad "the new measurement's time replaces the old"
# A hash that is not one (written by hand) is another kernel's, printed as such.
q "update measurements set kernel_hash = 'x' || char(1), median_us = 0.001 where id = $id"
run best "$layer" --db "$hdb"
expect_err "(kernel hash (not a hash), now $hash)" "best on a hash that is not one"
run tune "$layer" --budget 4 --db "$hdb"
expect_err "1 measured now (1 correct, 1 of them again: their kernels changed)" "a hash that is not one is measured again"

finish
