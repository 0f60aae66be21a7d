/* db.c: the tuning database over the system SQLite library (db.h).
 *
 * The file is opened in WAL mode with synchronous=NORMAL: a committed
 * transaction survives the process being killed (only a power cut can lose
 * the last ones), and readers (convgen best) do not block the writer. Each
 * measurement is one transaction that also makes its candidate row; the
 * unique key (candidate, device) makes recording twice impossible.
 *
 * Schema versions: 1, then 2, which added measurements.kernel_hash. A
 * writer migrates a version-1 file in place, in the transaction that opens
 * it (all or nothing); a reader reads either version and changes neither.
 */
#include "tune/db.h"

#include "measure/measure.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

enum { DB_SCHEMA_VERSION = 2 };

static const char SCHEMA[] =
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
    "CREATE TABLE IF NOT EXISTS devices(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  fingerprint TEXT NOT NULL UNIQUE,  -- platform | vendor | name | driver | OpenCL version | units | limits\n"
    "  name TEXT NOT NULL, platform TEXT NOT NULL, vendor TEXT NOT NULL, driver TEXT NOT NULL,\n"
    "  compute_units INTEGER, max_wg_size INTEGER, local_mem INTEGER, global_mem INTEGER,\n"
    "  first_seen TEXT NOT NULL);\n"
    "CREATE TABLE IF NOT EXISTS layers(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  spec TEXT NOT NULL UNIQUE,         -- canonical plain form (layer_format)\n"
    "  n INTEGER, c INTEGER, h INTEGER, w INTEGER, k INTEGER, kh INTEGER, kw INTEGER,\n"
    "  stride_h INTEGER, stride_w INTEGER, pad_h INTEGER, pad_w INTEGER, bias INTEGER, relu INTEGER);\n"
    "CREATE TABLE IF NOT EXISTS candidates(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  layer_id INTEGER NOT NULL REFERENCES layers(id),\n"
    "  strategy TEXT NOT NULL,\n"
    "  point TEXT NOT NULL,               -- choices then tuning parameters: 'LK=1 LH=1 RK=8'\n"
    "  UNIQUE(layer_id, strategy, point));\n"
    "CREATE TABLE IF NOT EXISTS measurements(\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  candidate_id INTEGER NOT NULL REFERENCES candidates(id),\n"
    "  device_id INTEGER NOT NULL REFERENCES devices(id),\n"
    "  status TEXT NOT NULL,              -- ok, wrong, build-failed, launch-failed, over-limit, crash, hang, ...\n"
    "  reason TEXT NOT NULL,              -- why not ok ('' when ok)\n"
    "  error REAL,                        -- relative L2 error against the float64 reference (NULL: none)\n"
    "  median_us REAL, min_us REAL, max_us REAL, spread REAL, runs INTEGER,  -- NULL unless ok\n"
    "  seed INTEGER NOT NULL,             -- of the random inputs\n"
    "  search TEXT NOT NULL,              -- how the candidate was chosen\n"
    "  convgen TEXT NOT NULL,             -- the version that measured it\n"
    "  measured_at TEXT NOT NULL,         -- UTC, ISO 8601\n"
    "  kernel_hash TEXT,                  -- of the kernels measured (meas_kernel_hash, 16 hex digits); NULL: not known\n"
    "  UNIQUE(candidate_id, device_id));\n"
    "CREATE INDEX IF NOT EXISTS measurements_time ON measurements(device_id, status, median_us);\n"
    "CREATE TABLE IF NOT EXISTS claims(   -- candidates a tune is measuring now: other tunes skip them\n"
    "  candidate_id INTEGER NOT NULL REFERENCES candidates(id),\n"
    "  device_id INTEGER NOT NULL REFERENCES devices(id),\n"
    "  owner TEXT NOT NULL,               -- the tune: host:pid\n"
    "  expires REAL NOT NULL,             -- Unix seconds; then void (its tune died)\n"
    "  PRIMARY KEY(candidate_id, device_id));\n";

struct Db {
  sqlite3 *h;
  char *path;
  int version;   // the file's schema version: DB_SCHEMA_VERSION, or 1 read as it is (db_open_readonly)
};

/* SQLite's message, printable: a damaged file's message can quote its bytes
 * (a name in a broken schema), which are written as \xNN. */
static const char *printable(const char *msg, char *buf, size_t n) {
  size_t k = 0;
  for (const unsigned char *c = (const unsigned char *)msg; *c && k + 5 < n; c++) {
    if (*c >= 0x20 && *c < 0x7f) buf[k++] = (char)*c;
    else k += (size_t)snprintf(buf + k, n - k, "\\x%02x", *c);
  }
  buf[k] = 0;
  return buf;
}

