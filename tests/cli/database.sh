#!/usr/bin/env bash
# database.sh: the readers of the tuning database (best, export, bench) open it
# read-only: they work on a database in a folder they cannot write (WAL mode
# needs a -shm file beside it), and, as tune does, refuse a file that is not a
# convgen database of this schema version, with a printable message, leaving
# the file as it is.
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

# A new database that cannot be made (a full disk: 2 KiB files) is not left
# behind as a stub that the next tune refuses.
(trap '' XFSZ && ulimit -f 2 && "$CONVGEN" tune "$layer" --budget 1 --db "$T/stub/new.db" >"$T/out" 2>"$T/err")
rc=$?
expect_rc 2 "tune into a new database on a full disk"
[ -z "$(ls -A "$T/stub")" ] || bad "tune on a full disk: left behind: $(ls -lA "$T/stub")"

# refused WHAT FILE MESSAGE: best, export and tune refuse it (exit 2) with
# MESSAGE, and leave it as it is.
refused() {
  local what=$1 file=$2 msg=$3 sum
  sum=$(cksum <"$file")
  for cmd in best export tune; do
    case $cmd in
      best) run best "$layer" --db "$file" ;;
      export) run export "$layer" -o "$T/refused" --db "$file" ;;
      tune) run tune "$layer" --budget 1 --db "$file" ;;
    esac
    expect_rc 2 "$cmd on $what"
    expect_err "$msg" "$cmd on $what"
    expect_clean "$cmd on $what"
  done
  [ "$(cksum <"$file")" = "$sum" ] || bad "$what: the file was changed"
  [ -e "$T/refused" ] && bad "$what: export wrote something"
}

cp "$T/tune.db" "$T/nometa.db"
sqlite3 "$T/nometa.db" "drop table meta"
refused "a database without its meta table" "$T/nometa.db" \
  "convgen's tables without a schema version (no meta row 'schema'): damaged, or not made by convgen"

cp "$T/tune.db" "$T/newer.db"
sqlite3 "$T/newer.db" "update meta set value = '2' where key = 'schema'"
refused "a newer schema" "$T/newer.db" "schema version 2 is newer than this convgen's (1)"
run bench "$layer" --db "$T/newer.db"
expect_rc 2 "bench on a newer schema"
expect_err "schema version 2 is newer than this convgen's (1)" "bench on a newer schema"

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

finish
