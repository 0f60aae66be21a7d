#!/usr/bin/env python3
"""merge_db.py INTO FROM: copies the tuning records of database FROM into
INTO (both convgen tune databases of one schema, docs/tune.md): layers by
spec, devices by fingerprint, candidates by (layer, strategy, point). A
measurement of a candidate INTO already has on that device is kept, unless
FROM's is correct and INTO's is not, or both are and FROM's is faster.
Prints what it copied. For combining the databases of a lease's calls."""
import sqlite3
import sys


def rows(db, sql, args=()):
    cur = db.execute(sql, args)
    names = [c[0] for c in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def upsert(db, table, row, key_cols):
    """The id of the row of `table` matching row on key_cols, inserting it (less its id) when missing."""
    where = " AND ".join(f"{k} = ?" for k in key_cols)
    found = db.execute(f"SELECT id FROM {table} WHERE {where}", [row[k] for k in key_cols]).fetchone()
    if found:
        return found[0]
    cols = [k for k in row if k != "id"]
    db.execute(f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})", [row[k] for k in cols])
    return db.execute("SELECT last_insert_rowid()").fetchone()[0]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: merge_db.py INTO.db FROM.db")
    into, src = sqlite3.connect(sys.argv[1]), sqlite3.connect(sys.argv[2])
    for db in (into, src):
        v = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if not v:
            sys.exit("merge_db.py: not a convgen tuning database (no schema in meta)")
    if into.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() != \
            src.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone():
        sys.exit("merge_db.py: the two databases have different schemas")
    layers = {r["id"]: upsert(into, "layers", r, ["spec"]) for r in rows(src, "SELECT * FROM layers")}
    devices = {r["id"]: upsert(into, "devices", r, ["fingerprint"]) for r in rows(src, "SELECT * FROM devices")}
    cands = {}
    for r in rows(src, "SELECT * FROM candidates"):
        r["layer_id"] = layers[r["layer_id"]]
        cands[r["id"]] = upsert(into, "candidates", r, ["layer_id", "strategy", "point"])
    added = replaced = kept = 0
    for m in rows(src, "SELECT * FROM measurements"):
        m["candidate_id"], m["device_id"] = cands[m["candidate_id"]], devices[m["device_id"]]
        old = into.execute("SELECT id, status, median_us FROM measurements WHERE candidate_id = ? AND device_id = ?",
                           (m["candidate_id"], m["device_id"])).fetchone()
        if old:
            better = m["status"] == "ok" and (old[1] != "ok" or (m["median_us"] or 1e300) < (old[2] or 1e300))
            if not better:
                kept += 1
                continue
            into.execute("DELETE FROM measurements WHERE id = ?", (old[0],))
            replaced += 1
        else:
            added += 1
        cols = [k for k in m if k != "id"]
        into.execute(f"INSERT INTO measurements ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                     [m[k] for k in cols])
    into.commit()
    print(f"merge_db.py: {added} measurements added, {replaced} replaced by faster ones, {kept} kept")


if __name__ == "__main__":
    main()