static bool db_fail(Db *db, Diag *d, const char *what) {
  char buf[512];
  return diag_error(d, "%s: %s: %s", db->path, what, printable(sqlite3_errmsg(db->h), buf, sizeof buf));
}

static bool exec(Db *db, const char *sql, Diag *d) {
  char *err = NULL, buf[512];
  if (sqlite3_exec(db->h, sql, NULL, NULL, &err) == SQLITE_OK) return true;
  diag_error(d, "%s: %s", db->path, printable(err ? err : sqlite3_errmsg(db->h), buf, sizeof buf));
  sqlite3_free(err);
  return false;
}

char *db_default_path(void) {
  const char *env = getenv("CONVGEN_DB"), *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
  StrBuf sb;
  sb_init(&sb);
  if (env && *env) sb_puts(&sb, env);
  else if (xdg && *xdg) sb_printf(&sb, "%s/convgen/tune.db", xdg);
  else if (home && *home) sb_printf(&sb, "%s/.local/share/convgen/tune.db", home);
  else return NULL;   // not ./.local/share/... in whatever folder this runs in
  return sb_take(&sb);
}

/* mkdir -p of path's folder. */
static bool make_folder(const char *path, Diag *d) {
  const char *slash = strrchr(path, '/');
  if (!slash || slash == path) return true;
  char *dir = strndup(path, (size_t)(slash - path));
  if (!dir) cg_die("out of memory");
  bool ok = dir_make(dir, d);
  free(dir);
  return ok;
}

static int count_rows(Db *db, const char *sql) {
  sqlite3_stmt *st;
  int n = -1;
  if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    n = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  return n;
}

/* The version in the meta table; 0 when there is none. */
static int64_t schema_version(Db *db) {
  int64_t v = 0;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db->h, "SELECT value FROM meta WHERE key = 'schema'", -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return v;
}

/* True when the file has no tables (*fresh: a new file) or is a convgen
 * database of this schema version or an older one (db->version says
 * which); false with a Diag when it is not SQLite, is damaged, someone
 * else's, or newer. */
static bool check_schema(Db *db, bool *fresh, Diag *d) {
  *fresh = false;
  db->version = DB_SCHEMA_VERSION;
  if (!exec(db, "SELECT count(*) FROM sqlite_master", d)) return false;   // not SQLite, or damaged
  int tables = count_rows(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'");
  if (tables == 0) return *fresh = true;
  int ours = count_rows(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('devices', "
                            "'layers', 'candidates', 'measurements')");
  int64_t v = schema_version(db);
  if (v > DB_SCHEMA_VERSION)
    return diag_error(d, "%s: schema version %lld is newer than this convgen's (%d); read it with the convgen that "
                      "made it", db->path, (long long)v, DB_SCHEMA_VERSION);
  if (v >= 1) return db->version = (int)v, true;
  if (ours > 0)
    return diag_error(d, "%s: convgen's tables without a schema version (no meta row 'schema'): damaged, or not "
                      "made by convgen; refused and left as it is", db->path);
  return diag_error(d, "%s: not a convgen database (it has %d table%s of its own); refused and left as it is",
                    db->path, tables, tables == 1 ? "" : "s");
}

/* Version 1 to 2, inside db_open's transaction: the kernels' hash, NULL
 * (not known) for every record made before. *records gets how many. */
static bool migrate_v1(Db *db, int64_t *records, Diag *d) {
  *records = count_rows(db, "SELECT count(*) FROM measurements");
  char *err = NULL, buf[512];
  if (sqlite3_exec(db->h, "ALTER TABLE measurements ADD COLUMN kernel_hash TEXT; UPDATE meta SET value = '2' WHERE "
                          "key = 'schema';", NULL, NULL, &err) == SQLITE_OK)
    return true;
  diag_error(d, "%s: migrating the database from schema version 1 to 2 failed: %s; it is left as it was", db->path,
             printable(err ? err : sqlite3_errmsg(db->h), buf, sizeof buf));
  sqlite3_free(err);
  return false;
}

/* A database this process began and could not finish (a full disk) is
 * removed with its side files, not left as a stub the next run refuses. */
static void remove_new(const char *path) {
  static const char *const sides[] = {"", "-wal", "-shm", "-journal"};
  for (size_t i = 0; i < sizeof sides / sizeof *sides; i++) {
    char *p = malloc(strlen(path) + 16);
    if (!p) cg_die("out of memory");
    sprintf(p, "%s%s", path, sides[i]);
    remove(p);
    free(p);
  }
}

/* The switch to WAL needs the file to itself; when a second tune opening
 * the same new file holds it for a moment, SQLite may answer BUSY at once
 * rather than through the busy handler (seen once in tests/cli/tune.sh's two
 * tunes at once, on a loaded machine): tried again for up to 10 s. */
static bool set_wal(Db *db, Diag *d) {
  for (int tries = 0; tries < 200; tries++) {
    int rc = sqlite3_exec(db->h, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
    if (rc == SQLITE_OK) break;
    if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED) break;   // exec below says what it is
    nanosleep(&(struct timespec){.tv_nsec = 50 * 1000 * 1000}, NULL);
  }
  return exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;", d);
}

/* A path that is a folder is refused with a message that says so (SQLite's
 * own is "unable to open database file", or "disk I/O error" read-only). */
static bool not_folder(const char *path, Diag *d) {
  struct stat sb;
  if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
    return diag_error(d, "%s: a folder, not a database file", path);
  return true;
}

Db *db_open(const char *path, Diag *d) {
  if (!not_folder(path, d) || !make_folder(path, d)) return NULL;
  // made here (exclusively) or there already: only a file this process made
  // is removed on failure, never one a second tune made at the same moment
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
  bool existed = fd < 0 && errno == EEXIST;
  if (fd >= 0) close(fd);
  Db *db = calloc(1, sizeof *db);
  if (!db) cg_die("out of memory");
  db->path = strdup(path);
  if (sqlite3_open_v2(path, &db->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
    db_fail(db, d, "cannot open");
    db_close(db);
    if (!existed) remove_new(path);
    return NULL;
  }
  sqlite3_busy_timeout(db->h, 10000);   // another writer (a second tune) holds the lock briefly
  // nothing is changed before the file is known to be empty or ours
  bool fresh;
  bool ok = check_schema(db, &fresh, d);
  ok = ok && set_wal(db, d);
  ok = ok && exec(db, "BEGIN IMMEDIATE", d);
  ok = ok && exec(db, SCHEMA, d);
  int64_t records = -1;   // >= 0: the file was migrated, with these measurements
  if (ok) {
    char sql[128];
    snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', '%d')", DB_SCHEMA_VERSION);
    ok = exec(db, sql, d);
    // read again under the lock: another tune may have migrated it since check_schema
    if (ok && schema_version(db) == 1) ok = migrate_v1(db, &records, d);
    ok = ok && exec(db, "COMMIT", d);
  }
  if (!ok) {
    exec(db, "ROLLBACK", &(Diag){0});   // a failed migration leaves the file as it was
    db_close(db);
    if (!existed) remove_new(path);
    return NULL;
  }
  db->version = DB_SCHEMA_VERSION;
  if (records >= 0)
    fprintf(stderr, "convgen: %s: database schema 1 migrated to %d (measurements.kernel_hash: not known for the %lld "
            "records made before)\n", path, DB_SCHEMA_VERSION, (long long)records);
  return db;
}

/* path as a file: URI (RFC 3986: every byte but the unreserved ones and '/'
 * percent-encoded) with the given query. Heap string. */
static char *file_uri(const char *path, const char *query) {
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "file:");
  for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
    if (isalnum(*c) || strchr("-._~/", *c)) sb_putc(&sb, (char)*c);
    else sb_printf(&sb, "%%%02X", *c);
  }
  sb_printf(&sb, "?%s", query);
  return sb_take(&sb);
}

static Db *open_uri(const char *path, const char *query, Diag *d) {
  Db *db = calloc(1, sizeof *db);
  if (!db) cg_die("out of memory");
  db->path = strdup(path);
  char *uri = file_uri(path, query);
  int rc = sqlite3_open_v2(uri, &db->h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
  free(uri);
  if (rc != SQLITE_OK) {
    db_fail(db, d, "cannot open for reading");
    db_close(db);
    return NULL;
  }
  sqlite3_busy_timeout(db->h, 10000);
  return db;
}

/* Read-only, it never writes the file. A database in WAL mode is read
 * through its -shm file, which SQLite makes beside it when missing; in a
 * folder the reader cannot write (so no writer's -shm there either) it is
 * opened as immutable instead. Then the schema is checked as db_open does:
 * an empty file, someone else's or a newer schema is refused. */
Db *db_open_readonly(const char *path, Diag *d) {
  Diag first = {0};
  bool fresh;
  if (!not_folder(path, d)) return NULL;
  Db *db = open_uri(path, "mode=ro", d);
  if (db && !check_schema(db, &fresh, &first)) {
    int rc = sqlite3_extended_errcode(db->h) & 0xff;
    db_close(db);
    db = NULL;
    if (rc != SQLITE_READONLY && rc != SQLITE_CANTOPEN) return diag_error(d, "%s", first.msg), NULL;
    if ((db = open_uri(path, "mode=ro&immutable=1", d)) && !check_schema(db, &fresh, d)) db_close(db), db = NULL;
  }
  if (db && fresh) {
    diag_error(d, "%s: an empty file, not a convgen database (convgen tune makes one)", path);
    db_close(db);
    return NULL;
  }
  return db;
}

void db_close(Db *db) {
  if (!db) return;
  sqlite3_close(db->h);
  free(db->path);
  free(db);
}

const char *db_fingerprint(Arena *a, const RtDeviceInfo *dev) {
  return arena_printf(a, "%s | %s | %s | %s | %s | %u units | wg %zu | local %llu", dev->platform, dev->vendor,
                      dev->name, dev->driver, dev->version, dev->compute_units, dev->max_wg_size,
                      (unsigned long long)dev->local_mem);
}

static const char *now_utc(char *buf, size_t n) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/* The id of the row that `find` selects with text key, else made by `make`
 * (bound by the caller's binder); -1 on error. */
static int64_t find_id(Db *db, const char *find, const char *key, Diag *d) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db->h, find, -1, &st, NULL) != SQLITE_OK) return db_fail(db, d, "query"), -1;
  sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
  int64_t id = 0;
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) id = sqlite3_column_int64(st, 0);
  else if (rc != SQLITE_DONE) id = -1, db_fail(db, d, "query");
  sqlite3_finalize(st);
  return id;
}

int64_t db_find_device(Db *db, const RtDeviceInfo *dev, Diag *d) {
  Arena *a = arena_new();
  int64_t id = find_id(db, "SELECT id FROM devices WHERE fingerprint = ?1", db_fingerprint(a, dev), d);
  arena_free(a);
  return id;
}

int64_t db_find_device_or_like(Db *db, Arena *a, const RtDeviceInfo *dev, const char **other_driver, Diag *d) {
  *other_driver = NULL;
  int64_t id = db_find_device(db, dev, d);
  if (id != 0) return id;
  // the same hardware (platform, vendor, name, units and limits) under
  // another driver: the one with the most correct records
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db->h,
                         "SELECT d.id, d.driver FROM devices d LEFT JOIN measurements m ON m.device_id = d.id AND "
                         "m.status = 'ok' WHERE d.platform = ?1 AND d.vendor = ?2 AND d.name = ?3 AND d.compute_units "
                         "= ?4 AND d.max_wg_size = ?5 AND d.local_mem = ?6 GROUP BY d.id ORDER BY count(m.id) DESC, "
                         "d.id DESC LIMIT 1", -1, &st, NULL) != SQLITE_OK)
    return db_fail(db, d, "query"), -1;
  sqlite3_bind_text(st, 1, dev->platform, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 2, dev->vendor, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 3, dev->name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(st, 4, (sqlite3_int64)dev->compute_units);
  sqlite3_bind_int64(st, 5, (sqlite3_int64)dev->max_wg_size);
  sqlite3_bind_int64(st, 6, (sqlite3_int64)dev->local_mem);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    id = sqlite3_column_int64(st, 0);
    *other_driver = arena_strdup(a, (const char *)sqlite3_column_text(st, 1));
  } else if (rc != SQLITE_DONE) {
    id = -1;
  }
  sqlite3_finalize(st);
  if (id < 0) db_fail(db, d, "query");
  return id;
}

int64_t db_find_device_twin(Db *db, const RtDeviceInfo *dev, bool cuda, Diag *d) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db->h,
                         "SELECT d.id FROM devices d LEFT JOIN measurements m ON m.device_id = d.id AND m.status = "
                         "'ok' WHERE d.name = ?1 AND (d.platform = 'CUDA') = ?2 GROUP BY d.id ORDER BY count(m.id) "
                         "DESC, d.id DESC LIMIT 1", -1, &st, NULL) != SQLITE_OK)
    return db_fail(db, d, "query"), -1;
  sqlite3_bind_text(st, 1, dev->name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(st, 2, cuda ? 1 : 0);
  int rc = sqlite3_step(st);
  int64_t id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : rc == SQLITE_DONE ? 0 : -1;
  sqlite3_finalize(st);
  if (id < 0) db_fail(db, d, "query");
  return id;
}

int64_t db_find_layer(Db *db, const Layer *l, Diag *d) {
  StrBuf sb;
  sb_init(&sb);
  layer_format(&sb, l);
  int64_t id = find_id(db, "SELECT id FROM layers WHERE spec = ?1", sb_str(&sb), d);
  sb_free(&sb);
  return id;
}

int64_t db_device(Db *db, const RtDeviceInfo *dev, Diag *d) {
  Arena *a = arena_new();
  const char *fp = db_fingerprint(a, dev);
  int64_t id = find_id(db, "SELECT id FROM devices WHERE fingerprint = ?1", fp, d);
  if (id == 0) {
    sqlite3_stmt *st;
    char when[32];
    if (sqlite3_prepare_v2(db->h,
                           "INSERT OR IGNORE INTO devices(fingerprint, name, platform, vendor, driver, compute_units, "
                           "max_wg_size, local_mem, global_mem, first_seen) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
                           "?9, ?10)",
                           -1, &st, NULL) != SQLITE_OK) {
      arena_free(a);
      return db_fail(db, d, "insert device"), -1;
    }
    sqlite3_bind_text(st, 1, fp, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, dev->name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, dev->platform, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, dev->vendor, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 5, dev->driver, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 6, dev->compute_units);
    sqlite3_bind_int64(st, 7, (sqlite3_int64)dev->max_wg_size);
    sqlite3_bind_int64(st, 8, (sqlite3_int64)dev->local_mem);
    sqlite3_bind_int64(st, 9, (sqlite3_int64)dev->global_mem);
    sqlite3_bind_text(st, 10, now_utc(when, sizeof when), -1, SQLITE_TRANSIENT);
    bool ok = sqlite3_step(st) == SQLITE_DONE;
    sqlite3_finalize(st);
    // another tune may have made it meanwhile: read the id back either way
    id = ok ? find_id(db, "SELECT id FROM devices WHERE fingerprint = ?1", fp, d) : (db_fail(db, d, "insert device"), -1);
  }
  arena_free(a);
  return id;
}

int64_t db_layer(Db *db, const Layer *l, Diag *d) {
  StrBuf sb;
  sb_init(&sb);
  layer_format(&sb, l);
  int64_t id = find_id(db, "SELECT id FROM layers WHERE spec = ?1", sb_str(&sb), d);
  if (id == 0) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h,
                           "INSERT OR IGNORE INTO layers(spec, n, c, h, w, k, kh, kw, stride_h, stride_w, pad_h, pad_w, bias, "
                           "relu) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
                           -1, &st, NULL) == SQLITE_OK) {
      int v[] = {l->n, l->c, l->h, l->w, l->k, l->kh, l->kw, l->stride_h, l->stride_w, l->pad_h, l->pad_w,
                 l->bias, l->act == ACT_RELU};
      sqlite3_bind_text(st, 1, sb_str(&sb), -1, SQLITE_TRANSIENT);
      for (int i = 0; i < 13; i++) sqlite3_bind_int(st, i + 2, v[i]);
      bool ok = sqlite3_step(st) == SQLITE_DONE;
      sqlite3_finalize(st);
      id = ok ? find_id(db, "SELECT id FROM layers WHERE spec = ?1", sb_str(&sb), d) : -1;
    } else {
      id = -1;
    }
    if (id < 0) db_fail(db, d, "insert layer");
  }
  sb_free(&sb);
  return id;
}

static int64_t candidate_id(Db *db, int64_t layer, const char *strategy, const char *point, bool make) {
  sqlite3_stmt *st;
  int64_t id = 0;
  if (sqlite3_prepare_v2(db->h, "SELECT id FROM candidates WHERE layer_id = ?1 AND strategy = ?2 AND point = ?3", -1,
                         &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(st, 1, layer);
  sqlite3_bind_text(st, 2, strategy, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 3, point, -1, SQLITE_TRANSIENT);
  if (sqlite3_step(st) == SQLITE_ROW) id = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  if (id || !make) return id;
  if (sqlite3_prepare_v2(db->h, "INSERT INTO candidates(layer_id, strategy, point) VALUES (?1, ?2, ?3)", -1, &st,
                         NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(st, 1, layer);
  sqlite3_bind_text(st, 2, strategy, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 3, point, -1, SQLITE_TRANSIENT);
  id = sqlite3_step(st) == SQLITE_DONE ? sqlite3_last_insert_rowid(db->h) : -1;
  sqlite3_finalize(st);
  return id;
}

static void bind_real(sqlite3_stmt *st, int i, double v) {
  if (isfinite(v)) sqlite3_bind_double(st, i, v);
  else sqlite3_bind_null(st, i);
}

bool db_record(Db *db, int64_t layer, int64_t device, const DbMeasurement *m, bool *fresh, Diag *d) {
  *fresh = false;
  if (!exec(db, "BEGIN IMMEDIATE", d)) return false;
  int64_t cand = candidate_id(db, layer, m->strategy, m->point, true);
  sqlite3_stmt *st = NULL;
  bool ok = cand > 0 &&
            sqlite3_prepare_v2(db->h,
                               "INSERT INTO measurements(candidate_id, device_id, status, reason, error, "
                               "median_us, min_us, max_us, spread, runs, seed, search, convgen, measured_at, "
                               "kernel_hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15) "
                               // a new result replaces a crash or a hang (it may have been transient) and a
                               // record of other kernels than the new one's (or of kernels not known); the
                               // same kernels measured again replace nothing
                               "ON CONFLICT(candidate_id, device_id) DO UPDATE SET status = excluded.status, reason = "
                               "excluded.reason, error = excluded.error, median_us = excluded.median_us, min_us = "
                               "excluded.min_us, max_us = excluded.max_us, spread = excluded.spread, runs = "
                               "excluded.runs, seed = excluded.seed, search = excluded.search, convgen = "
                               "excluded.convgen, measured_at = excluded.measured_at, kernel_hash = "
                               "excluded.kernel_hash WHERE measurements.status IN ('crash', 'hang') OR "
                               "(excluded.kernel_hash IS NOT NULL AND measurements.kernel_hash IS NOT "
                               "excluded.kernel_hash)",
                               -1, &st, NULL) == SQLITE_OK;
  if (ok) {
    char when[32];
    bool timed = strcmp(m->status, "ok") == 0;
    sqlite3_bind_int64(st, 1, cand);
    sqlite3_bind_int64(st, 2, device);
    sqlite3_bind_text(st, 3, m->status, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, m->reason ? m->reason : "", -1, SQLITE_TRANSIENT);
    bind_real(st, 5, m->error);
    bind_real(st, 6, timed ? m->median_us : NAN);
    bind_real(st, 7, timed ? m->min_us : NAN);
    bind_real(st, 8, timed ? m->max_us : NAN);
    bind_real(st, 9, timed ? m->spread : NAN);
    if (timed) sqlite3_bind_int(st, 10, m->runs);
    else sqlite3_bind_null(st, 10);
    sqlite3_bind_int64(st, 11, (sqlite3_int64)m->seed);
    sqlite3_bind_text(st, 12, m->search ? m->search : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 13, cg_version(), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 14, now_utc(when, sizeof when), -1, SQLITE_TRANSIENT);
    if (m->kernel_hash) sqlite3_bind_text(st, 15, m->kernel_hash, -1, SQLITE_TRANSIENT);
    else sqlite3_bind_null(st, 15);
    ok = sqlite3_step(st) == SQLITE_DONE;
    *fresh = ok && sqlite3_changes(db->h) == 1;
  }
  sqlite3_finalize(st);
  st = NULL;   // its claim, if a tune made one, ends with the record
  ok = ok && sqlite3_prepare_v2(db->h, "DELETE FROM claims WHERE candidate_id = ?1 AND device_id = ?2", -1, &st, NULL) ==
                 SQLITE_OK;
  if (ok) {
    sqlite3_bind_int64(st, 1, cand);
    sqlite3_bind_int64(st, 2, device);
    ok = sqlite3_step(st) == SQLITE_DONE;
  }
  sqlite3_finalize(st);
  if (!ok) {
    db_fail(db, d, "recording a measurement");
    exec(db, "ROLLBACK", &(Diag){0});
    return false;
  }
  return exec(db, "COMMIT", d);
}

static bool has_measurement(Db *db, int64_t cand, int64_t device) {
  sqlite3_stmt *st;
  bool found = false;
  if (sqlite3_prepare_v2(db->h, "SELECT 1 FROM measurements WHERE candidate_id = ?1 AND device_id = ?2", -1, &st,
                         NULL) == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, cand);
    sqlite3_bind_int64(st, 2, device);
    found = sqlite3_step(st) == SQLITE_ROW;
  }
  sqlite3_finalize(st);
  return found;
}

static double unix_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Whether owner ("host:pid") is a process of this host that no longer runs:
 * its claims are void before they expire (a tune killed mid-candidate). */
static bool owner_dead(const char *owner) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  const char *colon = strrchr(owner, ':');
  if (!colon || (size_t)(colon - owner) != strlen(host) || strncmp(owner, host, strlen(host)) != 0) return false;
  char *end;
  long pid = strtol(colon + 1, &end, 10);
  return *end == 0 && pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Whether the candidate has a live claim of another owner: not expired, and
 * not of a process of this host that has died. */
static bool claimed_by_other(Db *db, int64_t cand, int64_t device, const char *owner) {
  sqlite3_stmt *st;
  bool other = false;
  if (sqlite3_prepare_v2(db->h, "SELECT owner, expires FROM claims WHERE candidate_id = ?1 AND device_id = ?2", -1,
                         &st, NULL) != SQLITE_OK)
    return false;
  sqlite3_bind_int64(st, 1, cand);
  sqlite3_bind_int64(st, 2, device);
  if (sqlite3_step(st) == SQLITE_ROW) {
    const char *who = (const char *)sqlite3_column_text(st, 0);
    other = who && strcmp(who, owner) != 0 && sqlite3_column_double(st, 1) >= unix_now() && !owner_dead(who);
  }
  sqlite3_finalize(st);
  return other;
}

DbClaim db_claim(Db *db, int64_t layer, int64_t device, const char *strategy, const char *point, const char *owner,
                 double ttl_s, bool recorded_ok, Diag *d) {
  if (!exec(db, "BEGIN IMMEDIATE", d)) return DB_CLAIM_FAILED;
  int64_t cand = candidate_id(db, layer, strategy, point, true);
  DbClaim r = DB_CLAIM_FAILED;
  sqlite3_stmt *st = NULL;
  if (cand > 0 && !recorded_ok && has_measurement(db, cand, device)) {
    r = DB_CLAIM_RECORDED;
  } else if (cand > 0 && claimed_by_other(db, cand, device, owner)) {
    r = DB_CLAIMED_ELSEWHERE;
  } else if (cand > 0 && sqlite3_prepare_v2(db->h,
                                            "INSERT OR REPLACE INTO claims(candidate_id, device_id, owner, expires) "
                                            "VALUES (?1, ?2, ?3, ?4)",
                                            -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, cand);
    sqlite3_bind_int64(st, 2, device);
    sqlite3_bind_text(st, 3, owner, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, 4, unix_now() + ttl_s);
    if (sqlite3_step(st) == SQLITE_DONE) r = DB_CLAIMED;
  }
  sqlite3_finalize(st);
  if (r == DB_CLAIM_FAILED) {
    db_fail(db, d, "claiming a candidate");
    exec(db, "ROLLBACK", &(Diag){0});
    return r;
  }
  return exec(db, "COMMIT", d) ? r : DB_CLAIM_FAILED;
}

void db_release_claims(Db *db, const char *owner) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db->h, "DELETE FROM claims WHERE owner = ?1", -1, &st, NULL) != SQLITE_OK) return;
  sqlite3_bind_text(st, 1, owner, -1, SQLITE_TRANSIENT);
  sqlite3_step(st);
  sqlite3_finalize(st);
}

/* The kernel hash column of measurements m: NULL (not known) in a file of
 * schema 1, which a reader reads as it is. */
static const char *hash_column(const Db *db) { return db->version >= 2 ? "m.kernel_hash" : "NULL"; }

/* A stored kernel hash: NULL when not known; one that is not MEAS_HASH_LEN
 * hex digits (written by hand) differs from every hash meas_kernel_hash
 * makes, and is kept printable. */
static const char *hash_text(Arena *a, sqlite3_stmt *st, int i) {
  const char *t = (const char *)sqlite3_column_text(st, i);
  if (!t) return NULL;
  return arena_strdup(a, meas_is_kernel_hash(t) ? t : "(not a hash)");
}

bool db_result(Db *db, Arena *a, int64_t layer, int64_t device, const char *strategy, const char *point,
               double *median_us, const char **kernel_hash) {
  *kernel_hash = NULL;
  int64_t cand = candidate_id(db, layer, strategy, point, false);
  if (cand <= 0) return false;
  sqlite3_stmt *st;
  bool found = false;
  char sql[160];
  snprintf(sql, sizeof sql, "SELECT m.status, m.median_us, %s FROM measurements m WHERE candidate_id = ?1 AND "
           "device_id = ?2", hash_column(db));
  if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, cand);
    sqlite3_bind_int64(st, 2, device);
    if ((found = sqlite3_step(st) == SQLITE_ROW)) {
      const unsigned char *status = sqlite3_column_text(st, 0);
      bool ok = status && strcmp((const char *)status, "ok") == 0;
      *median_us = ok ? sqlite3_column_double(st, 1) : INFINITY;
      *kernel_hash = hash_text(a, st, 2);
    }
  }
  sqlite3_finalize(st);
  return found;
}

bool db_fault(Db *db, int64_t layer, int64_t device, const char *strategy, const char *point, int64_t *measured_at) {
  int64_t cand = candidate_id(db, layer, strategy, point, false);
  if (cand <= 0) return false;
  sqlite3_stmt *st;
  bool found = false;
  if (sqlite3_prepare_v2(db->h,
                         "SELECT CAST(strftime('%s', measured_at) AS INTEGER) FROM measurements WHERE candidate_id = "
                         "?1 AND device_id = ?2 AND status IN ('crash', 'hang')",
                         -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_int64(st, 1, cand);
    sqlite3_bind_int64(st, 2, device);
    if ((found = sqlite3_step(st) == SQLITE_ROW)) *measured_at = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  return found;
}

bool db_measured(Db *db, int64_t layer, int64_t device, const char *strategy, const char *point) {
  int64_t cand = candidate_id(db, layer, strategy, point, false);
  return cand > 0 && has_measurement(db, cand, device);
}

void db_counts(Db *db, int64_t layer, int64_t device, int64_t *all, int64_t *ok) {
  sqlite3_stmt *st;
  *all = *ok = 0;
  if (sqlite3_prepare_v2(db->h,
                         "SELECT count(*), coalesce(sum(m.status = 'ok'), 0) FROM measurements m JOIN candidates c ON "
                         "m.candidate_id = c.id WHERE c.layer_id = ?1 AND m.device_id = ?2",
                         -1, &st, NULL) != SQLITE_OK)
    return;
  sqlite3_bind_int64(st, 1, layer);
  sqlite3_bind_int64(st, 2, device);
  if (sqlite3_step(st) == SQLITE_ROW) *all = sqlite3_column_int64(st, 0), *ok = sqlite3_column_int64(st, 1);
  sqlite3_finalize(st);
}

int64_t db_recorded(Db *db, int64_t layer, int64_t device, const char *strategy) {
  sqlite3_stmt *st;
  int64_t n = 0;
  if (sqlite3_prepare_v2(db->h,
                         "SELECT count(*) FROM measurements m JOIN candidates c ON m.candidate_id = c.id WHERE "
                         "c.layer_id = ?1 AND m.device_id = ?2 AND c.strategy = ?3",
                         -1, &st, NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_int64(st, 1, layer);
  sqlite3_bind_int64(st, 2, device);
  sqlite3_bind_text(st, 3, strategy, -1, SQLITE_TRANSIENT);
  if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return n;
}

static const char *col_text(Arena *a, sqlite3_stmt *st, int i) {
  const unsigned char *t = sqlite3_column_text(st, i);
  return arena_strdup(a, t ? (const char *)t : "");
}

int db_tuned_layers(Db *db, Arena *a, int64_t device, int64_t except, int64_t *ids, const char **specs, int max) {
  sqlite3_stmt *st;
  if (max <= 0 || sqlite3_prepare_v2(db->h,
                                     "SELECT l.id, l.spec FROM layers l WHERE l.id != ?2 AND EXISTS (SELECT 1 FROM "
                                     "candidates c JOIN measurements m ON m.candidate_id = c.id WHERE c.layer_id = l.id "
                                     "AND m.device_id = ?1 AND m.status = 'ok') ORDER BY l.id LIMIT ?3",
                                     -1, &st, NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_int64(st, 1, device);
  sqlite3_bind_int64(st, 2, except);
  sqlite3_bind_int(st, 3, max);
  int got = 0;
  while (got < max && sqlite3_step(st) == SQLITE_ROW) {
    ids[got] = sqlite3_column_int64(st, 0);
    specs[got++] = col_text(a, st, 1);
  }
  sqlite3_finalize(st);
  return got;
}

int db_best_n(Db *db, Arena *a, int64_t layer, int64_t device, int n, DbBest *out) {
  sqlite3_stmt *st;
  const char *sql = arena_printf(a,
                                 "SELECT c.strategy, c.point, m.error, m.median_us, m.min_us, m.max_us, m.spread, "
                                 "m.runs, m.seed, m.search, m.measured_at, %s FROM measurements m JOIN candidates c "
                                 "ON m.candidate_id = c.id WHERE c.layer_id = ?1 AND m.device_id = ?2 AND m.status = "
                                 "'ok' AND m.id = (SELECT m2.id FROM measurements m2 WHERE m2.candidate_id = c.id AND "
                                 "m2.device_id = ?2 AND m2.status = 'ok' ORDER BY m2.median_us, m2.id LIMIT 1) ORDER "
                                 "BY m.median_us, m.id LIMIT ?3",
                                 hash_column(db));
  if (n <= 0 || sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) return 0;
  sqlite3_bind_int64(st, 1, layer);
  sqlite3_bind_int64(st, 2, device);
  sqlite3_bind_int(st, 3, n);
  int got = 0;
  while (got < n && sqlite3_step(st) == SQLITE_ROW) {
    DbBest *b = &out[got++];
    memset(b, 0, sizeof *b);
    DbMeasurement *m = &b->m;
    m->strategy = col_text(a, st, 0);
    m->point = col_text(a, st, 1);
    m->status = "ok";
    m->reason = "";
    m->error = sqlite3_column_double(st, 2);
    m->median_us = sqlite3_column_double(st, 3);
    m->min_us = sqlite3_column_double(st, 4);
    m->max_us = sqlite3_column_double(st, 5);
    m->spread = sqlite3_column_double(st, 6);
    m->runs = sqlite3_column_int(st, 7);
    m->seed = (uint64_t)sqlite3_column_int64(st, 8);
    m->search = col_text(a, st, 9);
    b->measured_at = col_text(a, st, 10);
    m->kernel_hash = hash_text(a, st, 11);
  }
  sqlite3_finalize(st);
  if (got > 0) {
    int64_t ok;
    db_counts(db, layer, device, &out[0].measured, &ok);
    for (int i = 1; i < got; i++) out[i].measured = out[0].measured;
  }
  return got;
}

bool db_best(Db *db, Arena *a, int64_t layer, int64_t device, DbBest *out) {
  memset(out, 0, sizeof *out);
  return db_best_n(db, a, layer, device, 1, out) == 1;
}
